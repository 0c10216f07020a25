"""No counter a program reads of its own file system reflects the slot's earlier programs (issue 73, item 2): at
`full` every program gets a tmpfs of its own, and the server waits out the kernel's RCU grace period before mounting
it (`linux.settle`), so the mount ids, device numbers, inode numbers and free counts a program reads -- in
/proc/self/mountinfo, statx's mount id, stat and statfs of every place -- are those the slot's first program read,
whatever the programs between did (files by the hundred, processes left running, pipes) and however fast the next
started.  Before the settle, whether the last program's mount namespace was freed yet showed in the next program's
mount ids and /proc device number; before the tmpfs per program, every file an earlier program made showed in the
inode numbers.  What stays out (machine-wide counters no namespace separates; docs/sandbox.md "What a program can
count"): the 64-bit unique mount id, namespace ids and inode numbers, pipe and socket inode numbers, /proc's link
count (the machine's number of processes).

Mount ids and device numbers are the lowest free ones machine-wide, so a mount anywhere else on the machine (another
sandbox starting) moves them too: a pair of readings is compared only where the machine made no mount but the
sandbox's own between them (the unique mount id, a counter of every mount, moved by the programs' own count alone;
where the kernel has none, before Linux 6.8, every pair); and the sequence is tried again where one differed, since
the machine's unmounts free ids too and no counter shows them: two tries in a row with a difference fail (without
the settle, one of 13 readings differed in 8 tries of 8 here)."""

import json

import pytest

from .helpers import make_script_request, sandbox_at

READ = r'''
import ctypes, json, os, struct
libc = ctypes.CDLL(None, use_errno=True)
STATX = {"x86_64": 332, "aarch64": 291}.get(os.uname().machine)
def mount_id(path, mask):  # statx: STATX_MNT_ID (what /proc/self/mountinfo shows) or STATX_MNT_ID_UNIQUE
    if STATX is None:
        return None
    buf = ctypes.create_string_buffer(256)
    assert libc.syscall(STATX, -100, path.encode(), 0, mask, buf) == 0, ctypes.get_errno()
    got, = struct.unpack_from("<I", buf.raw, 0)
    return struct.unpack_from("<Q", buf.raw, 0x90)[0] if got & mask else None
seen = {"mountinfo": open("/proc/self/mountinfo").read(), "cgroup": open("/proc/self/cgroup").read()}
unique = []
for place in ("/", "/sandbox", "/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/proc", "/usr"):
    st, fs = os.stat(place), os.statvfs(place)
    seen[place] = {"stat": [getattr(st, k) for k in ("st_dev", "st_ino", "st_nlink", "st_size", "st_blocks")],
                   "statvfs": [getattr(fs, k) for k in dir(fs) if k.startswith("f_") and k != "f_fsid"],
                   "mount_id": mount_id(place, 0x1000)}
    unique.append(mount_id(place, 0x4000))
seen["/proc"]["stat"][2] = None  # /proc's link count: the machine's number of processes
seen["/usr"]["statvfs"] = None  # the host's disk: its free blocks are the machine's
print(json.dumps({"seen": seen, "mounts": None if None in unique else max(unique)}, sort_keys=True))
'''

# One of each thing a program can do to the places it writes and to the machine's allocations through its slot.
DIRTY = r'''
import os, subprocess
for d in ("/sandbox", "/tmp", "/var/tmp", "/dev/shm", "/run/lock"):
    for i in range(200):
        open(f"{d}/f{i}", "w").write("x" * i)
    os.makedirs(f"{d}/a/b/c", exist_ok=True)
    os.mkfifo(f"{d}/fifo")
    os.symlink("/etc/passwd", f"{d}/link")
pipes = [os.pipe() for _ in range(100)]
left = [subprocess.Popen(["sleep", "30"]) for _ in range(3)]  # killed with its PID namespace
print("dirty")
'''


def _quiet_pairs(readings):
    """(earlier, later, programs between) of consecutive readings between which the machine made no mount but the
    sandbox's own: its count is the same for every program, the least count per program seen; all where unknown."""
    pairs = [(a, b, n) for (a, _), (b, n) in zip(readings, readings[1:])]
    if any(r["mounts"] is None for r, _ in readings):
        return pairs
    per_program = min((b["mounts"] - a["mounts"]) / n for a, b, n in pairs)
    return [(a, b, n) for a, b, n in pairs if b["mounts"] - a["mounts"] == per_program * n]


def test_what_a_program_counts_of_its_file_system_is_a_fresh_slots():
    with sandbox_at("full") as sandbox:
        def read():
            result = sandbox.run(make_script_request(READ))
            assert result.stdout.strip(), (result.status, result.stderr[-500:])
            return json.loads(result.stdout)

        differ = None
        for _ in range(2):  # again where the machine moved the allocators (another sandbox's mounts, or unmounts)
            readings, between = [(read(), 0)], 0
            for program in (DIRTY, None, None) * 6:
                between += 1
                if program is None:
                    readings.append((read(), between))
                    between = 0
                else:
                    assert sandbox.run(make_script_request(program)).stdout.strip() == "dirty"
            quiet = _quiet_pairs(readings)
            differ = next(({k: (a["seen"][k], b["seen"][k]) for k in a["seen"] if a["seen"][k] != b["seen"][k]}
                           for a, b, _ in quiet if a["seen"] != b["seen"]), None)
            if differ is None and len(quiet) >= 3:
                return
        assert differ is None, str(differ)[:2000]  # every try: not the machine, the slot's own history
        pytest.skip(f"the machine mounted something between most readings ({len(quiet)} quiet pairs)")
