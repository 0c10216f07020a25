"""Nothing outlives a sandbox: after the hostile and containment corpus ran and the sandbox closed, no
process of a slot or judge uid, no cgroup, no mount, no temp directory, no SysV IPC object and no file a
program tried to leave outside its sandbox is left on the host; and run by run, nothing of a program is
left in its slot once its result is in."""

import glob
import os
import shutil
import subprocess
import tempfile
import time
import uuid

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.sandbox.server.lifetime import UID_POOL
from coderl.sandbox.types import Limits

from .corpus import containment, hostile, hostile_judge, run_cases
from .helpers import make_script_request

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="slot uids, cgroups and namespaces need root")


def _sandbox_processes():
    """Processes of slot or judge uids that no live sandbox owns: orphans (reparented to init).  A
    process of a sandbox still running elsewhere on the machine (another test run) has its zygote as
    parent, and is not ours to count."""
    out = subprocess.run(["ps", "-eo", "uid=,pid=,ppid=,stat=,comm="], capture_output=True, text=True).stdout
    rows = [line.split() for line in out.splitlines() if line.split()]
    return [row for row in rows if row[2] in ("0", "1")
            and UID_POOL[0] <= int(row[0]) < UID_POOL[1]]


def _ipc():
    return {name: open(f"/proc/sysvipc/{name}").read() for name in ("shm", "msg", "sem")
            if os.path.exists(f"/proc/sysvipc/{name}")}


def _litter(tag):
    return ("import os\n"
            f"for d in ('/tmp', '/var/tmp', '/dev/shm', '/run/lock', '..', '../..'):\n"
            "    try:\n"
            f"        open(os.path.join(d, 'coderl-litter-{tag}'), 'w').write('x')\n"
            "    except OSError:\n"
            "        pass\n"
            "import ctypes\n"
            "ctypes.CDLL(None).shmget(0x1eaf, 4096, 0o1666)\n"
            "print('ok')\n")


@pytest.mark.parametrize("level", ["full", pytest.param("uid", marks=pytest.mark.slow)])  # uid: make test-slow
def test_nothing_is_left_behind(level):
    tag = uuid.uuid4().hex[:8]
    temp_before = set(glob.glob("/tmp/coderl-sandbox-*"))
    ipc_before = _ipc()
    try:
        sb = Sandbox(workers=2, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    with sb:
        server = sb.server_info["pid"]
        cases = [*hostile.CASES[:20], *hostile_judge.CASES, *containment.CASES]
        run_cases(sb, cases)
        sb.run_many([make_script_request(_litter(tag), cases=(("", "ok"),))] * 4)
    assert _sandbox_processes() == []
    assert not glob.glob(f"/sys/fs/cgroup/*/coderl-{server}") + glob.glob(f"/sys/fs/cgroup/coderl-{server}")
    mounts = open("/proc/self/mountinfo").read()
    assert not [name for name in ("coderl-sandbox", "coderl-private", "coderl-mask", "coderl-work") if name in mounts]
    # A temp dir of another sandbox running on this machine (another test run) is gone when it closes.
    deadline = time.monotonic() + 60
    while (left := set(glob.glob("/tmp/coderl-sandbox-*")) - temp_before) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not left
    litter = [p for d in ("/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/", "/tmp/..")
              for p in glob.glob(os.path.join(d, f"coderl-litter-{tag}"))]
    # `full`: private /tmp & co. and IPC namespaces; `uid`: the host's, where the slot uid's leftovers are removed
    assert litter == [] and str(0x1eaf) not in [row.split()[0] for row in _ipc()["shm"].splitlines()[1:]]
    if level == "full":
        assert _ipc() == ipc_before


def test_task_files_named_by_the_user_are_hidden_even_inside_site_packages(tmp_path):
    # A stdio task file inside the venv's own site-packages (a directory the view binds): `coderl check
    # --tasks PATH` hides it (and the completions file), so a program that reads its answers fails at
    # `full`; a sandbox told nothing shows the file, which is what makes the first check mean something.
    import json
    import sysconfig

    from coderl.eval.check import CheckConfig, run_check
    from coderl.sandbox.config import SandboxConfig

    site = sysconfig.get_paths()["purelib"]
    holder = tempfile.mkdtemp(prefix="coderl-hidden-tasks-", dir=site)  # a dash: never importable
    try:
        tasks = os.path.join(holder, "tasks.jsonl")
        answer = f"answer-{uuid.uuid4().hex}"
        with open(tasks, "w") as f:
            f.write(json.dumps({"problem_id": "hidden/0", "question": "Print the answer.",
                                "input_output": {"inputs": [""], "outputs": [answer + "\n"]}}) + "\n")
        os.chmod(holder, 0o755)
        os.chmod(tasks, 0o644)
        steal = f"import json\nprint(json.loads(open({tasks!r}).readline())['input_output']['outputs'][0], end='')\n"
        try:
            with Sandbox(workers=1, isolation="full") as sb:
                assert sb.run(make_script_request(steal, cases=(("", answer + "\n"),))).passed
        except SandboxUnavailable:
            pytest.skip("isolation 'full' is not available here")
        completions = tmp_path / "completions.jsonl"
        completions.write_text(json.dumps({"task_id": "hidden/0", "completion": steal}) + "\n")
        cfg = CheckConfig(tasks=tasks, completions=str(completions), quiet=True,
                          sandbox=SandboxConfig(workers=1, isolation="full"))
        summary = run_check(cfg)
        assert summary["passed"] == 0 and summary["statuses"] == {"runtime_error": 1}, summary  # read ""
        with Sandbox(workers=1, isolation="full", hide=[tasks]) as sb:
            peek = f"import os\nprint(os.path.getsize({tasks!r}), end='')\n"
            assert sb.run(make_script_request(peek, cases=(("", "0"),))).passed  # an empty file over it
    finally:
        shutil.rmtree(holder, ignore_errors=True)


_ADD_KEY = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
nr = {{"x86_64": (248, 250), "aarch64": (217, 219)}}[os.uname().machine]
secret = b"an answer for the next program"
kid = libc.syscall(nr[0], b"user", b"{name}", secret, len(secret), -4)  # add_key to the user keyring
err = ctypes.get_errno()
if kid > 0:
    libc.syscall(nr[1], 5, kid, 0x3f3f3f3f)  # KEYCTL_SETPERM: anyone may see and read it
print(kid, err, libc.syscall(nr[1], 0, -4, 0))  # KEYCTL_GET_KEYRING_ID of the user keyring
"""
_FIND_KEY = "print(sum('{name}' in line for line in open('/proc/keys')))\n"


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="no keyring filter on this arch")
@pytest.mark.parametrize("level", ["full", "uid"])
def test_a_program_cannot_add_a_kernel_key(level):
    # Keyrings belong to the uid, outside every namespace: a key added by one program would be read by
    # the next one of its slot (a later server too).  add_key and keyctl fail with EPERM.
    name = f"coderl-test-{uuid.uuid4().hex[:12]}"
    try:
        sb = Sandbox(workers=1, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    with sb:
        add = sb.run(make_script_request(_ADD_KEY.format(name=name), cases=(("", "-1 1 -1"),)))
        find = sb.run(make_script_request(_FIND_KEY.format(name=name), cases=(("", "0"),)))
    assert add.passed, (add.status, add.stdout, add.stderr[-500:])
    assert find.passed, (find.status, find.stdout, find.stderr[-500:])
    assert name not in open("/proc/keys").read()


def test_the_work_dir_is_a_limited_tmpfs_of_its_own():
    # At `full` /sandbox is the slot's own tmpfs, sized like the program's /tmp (its memory limit, at most
    # 256 MiB) and inode-limited: a program fills its own, never the server's; the next one finds it empty.
    fill = ("import errno, os\nst = os.statvfs('.')\nprint(st.f_blocks * st.f_frsize >> 20, st.f_files)\n"
            "mib = 0\ntry:\n    for i in range(100):\n        with open(f'big{i}', 'wb') as f:\n"
            "            for _ in range(8):\n                f.write(b'x' * (1 << 20))\n                mib += 1\n"
            "except OSError as e:\n    print(errno.errorcode[e.errno], 250 <= mib <= 256)\n"
            "n = 0\ntry:\n    while True:\n        os.mkdir(f'd{n}')\n        n += 1\n"
            "except OSError as e:\n    print(errno.errorcode[e.errno], 65000 < n < 65536)\n")
    listing = ("import os\nst = os.statvfs('.')\n"
               "print(sorted(os.listdir('.')), (st.f_blocks - st.f_bfree) * st.f_frsize < 1 << 20)\n")
    try:
        sb = Sandbox(workers=1, isolation="full", limits=Limits(memory_bytes=512 << 20))
    except SandboxUnavailable:
        pytest.skip("isolation 'full' is not available here")
    with sb:
        r = sb.run(make_script_request(fill, cases=(("", "256 65536\nENOSPC True\nENOSPC True"),),
                                       memory_bytes=512 << 20, cpu_seconds=10))
        after = sb.run(make_script_request(listing, cases=(("", "['main.py'] True"),)))
    assert r.passed, (r.status, r.stdout, r.stderr[-500:])
    assert after.passed, (after.status, after.stdout)


def test_the_keyring_filter_per_architecture():
    # Every syscall number the table names jumps to the EPERM return; an unknown architecture gets no filter.
    import struct

    from coderl.sandbox.server.contain.linux import KEYRING_SYSCALLS, keyring_filter

    assert keyring_filter("riscv64") is None
    for machine, table in KEYRING_SYSCALLS.items():
        code = keyring_filter(machine)
        prog = [struct.unpack("HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
        assert prog[-1] == (0x06, 0, 0, 0x00050001)  # RET ERRNO(EPERM)
        denied = {k for i, (op, jt, _, k) in enumerate(prog) if op == 0x15 and i + 1 + jt == len(prog) - 1}
        assert denied == {nr for nrs in table.values() for nr in nrs}, machine


def _ppid(pid):
    try:
        return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
    except OSError:
        return None


def _slot_cgroup_processes(server):
    """Processes still in the slot cgroups of server `server` (None: it has no pids cgroup here), but the
    slots' zygotes (children of the server), which live there to fork the slots' programs into them."""
    files = (glob.glob(f"/sys/fs/cgroup/pids/coderl-{server}/slot*/cgroup.procs")
             or glob.glob(f"/sys/fs/cgroup/coderl-{server}/slot*/cgroup.procs"))
    if not files:
        return None
    pids = [int(pid) for f in files for pid in open(f).read().split()]
    zygotes = {pid for pid in pids if _ppid(pid) == server}
    return [pid for pid in pids if pid not in zygotes]


def _uid(pid):
    try:
        return os.stat(f"/proc/{pid}").st_uid
    except FileNotFoundError:
        return None


@pytest.mark.parametrize("level", ["full", pytest.param("uid", marks=pytest.mark.slow)])  # uid: make test-slow
def test_nothing_is_left_behind_after_each_run(level):
    # The same checks run by run: once a program's result is in, nothing of it is left in its slot's
    # cgroup and (at `full`) no SysV IPC object of it exists; the next program starts from nothing.
    try:
        sb = Sandbox(workers=1, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    cases = [c for c in containment.CASES if c.tag.startswith("D.")] + [c for c in hostile.CASES if c.tag == "B1.copy_sibling"]
    with sb:
        server = sb.server_info["pid"]
        if _slot_cgroup_processes(server) is None:
            pytest.skip("no pids cgroup for the slots on this machine")
        ipc_before = _ipc()
        for case in cases:
            run_cases(sb, [case])
            assert _slot_cgroup_processes(server) == [], f"{case.name}: processes left in the slot"
            if level == "full":
                assert _ipc() == ipc_before, f"{case.name}: a SysV IPC object outlived its program"
