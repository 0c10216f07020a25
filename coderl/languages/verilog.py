"""Verilog (and the SystemVerilog subset Icarus Verilog reads): the language, its toolchain commands and
the build-time rejection of constructs that could reach outside the design under test.

Toolchain (Debian packages iverilog, yosys, verilator; `make setup` installs them):

    build      iverilog -g2012 -o sim -s coderl_tb coderl_tb.v design.sv   (the testbench, then the design)
    simulate   vvp -n sim +coderl_nonce=<nonce>       the testbench prints "<nonce> <label> <bits>" per check
    synthesis  yosys: read, `synth -top <top>`, and (unless the task allows latches) no latch cell
    lint       verilator --lint-only -Wall: the quality reward counts its warnings

The design never sees the nonce: it may not call `$value$plusargs` (or any system task outside
`SYSTEM_TASKS`), name anything of the testbench's (identifiers containing "coderl", hierarchical
names, `$root`/`$unit`), override values (`force`, `release`, `defparam`, `bind`), read files
(`` `include ``, `$fopen`, `$readmemh`, ...) or run commands (`$system`); and since the rules read the
text as written, it may not use macros (`` `define ``, token pasting, a macro's use): only the
directives in `DIRECTIVES`.  `rejected(design)` says which
rule a design breaks; such a design is a build error before anything runs.
"""

from __future__ import annotations

import re

from coderl.languages import Language, register_language
from coderl.languages.runner import Runner, register_runner

TESTBENCH_FILE = "coderl_tb.v"
DESIGN_FILE = "design.sv"
SIM_FILE = "sim"
TESTBENCH_MODULE = "coderl_tb"
PRELUDE = (
    "`timescale 1ns/1ps\n"
    "`define CHECK(label, value) begin if (!$value$plusargs(\"coderl_nonce=%s\", coderl_nonce)) "
    "coderl_nonce = \"none\"; $display(\"%0s %0s %b\", coderl_nonce, label, value); end\n"
)
BUILD = ("iverilog", "-g2012", "-o", SIM_FILE, "-s", TESTBENCH_MODULE, TESTBENCH_FILE, DESIGN_FILE)
LATCH_CELLS = "t:$dlatch t:$adlatch t:$dlatchsr t:$_DLATCH_* t:$_DLATCHSR_*"
LINT_FLAGS = ("--lint-only", "-Wall", "-Wno-DECLFILENAME", "-Wno-EOFNEWLINE")
SYSTEM_TASKS = frozenset("""
$display $write $strobe $monitor $displayb $displayh $displayo $writeb $writeh $writeo $finish $time $stime
$realtime $signed $unsigned $clog2 $bits $random $urandom $urandom_range $countones $onehot $onehot0
$isunknown $error $warning $info $fatal $sformatf $high $low $left $right $size $rtoi $itor $realtobits
$bitstoreal
""".split())
BANNED_WORDS = ("force", "release", "defparam", "bind")
# Directives a design may use: none can build a name or read a file (no `define, `include, macro uses).
DIRECTIVES = frozenset({"timescale", "default_nettype", "resetall", "ifdef", "ifndef", "elsif", "else", "endif",
                        "celldefine", "endcelldefine"})


def simulate_argv(nonce: str) -> tuple[str, ...]:
    return ("vvp", "-n", SIM_FILE, f"+coderl_nonce={nonce}")


def synthesis_argv(top: str, latches: bool) -> tuple[str, ...]:
    script = f"read_verilog -sv {DESIGN_FILE}; synth -top {top}"
    if not latches:
        script += f"; select -assert-none {LATCH_CELLS}"
    return ("yosys", "-q", "-p", script)


def lint_argv(top: str) -> tuple[str, ...]:
    return ("verilator", *LINT_FLAGS, "--top-module", top, DESIGN_FILE)


_COMMENTS_STRINGS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.DOTALL)


def code_only(source: str) -> str:
    """The source with comments and string literals blanked (each kept as one space)."""
    return _COMMENTS_STRINGS.sub(" ", source)


def rejected(design: str) -> str | None:
    """Which build-time rule the design breaks (one line), or None.  The rules read the text as written,
    so nothing may rewrite it before the compiler does: no macros (`define, `include, token pasting,
    a macro's use), only the directives in DIRECTIVES."""
    if re.search(r'\bimport\s+"DPI', design):
        return "DPI imports are not allowed"
    code = code_only(design)
    for directive in re.findall(r"`\s*([A-Za-z_]\w*|`)?", code):
        if directive not in DIRECTIVES:
            return f"compiler directive or macro `{directive} is not allowed (no macros in a design)"
    if "coderl" in code.lower():
        return "identifiers containing 'coderl' belong to the testbench"
    for word in BANNED_WORDS:
        if re.search(rf"(?<![\w$]){word}(?![\w$])", code):
            return f"'{word}' is not allowed"
    for name in re.findall(r"\$[A-Za-z_][\w$]*", code):
        if name in ("$root", "$unit"):
            return f"{name} is not allowed"
        if name not in SYSTEM_TASKS:
            return f"system task {name} is not allowed"
    hier = re.search(r"(?<![\w$'.])([A-Za-z_][\w$]*)\s*\.\s*([A-Za-z_][\w$]*)", code)
    if hier:
        return f"hierarchical reference {hier.group(1)}.{hier.group(2)} is not allowed"
    return None


def parses(source: str) -> bool:
    code = code_only(source)
    return re.search(r"\bmodule\b", code) is not None and re.search(r"\bendmodule\b", code) is not None


def compiles(source: str) -> bool:
    """Every `module` has its `endmodule` and begin/end balance (a cheap check that runs nothing; the
    `compile` reward reads the real build)."""
    code = code_only(source)
    count = lambda word: len(re.findall(rf"\b{word}\b", code))  # noqa: E731
    return count("module") >= 1 and count("module") == count("endmodule") and count("begin") == count("end")


def compile_error(stderr: str) -> str | None:
    """Icarus Verilog's first error line ("design.sv:3: syntax error", "...: error: ...")."""
    return next((ln.strip() for ln in stderr.splitlines()
                 if re.search(r":\d+: (?:syntax error|error:)", ln) or ln.strip().startswith("error:")), None)


def defines(code: str, name: str, column0: bool = False) -> bool:
    indent = "" if column0 else r"[ \t]*"
    return re.search(rf"^{indent}module\s+{re.escape(name)}\b", code, re.MULTILINE) is not None


def prose_header(text: str) -> str:
    return "".join(f"// {line}".rstrip() + "\n" for line in text.rstrip().splitlines())


VERILOG = register_language(Language(
    name="verilog", display="Verilog", fence_tag="verilog",
    fence_tags=frozenset({"", "verilog", "systemverilog", "sv", "v"}),
    parses=parses, compiles=compiles, compile_error=compile_error, defines=defines, prose_header=prose_header,
    completion_stops=("\n```",),
))

# The simulation's runner; synthesis and lint are further tests of the same request (`coderl.tasks.hdl`).
ICARUS = register_runner(Runner(
    language="verilog", source_file=DESIGN_FILE, run=simulate_argv("none"), build=BUILD, judge="hardware",
    binaries=("iverilog", "vvp", "yosys", "verilator"),
    install="apt-get install --no-install-recommends iverilog yosys verilator",
))
