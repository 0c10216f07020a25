"""Recreate, never wipe: every directory a program may write (its work dir; at `full` its private /tmp,
/var/tmp, /dev/shm and /run/lock, on a tmpfs mounted anew for each program) and the slot's cgroups are made anew
for each program (`Slots.recreate`), so nothing a program sets on such a directory itself (mode, owner, group,
times, xattrs, ACLs, sticky and set-id bits), nor anything in it, nor the file system's own state (inode numbers,
free blocks and inodes), nor a counter of the slot's cgroups (CPU, peak memory, process events), reaches the slot's
next program.  A setter sets every attribute it can on every place it can write; the
slot's next program then sees each place exactly as the first program of a fresh slot does, and their times
are the recreation's, not the setter's."""

import glob
import json
import os
import time

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable
from coderl.sandbox.server.contain import linux

from .helpers import OWN_ENTRIES, make_script_request, sandbox_at

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="slot uids need root")

PLACES = {"full": ("/sandbox", "/tmp", "/var/tmp", "/dev/shm", "/run/lock"), "uid": (".",)}

# A POSIX ACL as the kernel's xattr holds it: version 2, then (tag, perm, id) entries, a named user among them.
ACL = ("(2).to_bytes(4, 'little') + b''.join(t.to_bytes(2, 'little') + p.to_bytes(2, 'little') + i.to_bytes(4, "
       "'little') for t, p, i in ((1, 7, 2**32 - 1), (2, 7, 4242), (4, 7, 2**32 - 1), (16, 7, 2**32 - 1), "
       "(32, 7, 2**32 - 1)))")

SET_EVERYTHING = """
import os
acl = ACL
done = []
def attempt(what, fn, *args):
    try:
        fn(*args)
        done.append(what)
    except OSError:
        pass
for d in PLACES:
    attempt("file", lambda: open(os.path.join(d, "left.txt"), "w").write("x"))
    attempt("dir", os.makedirs, os.path.join(d, "left-dir", "inner"))
    for name, value in (("user.coderl", b"left"), ("system.posix_acl_access", acl), ("system.posix_acl_default", acl),
                        ("trusted.coderl", b"left"), ("security.coderl", b"left")):
        attempt(name, os.setxattr, d, name, value)
    attempt("chgrp", os.chown, d, -1, os.getgid())
    for mode in (0o7777, 0o3777, 0o1777, 0o777, 0o705, 0o500):
        attempt(oct(mode), os.chmod, d, mode)
    attempt("times", os.utime, d, (1_000_000, 4_000_000_000))
print("ok", sorted(set(done)))
""".replace("PLACES", "%(places)r").replace("ACL", ACL)

# At `full` each program has a tmpfs of its own, so everything stat and statfs show of its places is the same for
# every program (inode numbers, blocks, the file system's free blocks and inodes); at `uid` its work dir is made
# anew on the host's file system, whose inode numbers and free space are the host's (`FRESH_FILE_SYSTEM`).
FRESH_FILE_SYSTEM = {"full": True, "uid": False}
SHOW = OWN_ENTRIES + """
import json, os, time
since = %(since)r
now = time.time() + 1
view = {}
for d in %(places)r:
    st = os.stat(d)
    xattrs = {name: os.getxattr(d, name).hex() for name in sorted(os.listxattr(d))}
    view[d] = {"mode": oct(st.st_mode), "uid": st.st_uid, "gid": st.st_gid, "nlink": st.st_nlink, "size": st.st_size,
               "xattrs": xattrs, "entries": sorted(n for n in own_entries(d) if n != "main.py"),
               "times": all(since <= t <= now for t in (st.st_atime, st.st_mtime, st.st_ctime))}
    if %(file_system)r:
        fs = os.statvfs(d)
        view[d]["stat"] = {k: getattr(st, k) for k in dir(st)  # st_dev: drawn machine-wide (test_counters.py)
                           if k.startswith("st_") and "time" not in k and k != "st_dev"}
        view[d]["statvfs"] = {k: getattr(fs, k) for k in dir(fs) if k.startswith("f_") and k != "f_fsid"}
        view[d]["fsid"] = fs.f_fsid  # a random id each new tmpfs draws: compared apart
print(json.dumps(view, sort_keys=True))
"""


def _show(sandbox, places, since, level):
    result = sandbox.run(make_script_request(SHOW % {"places": places, "since": since,
                                                     "file_system": FRESH_FILE_SYSTEM[level]}, cases=(("", ""),)))
    assert result.stdout.strip(), (result.status, result.stderr[-500:])
    view = json.loads(result.stdout)
    fsids = {v.pop("fsid") for v in view.values() if "fsid" in v}
    assert len(fsids) <= 1, fsids  # one file system holds every place
    return {"view": view, "accounting": _accounting(sandbox)}, fsids


def _accounting(sandbox):
    """Every readable file of the slot's cgroups (its CPU, memory and process counters), read between programs."""
    pid = sandbox.server_info["pid"]
    files = {}
    for group in glob.glob(f"/sys/fs/cgroup/*/coderl-{pid}/slot0") + glob.glob(f"/sys/fs/cgroup/coderl-{pid}/slot0"):
        for name in sorted(os.listdir(group)):
            try:
                with open(os.path.join(group, name)) as f:
                    files[os.path.join(group, name)] = f.read()
            except OSError:  # write-only (cgroup.event_control) or not supported here
                pass
    return files


@pytest.mark.parametrize("level", sorted(PLACES))
def test_nothing_a_program_sets_on_its_directories_reaches_the_next(level):
    places = PLACES[level]
    since = time.time() - 1
    try:
        sandbox = Sandbox(workers=1, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    with sandbox:
        fresh, fsids = _show(sandbox, places, since, level)
        assert all(v["times"] for v in fresh["view"].values()), fresh
        assert not sandbox.server_info["cgroups"] or fresh["accounting"], "no cgroup file of the slot was read"
        for _ in range(2):  # and again, on a slot whose directories were already made anew once
            since = time.time() - 1
            setter = sandbox.run(make_script_request(SET_EVERYTHING % {"places": places}, cases=(("", ""),)))
            assert setter.stdout.startswith("ok"), (setter.status, setter.stderr[-500:])
            for attribute in ("user.coderl", "system.posix_acl_access", "0o1777", "times"):  # it did set them
                assert attribute in setter.stdout, setter.stdout
            now, now_fsids = _show(sandbox, places, since, level)
            assert now == fresh
            assert not (fsids & now_fsids), "the places are on the last program's file system"
            fsids = now_fsids


ORDINARY = """
import os, tempfile
with open("notes.txt", "w") as f:
    f.write("kept for this run")
os.chmod("notes.txt", 0o600)
os.makedirs("out/deep", exist_ok=True)
with tempfile.NamedTemporaryFile("w", delete=False) as t:
    t.write("scratch")
print(open("notes.txt").read() == "kept for this run" and open(t.name).read() == "scratch"
      and sorted(n for n in os.listdir(".") if n != "main.py") == ["notes.txt", "out"])
"""


@pytest.mark.parametrize("level", sorted(PLACES))
def test_a_program_that_writes_its_work_dir_and_tmp_passes_every_time(level):
    try:
        sandbox = Sandbox(workers=1, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    with sandbox:
        for _ in range(3):
            result = sandbox.run(make_script_request(ORDINARY, cases=(("", "True"),)))
            assert result.passed, (result.status, result.stdout[-300:], result.stderr[-500:])


# Every place a program can write, beyond the directories' own attributes above: its work dir's entries and, at
# `uid`, the host's world-writable temp directories (and world-writable directories under them: `SHARED`, made by the
# test) and the host's System V and POSIX IPC.  A program leaves one of every kind of entry and IPC object there;
# the slot's next program must find none of its uid's, as a fresh slot's first program finds none.
SHARED = f"/tmp/coderl-test-shared-{os.getpid()}"
LEAVE_EVERYTHING = """
import ctypes, os, socket
rt = ctypes.CDLL("librt.so.1", use_errno=True)
open("own.txt", "w").close()
done = []
def attempt(what, fn):
    try:
        if fn() is not False:
            done.append(what)
    except OSError:
        pass
for d in (".", "/tmp", "/var/tmp", "/dev/shm", "/run/lock", SHARED):
    at = lambda name: os.path.join(d, name)
    attempt("file", lambda: open(at("left.txt"), "w").write("x"))
    attempt("dir", lambda: os.makedirs(at("left-dir/inner")))
    attempt("fifo", lambda: os.mkfifo(at("left.fifo")))
    attempt("symlink", lambda: os.symlink("/etc/passwd", at("left.link")))
    attempt("hardlink", lambda: os.link("own.txt", at("left.hard")))
    attempt("socket", lambda: socket.socket(socket.AF_UNIX).bind(at("left.sock")))
    attempt("shared", lambda: d == SHARED and open(at("left.txt")).read() == "x")
IPC_CREAT = 0o1000
attempt("shm", lambda: rt.shmget(0, 4096, IPC_CREAT | 0o600) >= 0)
attempt("msg", lambda: rt.msgget(0, IPC_CREAT | 0o600) >= 0)
attempt("sem", lambda: rt.semget(0, 1, IPC_CREAT | 0o600) >= 0)
attempt("mq", lambda: rt.mq_open(b"/coderl-left", os.O_CREAT | os.O_RDWR, 0o600, None) >= 0)
print("ok", sorted(set(done)))
""".replace("SHARED", repr(SHARED))

SHOW_SHARED = """
import ctypes, json, os, stat
uid = str(os.getuid())
def owned(top):
    try:
        entries = list(os.scandir(top))
    except OSError:
        return []
    found = []
    for e in entries:
        try:
            st = e.stat(follow_symlinks=False)
        except OSError:  # gone meanwhile: the host's temp directories are busy
            continue
        if str(st.st_uid) == uid:
            found.append(e.path)
        elif stat.S_ISDIR(st.st_mode) and st.st_mode & 0o002:
            found += owned(e.path)
    return found
ipc = []
for kind in ("shm", "msg", "sem"):
    head, *rows = [line.split() for line in open("/proc/sysvipc/" + kind)]
    ipc += [kind for row in rows if uid in (row[head.index("uid")], row[head.index("cuid")])]
mq = ctypes.CDLL("librt.so.1", use_errno=True).mq_open(b"/coderl-left", os.O_RDONLY) >= 0
print(json.dumps({"files": sorted(p for d in (".", "/tmp", "/var/tmp", "/dev/shm", "/run/lock") for p in owned(d)),
                  "ipc": ipc, "mq": mq}))
"""


@pytest.mark.parametrize("level", sorted(PLACES))
def test_nothing_a_program_leaves_in_shared_places_reaches_the_next(level):
    os.mkdir(SHARED, 0o1777)
    os.chmod(SHARED, 0o1777)
    try:
        with sandbox_at(level) as sandbox:
            show = lambda: json.loads(sandbox.run(make_script_request(SHOW_SHARED)).stdout)  # noqa: E731
            fresh = show()
            assert fresh == {"files": [], "ipc": [], "mq": False}, fresh
            for _ in range(2):
                setter = sandbox.run(make_script_request(LEAVE_EVERYTHING))
                assert setter.stdout.startswith("ok"), (setter.status, setter.stderr[-500:])
                for what in ("file", "dir", "fifo", "symlink", "socket", "shm", "msg", "sem"):  # it did leave them
                    assert what in setter.stdout, setter.stdout
                assert ("shared" in setter.stdout) == (level == "uid"), setter.stdout
                assert show() == fresh
    finally:
        tmp = os.open("/tmp", os.O_RDONLY | os.O_DIRECTORY)
        linux.remove_tree(tmp, os.path.basename(SHARED))
        os.close(tmp)


SCRATCH = """
import os, sys, tempfile
fd, path = tempfile.mkstemp()
os.write(fd, sys.stdin.read().encode())
os.close(fd)
print(open(path).read().upper(), os.path.dirname(path))
"""


@pytest.mark.parametrize("level", sorted(PLACES))
def test_a_program_using_the_shared_temp_dir_passes_every_time(level):
    with sandbox_at(level) as sandbox:
        for _ in range(3):
            result = sandbox.run(make_script_request(SCRATCH, cases=(("abc", "ABC /tmp"),)))
            assert result.passed, (result.status, result.stdout[-300:], result.stderr[-500:])
