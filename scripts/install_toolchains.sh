#!/usr/bin/env bash
# The toolchains of coderl's other languages (docs/languages.md): Icarus Verilog, Yosys, Verilator, Lua 5.4
# and Node.js.  Installs the missing ones through apt where it can (root on Debian/Ubuntu, as CI is);
# elsewhere it prints one line per missing tool and leaves it: their tests then skip with a one-line
# reason (under CI=true a skipped language test is a failure).  Never fails `make setup` by itself.
set -uo pipefail
declare -A PACKAGE=([iverilog]=iverilog [vvp]=iverilog [yosys]=yosys [verilator]=verilator [lua5.4]=lua5.4 [node]=nodejs)
missing=()
for tool in iverilog vvp yosys verilator lua5.4 node; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
[ ${#missing[@]} -eq 0 ] && exit 0
packages=$(for t in "${missing[@]}"; do echo "${PACKAGE[$t]}"; done | sort -u | tr '\n' ' ')
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "installing toolchains through apt: $packages"
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -q --no-install-recommends $packages >/tmp/coderl-apt.log 2>&1 || {
    apt-get update -q >>/tmp/coderl-apt.log 2>&1
    apt-get install -y -q --no-install-recommends $packages >>/tmp/coderl-apt.log 2>&1
  } || echo "apt-get could not install $packages (see /tmp/coderl-apt.log); their tests skip"
else
  for t in "${missing[@]}"; do
    echo "not installed: $t (apt-get install ${PACKAGE[$t]}); its language tests skip"
  done
fi
exit 0
