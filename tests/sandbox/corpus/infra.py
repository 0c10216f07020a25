"""Programs that provoke a failure of the sandbox itself: none may come back as an infrastructure failure
(`sandbox_error`, which training leaves out of the advantages and `coderl eval` out of pass@k), or a program
could buy itself a verdict of "not my fault" (docs/training.md, "When a run goes wrong").  Each is a wrong
program, so it must also fail.

Where a program can reach the server or its judge (isolation `rlimits`: the same uid, no PID namespace) it
does; at `uid` and `full` the attempt fails and the program fails on its own.  The server killer kills it once
(a marker in /tmp, named for the client's pid): every program running beside it at that moment takes a strike
(`coderl.sandbox.client`), and a second kill would fail its neighbours in the corpus batch too.  `before=` is
the verdict before this class existed (the server killed twice and the judge ended were `sandbox_error`).
"""

from __future__ import annotations

from . import Case

# the server is the zygote's parent, the client the server's
_KILL_SERVER = ("import os, signal, time\n"
                "def _ppid(pid):\n"
                "    with open(f'/proc/{pid}/stat') as f:\n"
                "        return int(f.read().rsplit(')', 1)[1].split()[1])\n"
                "try:\n"
                "    _server = _ppid(os.getppid())\n"
                "    _marker = f'/tmp/coderl-corpus-server-killed-{_ppid(_server)}'\n"
                "    if not os.path.exists(_marker):\n"
                "        open(_marker, 'w').close()\n"
                "        os.kill(_server, signal.SIGKILL)\n"
                "        time.sleep(1)\n"
                "except OSError:\n"
                "    pass\n")

# the judge: the sibling (a child of the same zygote) holding the other end of this process's channel (a
# socketpair's two inodes are adjacent)
_END_JUDGE = ("import os, signal, time\n"
              "def _peers():\n"
              "    mine = set()\n"
              "    for fd in os.listdir('/proc/self/fd'):\n"
              "        try:\n"
              "            link = os.readlink(f'/proc/self/fd/{fd}')\n"
              "        except OSError:\n"
              "            continue\n"
              "        if link.startswith('socket:['):\n"
              "            mine.add(int(link[8:-1]))\n"
              "    return {f'socket:[{i + d}]' for i in mine for d in (-1, 1)}\n"
              "def _judges():\n"
              "    peers, parent = _peers(), os.getppid()\n"
              "    for pid in filter(str.isdigit, os.listdir('/proc')):\n"
              "        try:\n"
              "            with open(f'/proc/{pid}/stat') as f:\n"
              "                if int(f.read().rsplit(')', 1)[1].split()[1]) != parent or int(pid) == os.getpid():\n"
              "                    continue\n"
              "            if any(os.readlink(f'/proc/{pid}/fd/{fd}') in peers for fd in os.listdir(f'/proc/{pid}/fd')):\n"
              "                yield int(pid)\n"
              "        except OSError:\n"
              "            pass\n"
              "for _pid in set(_judges()):\n"
              "    try:\n"
              "        os.kill(_pid, signal.{sig})\n"
              "    except OSError:\n"
              "        pass\n"
              "time.sleep(0.5)\n")


def _case(name: str, completion: str, before: str, time_limit: float | None = None) -> Case:
    return Case(name=name, tag="I.infra_provoked", completion=completion, expect="fail", task_id="easy/0",
                before=before, time_limit=time_limit)


CASES: list[Case] = [
    _case("kills_its_server", "    return 0\n" + _KILL_SERVER, before="failed"),
    _case("ends_its_judge", "    return 0\n" + _END_JUDGE.replace("{sig}", "SIGTERM"), before="sandbox_error"),
    _case("kills_its_judge", "    return 0\n" + _END_JUDGE.replace("{sig}", "SIGKILL"), before="memory_exceeded"),
    _case("sleeps_past_the_backstop", "    return 0\nimport time\ntime.sleep(10 ** 6)\n", before="timeout",
          time_limit=0.25),
    _case("sleeps_in_the_call_past_the_backstop", "    import time\n    time.sleep(10 ** 6)\n", before="timeout",
          time_limit=0.25),
]
