"""At `full`, each program has mount, network, IPC and PID namespaces of its own (`isolation.Slots.enter`), and its
slot's writable directories are made anew before it.  Whatever one program leaves, the next program of the slot
finds nothing of it:
files in its /sandbox, /tmp, /var/tmp, /dev/shm and /run/lock; an abstract socket, even one whose only
reference is in flight between sockets; a SysV or POSIX IPC object; a process; a mount it made in a
namespace of its own.  Each case is a leaver and a finder on a one-slot sandbox; the finder passes only if
the slot is as a fresh one.  A program reaches no other process, and sees no socket of the server's namespace."""

import os
import subprocess
import sys

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable

from .helpers import OWN_ENTRIES, make_script_request

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="namespaces need root")

PRIVATE = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/sandbox")

LEAVE_FILES = """
import os, socket, stat
for d in PRIVATE:
    open(os.path.join(d, "left.txt"), "w").write("x")
    os.mkfifo(os.path.join(d, "left.fifo"))
    os.symlink("/etc/passwd", os.path.join(d, "left.link"))
    os.makedirs(os.path.join(d, "left-dir", "inner"))
    os.chmod(os.path.join(d, "left-dir"), 0)
    s = socket.socket(socket.AF_UNIX); s.bind(os.path.join(d, "left.sock"))
print("ok")
""".replace("PRIVATE", repr(PRIVATE))

FIND_FILES = OWN_ENTRIES + """
import os
left = {d: sorted(n for n in own_entries(d) if n != "main.py") for d in PRIVATE}
print("ok" if not any(left.values()) else left)
""".replace("PRIVATE", repr(PRIVATE))

LEAVE_SOCKETS = """
import os, socket, array
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind(b"\\0coderl-left")
listener.listen()
# a socket whose only reference is in flight: sent over a socketpair that is then closed with it queued
hidden = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
hidden.bind(b"\\0coderl-left-in-flight")
hidden.listen()
a, b = socket.socketpair()
a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [hidden.fileno(), a.fileno()]))])
b.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [b.fileno()]))])
tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
tcp.bind(("0.0.0.0", 4242))
tcp.listen()
print("ok")
"""

FIND_SOCKETS = """
import socket
unix = open("/proc/net/unix").read().splitlines()[1:]  # before any socket of its own
used = open("/proc/net/sockstat").read().splitlines()[0]
found = []
for name in (b"\\0coderl-left", b"\\0coderl-left-in-flight"):
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(name)
            found.append(name)
        except ConnectionRefusedError:
            pass
with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as t:
    t.bind(("0.0.0.0", 4242))  # free again
print("ok" if not found and not unix and used == "sockets: used 0" else (found, unix, used))
"""

LEAVE_IPC = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
assert libc.shmget(0x1eaf, 4096, 0o1666) >= 0
assert libc.semget(0x1eaf, 1, 0o1666) >= 0
assert libc.msgget(0x1eaf, 0o1666) >= 0
rt = ctypes.CDLL("librt.so.1", use_errno=True)
assert rt.mq_open(b"/coderl-left", os.O_CREAT | os.O_RDWR, 0o666, None) >= 0
print("ok")
"""

FIND_IPC = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
rt = ctypes.CDLL("librt.so.1", use_errno=True)
found = [name for name, ok in (("shm", libc.shmget(0x1eaf, 0, 0) >= 0), ("sem", libc.semget(0x1eaf, 0, 0) >= 0),
                               ("msg", libc.msgget(0x1eaf, 0) >= 0), ("mq", rt.mq_open(b"/coderl-left", os.O_RDWR) >= 0))
         if ok]
print("ok" if not found else found)
"""

LEAVE_PROCESS = """
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(60)
    os._exit(0)
time.sleep(0.1)
print("ok")
"""

HOLD_A_SOCKET = "import socket, sys\ns = socket.socket(socket.AF_UNIX)\nprint('held', flush=True)\nsys.stdin.read()\n"

FIND_PROCESS = """
import os
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
print("ok" if pids == [1] else pids)
"""

LEAVE_MOUNT = """
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
if libc.unshare(0x10000000 | 0x00020000) == 0:  # a user and a mount namespace of its own, where unprivileged users may
    libc.mount(b"coderl-left", b"/tmp", b"tmpfs", 0, None)
print("ok")
"""

FIND_MOUNT = """
print("ok" if "coderl-left" not in open("/proc/self/mountinfo").read() else "left")
"""

CASES = {"files": (LEAVE_FILES, FIND_FILES), "sockets": (LEAVE_SOCKETS, FIND_SOCKETS), "ipc": (LEAVE_IPC, FIND_IPC),
         "process": (LEAVE_PROCESS, FIND_PROCESS), "mount": (LEAVE_MOUNT, FIND_MOUNT)}


@pytest.fixture(scope="module")
def sandbox():
    try:
        sb = Sandbox(workers=1, isolation="full")
    except SandboxUnavailable:
        pytest.skip("isolation 'full' is not available here")
    with sb:
        yield sb


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_next_program_of_the_slot_finds_nothing(sandbox, case):
    leave, find = CASES[case]
    left = sandbox.run(make_script_request(leave, cases=(("", "ok"),)))
    assert left.passed, (left.status, left.message, left.stderr[-500:])
    found = sandbox.run(make_script_request(find, cases=(("", "ok"),)))
    assert found.passed, (found.status, found.message, found.stdout[-500:], found.stderr[-500:])


def test_a_program_sees_the_slot_as_the_first_program_did(sandbox):
    """The same file system, sockets and processes before and after every kind of leaver."""
    look = ("import os\nprint(sorted(os.listdir('/')), open('/proc/net/sockstat').read().splitlines()[0], "
            "len(open('/proc/self/mountinfo').read().splitlines()))")
    first = sandbox.run(make_script_request(look)).stdout
    for leave, _ in CASES.values():
        sandbox.run(make_script_request(leave, cases=(("", "ok"),)))
    assert sandbox.run(make_script_request(look)).stdout == first


def test_a_toolchain_bound_back_over_tmp_survives_the_wipe_and_nothing_else_does(tmp_path_factory):
    """A toolchain under /tmp (here pytest's temp dir) is bound back over the slot's private /tmp, on
    directories the server must not wipe; what a program writes beside them is wiped all the same."""
    from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

    tool = tmp_path_factory.mktemp("toolchain")
    if not str(tool).startswith("/tmp/"):
        pytest.skip("pytest's temp dir is not under /tmp here")
    tool.chmod(0o755)  # its own directory readable by the slot's uid (the view makes the ones above it 0755)
    script = tool / "hello"
    script.write_text("#!/bin/sh\necho hello\n")
    script.chmod(0o755)
    top = "/tmp/" + str(tool).split("/")[2]
    run_tool = ExecutionRequest(Mode.COMMAND, argv=(str(script),), limits=Limits(),
                                tests=(TestCase("0", "", CheckKind.STDOUT, "hello"),))
    leave = f"import os\nopen(os.path.join({top!r}, 'left.txt'), 'w').write('x')\nprint('ok')\n"
    find = f"import os\nprint('ok' if 'left.txt' not in os.listdir({top!r}) else 'left')\n"
    try:
        sb = Sandbox(workers=1, isolation="full", expose=[str(tool)])
    except SandboxUnavailable:
        pytest.skip("isolation 'full' is not available here")
    with sb:
        for _ in range(3):
            assert sb.run(run_tool).passed
            left = sb.run(make_script_request(leave, cases=(("", "ok"),)))
            assert left.passed or "Permission denied" in left.stderr, left.stderr[-300:]
            found = sb.run(make_script_request(find, cases=(("", "ok"),)))
            assert found.passed, (found.stdout, found.stderr[-300:])


# ---- what a program can reach --------------------------------------------------------------------------------
REACH_OTHERS = """
import os, signal
pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
unix = open("/proc/net/unix").read().splitlines()[1:]
try:
    os.kill(-1, signal.SIGKILL)  # every process it may signal but itself
    reached = True
except ProcessLookupError:  # there is none
    reached = False
print("ok" if pids == [1] and not unix and not reached else (pids, unix, reached))
"""


def _children(pid):
    return [int(c) for t in os.listdir(f"/proc/{pid}/task") for c in open(f"/proc/{pid}/task/{t}/children").read().split()]


def test_a_program_sees_and_reaches_no_other_process(sandbox):
    """A program sees no process but its own and no socket, and its kill(-1) reaches nothing."""
    results = [sandbox.run(make_script_request(REACH_OTHERS, cases=(("", "ok"),))) for _ in range(3)]
    assert all(r.passed for r in results), [(r.status, r.stdout[-300:], r.stderr[-300:]) for r in results]


def test_a_socket_in_the_servers_namespace_is_not_in_a_programs(sandbox):
    """Each program's network namespace is its own, made as it starts from the server's (where the zygote forks it):
    a socket held there, for as long as the request takes, is not counted in the program's."""
    holder = subprocess.Popen(["nsenter", f"--net=/proc/{sandbox.server_info['pid']}/ns/net", sys.executable, "-c", HOLD_A_SOCKET],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline() == "held\n"
        result = sandbox.run(make_script_request(FIND_SOCKETS, cases=(("", "ok"),)))
    finally:
        holder.communicate("")
    assert result.passed, (result.status, result.stdout[-300:], result.stderr[-300:])
