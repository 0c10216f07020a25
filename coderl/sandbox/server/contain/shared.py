"""`uid` level: the host's places a sandbox uid can write, and removing what the sandbox's uids left there.
Standard library only (part of the fork server's package).

At `uid` no mount or IPC namespace makes anything private: a program (as its slot's uid) and its judge (as the
slot's judge uid) write wherever the host lets any uid write.  Those uids are this server's alone
(`lifetime.claim_uids`) and in no group, so the places are exactly the world-writable directories the uids can reach
(every ancestor searchable by others) on the host's writable file systems, and whatever the uids themselves make
under them.  `writable_places` finds those directories when the server starts (one walk of the host's file systems
that does not descend into a directory others cannot search, and goes on below the world-writable ones it finds, so
that one below a directory that is not, itself below a world-writable one, is found too: `/tmp/x/shared`; kept for
`CACHE_SECONDS` beside the uid locks, for the same boot and mount table, so a test suite's many servers walk once);
`remove_owned` removes everything the uids own there, and their System V IPC objects, between programs and at the
end.  (POSIX message queues they cannot make: RLIMIT_MSGQUEUE is 0 for them.)
"""

import ctypes
import hashlib
import json
import os
import stat
import time

from . import linux

# File systems no uid of ours can leave a file on (or that only root may write): not walked.
PSEUDO = frozenset({"proc", "sysfs", "cgroup", "cgroup2", "devpts", "mqueue", "debugfs", "tracefs", "securityfs",
                    "pstore", "bpf", "configfs", "fusectl", "binfmt_misc", "autofs", "nsfs", "efivarfs", "rpc_pipefs",
                    "nfsd", "selinuxfs", "hugetlbfs"})
TEMP_DIRS = ("/tmp", "/var/tmp", "/dev/shm", "/run/lock")  # always looked at, found by the walk or not
# The walk's result, root's alone, beside `lifetime.REGISTRY`'s uid locks (made by `claim_uids` before any slot)
CACHE = os.path.join("/run" if os.access("/run", os.W_OK) else "/tmp", "coderl-sandbox-uids", "writable-places.json")
CACHE_SECONDS = 600  # a world-writable directory another user makes meanwhile is found by the next walk

_libc = ctypes.CDLL(None, use_errno=True)


def _mounts():
    """(mount point, file system type) of every read-write mount this process sees."""
    found = []
    with open("/proc/self/mountinfo") as f:
        for line in f:
            head, _, tail = line.partition(" - ")
            fields = head.split()
            point = fields[4].encode().decode("unicode_escape")  # octal escapes (\040) of spaces and the like
            if "rw" in fields[5].split(",") and tail.split()[0] not in PSEUDO:
                found.append((point, tail.split()[0]))
    return found


def _searchable(path):
    """Whether a uid with no group of ours can reach `path`: every directory on the way searchable by others."""
    current = "/"
    for part in [p for p in path.split("/") if p]:
        try:
            if not os.stat(current).st_mode & stat.S_IXOTH:
                return False
        except OSError:
            return False
        current = os.path.join(current, part)
    return True


def writable_places(cache=CACHE):
    """Every world-writable directory a sandbox uid can reach on the host's writable file systems (not those right
    below another one: `remove_owned` walks into them), and the usual temp directories; sorted.  From `cache` when it
    was written less than CACHE_SECONDS ago for this boot and mount table, by this uid, in a directory only it
    writes."""
    mounts = _mounts()
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip()
    except OSError:
        boot = ""
    key = hashlib.sha256(json.dumps([boot, sorted(mounts)]).encode()).hexdigest()
    try:
        own = os.stat(os.path.dirname(cache))
        with open(cache) as f:
            st = os.fstat(f.fileno())
            kept = json.load(f)
        if (own.st_uid == st.st_uid == os.geteuid() and not (own.st_mode | st.st_mode) & 0o022
                and kept["key"] == key and 0 <= time.time() - kept["at"] < CACHE_SECONDS):
            return kept["places"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    places = _walk(mounts)
    try:
        tmp = f"{cache}.{os.getpid()}"
        with open(tmp, "w") as f:
            json.dump({"key": key, "at": time.time(), "places": places}, f)
        os.replace(tmp, cache)
    except OSError:
        pass
    return places


def _walk(mounts):
    """`writable_places` without the cache."""
    places = {d for d in TEMP_DIRS if os.path.isdir(d)}
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    for point, _ in mounts:
        if not _searchable(point):
            continue
        try:
            top = os.stat(point)
        except OSError:
            continue
        stack = [(point, False)]  # (directory, whether its parent is world-writable)
        while stack:
            path, in_place = stack.pop()
            try:
                st = os.stat(path, follow_symlinks=False)
            except OSError:
                continue
            if st.st_dev != top.st_dev or not stat.S_ISDIR(st.st_mode):
                continue  # another mount (walked on its own) or a link
            writable = bool(st.st_mode & stat.S_IWOTH)
            if writable and not in_place:
                places.add(path)  # (right below a world-writable one, `remove_owned` reaches it from there)
            if not st.st_mode & stat.S_IXOTH:
                continue
            try:
                fd = os.open(path, flags)
            except OSError:
                continue
            try:
                with os.scandir(fd) as entries:
                    stack.extend((os.path.join(path, e.name), writable) for e in entries
                                 if e.is_dir(follow_symlinks=False))
            except OSError:
                pass
            finally:
                os.close(fd)
    return sorted(places)


def remove_owned(uids, places):
    """Remove everything `uids` own in `places` (`writable_places`) and the world-writable directories under them
    (through directory fds, never following a link), and their System V IPC objects.  None of the uids' processes
    may be left (the slot's program and judge have ended), so all they own there is leftovers."""
    uids = {int(u) for u in uids}
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    stack = []
    for top in places:
        try:
            stack.append(os.open(top, flags))
        except OSError:
            pass
    while stack:
        fd = stack.pop()
        try:
            with os.scandir(fd) as entries:
                for entry in entries:
                    try:  # the host's temp directories are busy: an entry may be gone by now
                        st = entry.stat(follow_symlinks=False)
                        if st.st_uid in uids:
                            linux.remove_tree(fd, entry.name)
                        elif stat.S_ISDIR(st.st_mode) and st.st_mode & 0o002:
                            stack.append(os.open(entry.name, flags, dir_fd=fd))
                    except OSError:
                        pass
        finally:
            os.close(fd)
    names = {str(u) for u in uids}
    for kind, remove in (("shm", _libc.shmctl), ("msg", _libc.msgctl), ("sem", _libc.semctl)):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                head, *rows = [line.split() for line in f]
        except OSError:
            continue
        for row in rows:  # shmctl(id, IPC_RMID, NULL), msgctl(id, IPC_RMID, NULL), semctl(id, 0, IPC_RMID): (id, 0, 0)
            if names & {row[head.index("uid")], row[head.index("cuid")]}:
                remove(int(row[1]), 0, 0)
