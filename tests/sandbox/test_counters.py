"""No counter a program reads of its own file system reflects the slot's earlier programs (issue 73, item 2): at
`full` every program gets a tmpfs of its own, so the inode numbers and free counts a program reads -- stat and statfs
of every place -- and the mount table it reads (/proc/self/mountinfo: what is mounted where, from what, with which
options) are those the slot's first program read, whatever the programs between did (files by the hundred,
processes left running, pipes).  Before the tmpfs per program, every file an earlier program made showed in the
inode numbers and free counts.

What is not compared: the numbers the kernel draws machine-wide for each new mount and in-memory file system (mount
ids, the tmpfs's and /proc's device numbers: the lowest free ones, freed an RCU grace period after a torn-down
namespace, so they say whether the last program's teardown had finished, and move with every mount anywhere on the
machine), with the other machine-wide counters no namespace separates (docs/sandbox.md "What a program can
count").  In mountinfo each mount's id and parent id are read as its place in the table and its parent's."""

import json

from .helpers import MOUNT_TABLE, make_script_request, sandbox_at

READ = MOUNT_TABLE + r'''
import json, os
seen = {"mountinfo": mount_table(open("/proc/self/mountinfo").read().splitlines()),
        "cgroup": open("/proc/self/cgroup").read()}
for place in ("/", "/sandbox", "/tmp", "/var/tmp", "/dev/shm", "/run/lock", "/proc", "/usr"):
    st, fs = os.stat(place), os.statvfs(place)
    seen[place] = {"stat": [getattr(st, k) for k in ("st_ino", "st_nlink", "st_size", "st_blocks")],
                   "statvfs": [getattr(fs, k) for k in dir(fs) if k.startswith("f_") and k != "f_fsid"]}
seen["/proc"]["stat"][1] = None  # /proc's link count: the machine's number of processes
seen["/usr"]["statvfs"] = None  # the host's disk: its free blocks are the machine's
print(json.dumps(seen, sort_keys=True))
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


def test_what_a_program_counts_of_its_file_system_is_a_fresh_slots():
    with sandbox_at("full") as sandbox:
        def read():
            result = sandbox.run(make_script_request(READ))
            assert result.stdout.strip(), (result.status, result.stderr[-500:])
            return json.loads(result.stdout)

        first = read()
        assert len(first["mountinfo"]) > 10 and first["/tmp"]["stat"][0] > 0, first
        for _ in range(4):
            assert sandbox.run(make_script_request(DIRTY)).stdout.strip() == "dirty"
            now = read()
            differ = {k: (first[k], now[k]) for k in first if first[k] != now[k]}
            assert not differ, str(differ)[:2000]
