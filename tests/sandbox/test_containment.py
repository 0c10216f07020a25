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


def _run_filter(code, arch, nr, args=(0,) * 6):
    """What the classic-BPF program `code` returns for a call (`seccomp_data`: arch, nr, args' low words)."""
    import struct

    prog = [struct.unpack("HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
    data = {0: nr, 4: arch, **{16 + 8 * i: a for i, a in enumerate(args)}}
    pc, acc = 0, 0
    while True:
        op, jt, jf, k = prog[pc]
        if op == 0x20:  # LD W ABS
            acc = data[k]
        elif op == 0x06:  # RET K
            return k
        elif op in (0x15, 0x45):  # JEQ K, JSET K
            pc += jt if (acc == k if op == 0x15 else acc & k) else jf
        else:
            raise AssertionError(f"unknown opcode {op:#x}")
        pc += 1


def test_the_keyring_and_cache_filter_per_architecture():
    # Every call the tables name returns EPERM in its ABI, madvise only with MADV_COLD or MADV_PAGEOUT and preadv2
    # only with RWF_NOWAIT (issue 99); every other call, and every ABI the table does not name, is allowed; an unknown
    # architecture gets no filter.
    from coderl.sandbox.server.contain import linux

    allow, eperm = 0x7FFF0000, 0x00050001
    assert linux.keyring_filter("riscv64") is None
    for machine, table in linux.KEYRING_SYSCALLS.items():
        code = linux.keyring_filter(machine)
        for arch, keyrings in table.items():
            denied = set(keyrings) | set(linux.CACHE_SYSCALLS[machine][arch])
            for nr in denied:
                assert _run_filter(code, arch, nr) == eperm, (machine, arch, nr)
            for nr in set(range(0, 600)) - denied - set(linux.MADVISE[machine][arch]) - set(linux.PREADV2[machine][arch]):
                assert _run_filter(code, arch, nr) == allow, (machine, arch, nr)
            for nr in linux.MADVISE[machine][arch]:
                for advice, want in ((20, eperm), (21, eperm), (4, allow), (3, allow), (0, allow), (8, allow)):
                    assert _run_filter(code, arch, nr, (0, 0, advice, 0, 0, 0)) == want, (machine, nr, advice)
            for nr in linux.PREADV2[machine][arch]:
                for flags, want in ((8, eperm), (8 | 2, eperm), (0, allow), (1, allow), (2, allow), (16, allow)):
                    assert _run_filter(code, arch, nr, (0, 0, 0, 0, 0, flags)) == want, (machine, nr, flags)
        assert _run_filter(code, 0xC00000F3, 27) == allow  # an ABI the table does not name (riscv64's)


_CACHE_CALLS = """import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
L = ctypes.c_long
NR = {"x86_64": dict(mincore=27, madvise=28, fadvise=221, io_setup=206, uring=425, pmadvise=440, cachestat=451,
                     preadv2=327),
      "aarch64": dict(mincore=232, madvise=233, fadvise=223, io_setup=0, uring=425, pmadvise=440, cachestat=451,
                      preadv2=286)}[os.uname().machine]
fd = os.open(os.__file__, os.O_RDONLY)  # a file of the view, shared with every later program
size = os.fstat(fd).st_size
addr = libc.mmap(None, L(size), 1, 2, fd, L(0))  # PROT_READ, MAP_PRIVATE
buf = ctypes.create_string_buffer(4096)
iov = (L * 2)(ctypes.addressof(buf), 4096)
vec = ctypes.create_string_buffer(size // 4096 + 1)
out = ctypes.create_string_buffer(256)
rng = (L * 2)(0, 0)

def call(name, *args):
    r = libc.syscall(L(NR[name]), *[L(a) for a in args])
    return ctypes.get_errno() if r < 0 else 0

got = [call("mincore", addr, size, ctypes.addressof(vec)),
       call("cachestat", fd, ctypes.addressof(rng), ctypes.addressof(out), 0),
       call("fadvise", fd, 0, 0, 4),  # POSIX_FADV_DONTNEED
       call("madvise", addr, size, 21), call("madvise", addr, size, 20),  # MADV_PAGEOUT, MADV_COLD
       call("pmadvise", -1, ctypes.addressof(iov), 1, 21, 0),
       call("io_setup", 1, ctypes.addressof(out)), call("uring", 1, ctypes.addressof(out)),
       call("preadv2", fd, ctypes.addressof(iov), 1, 0, 0, 8),  # RWF_NOWAIT
       call("madvise", addr, size, 3), call("preadv2", fd, ctypes.addressof(iov), 1, 0, 0, 0)]  # WILLNEED; a plain read
print(*got)
"""


@pytest.mark.skipif(os.uname().machine not in ("x86_64", "aarch64"), reason="no filter on this arch")
@pytest.mark.parametrize("level", ["full", "uid"])
def test_a_program_cannot_read_or_clear_the_page_caches_residency(level):
    # Issue 99: the page cache of the view's files outlives a program; mincore and cachestat read which pages are
    # resident, fadvise(DONTNEED) and madvise(PAGEOUT) clear them, and a read that fails rather than waits (RWF_NOWAIT,
    # through preadv2, AIO or io_uring) reads them: each fails with EPERM (before, each worked: 0 or another errno).
    # MADV_WILLNEED and a plain preadv2 still work.
    try:
        sb = Sandbox(workers=1, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    with sb:
        result = sb.run(make_script_request(_CACHE_CALLS, cases=(("", " ".join(["1"] * 9 + ["0", "0"])),)))
    assert result.passed, (result.status, result.stdout, result.stderr[-500:])


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
