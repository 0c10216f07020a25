"""Recreate, never wipe: every directory a program may write (its work dir; at `full` its private /tmp,
/var/tmp, /dev/shm and /run/lock) is made anew for each program (`Slots.recreate`), so nothing a program sets
on such a directory itself (mode, owner, group, times, xattrs, ACLs, sticky and set-id bits), nor anything in
it, reaches the slot's next program.  A setter sets every attribute it can on every place it can write; the
slot's next program then sees each place exactly as the first program of a fresh slot does, and their times
are the recreation's, not the setter's."""

import json
import os
import time

import pytest

from coderl.sandbox.client import Sandbox, SandboxUnavailable

from .helpers import OWN_ENTRIES, make_script_request

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
print(json.dumps(view, sort_keys=True))
"""


def _show(sandbox, places, since):
    result = sandbox.run(make_script_request(SHOW % {"places": places, "since": since}, cases=(("", ""),)))
    assert result.stdout.strip(), (result.status, result.stderr[-500:])
    return json.loads(result.stdout)


@pytest.mark.parametrize("level", sorted(PLACES))
def test_nothing_a_program_sets_on_its_directories_reaches_the_next(level):
    places = PLACES[level]
    since = time.time() - 1
    try:
        sandbox = Sandbox(workers=1, isolation=level)
    except SandboxUnavailable:
        pytest.skip(f"isolation {level!r} is not available here")
    with sandbox:
        fresh = _show(sandbox, places, since)
        assert all(v["times"] for v in fresh.values()), fresh
        for _ in range(2):  # and again, on a slot whose directories were already made anew once
            since = time.time() - 1
            setter = sandbox.run(make_script_request(SET_EVERYTHING % {"places": places}, cases=(("", ""),)))
            assert setter.stdout.startswith("ok"), (setter.status, setter.stderr[-500:])
            for attribute in ("user.coderl", "system.posix_acl_access", "0o1777", "times"):  # it did set them
                assert attribute in setter.stdout, setter.stdout
            assert _show(sandbox, places, since) == fresh


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
