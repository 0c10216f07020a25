"""The Linux calls the isolation levels and the view make, through ctypes.  Standard library only (loaded by
path by the fork server).

    unshare, setns, mount, umount   namespaces and the file-system view
    remove_tree             wiping what a program left in its directories, whatever it left
    deny_keyrings           a seccomp filter that makes add_key, request_key and keyctl fail with EPERM, and the
                            calls that read or clear the page cache's residency without timing (below)
    become                  drop root to a uid, with the file-system uid and gid of another (a judge's file access)

Kernel keyrings are kept per uid by the kernel, outside every namespace the sandbox creates (mount, PID,
IPC, network): a key one program adds to its user keyring is there for the next program of the same slot
uid, in a later server too, and with open permissions for every other uid.  `deny_keyrings` closes that
channel for the program and everything it starts (a seccomp filter survives fork and execve, and
PR_SET_NO_NEW_PRIVS, which it needs, also takes set-uid binaries' powers away).  The filter knows the
syscall numbers of x86_64 (with its i386 and x32 ABIs) and aarch64 (with its arm32 compat ABI); on any
other architecture it is not installed (`KEYRING_SYSCALLS`, docs/sandbox.md).

The page cache of the files a program's view shares with later programs is a channel too (issue 99): whether a
page is resident is state that outlives the program, across runs, slots and servers.  The same filter denies
(EPERM) the calls that read residency without timing (`mincore`; `cachestat`; a read that fails rather than waits
for a page not in the cache: `preadv2` with RWF_NOWAIT, Linux AIO (`io_setup`) and io_uring (`io_uring_setup`,
`_enter`, `_register`), which take the same flag) and those that clear it (`fadvise64`/`fadvise64_64`, whose
DONTNEED drops clean pages; `madvise` with MADV_COLD or MADV_PAGEOUT, `process_madvise`).  `readahead` and
MADV_WILLNEED stay: they only fill the cache, as reading the file does.  What timing alone still carries is
measured in docs/sandbox.md ("Not closed").
"""

import ctypes
import errno
import os
import struct

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 2, 4, 8, 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_SECCOMP, PR_SET_NO_NEW_PRIVS, SECCOMP_MODE_FILTER = 22, 38, 2

# {machine: {audit arch: (add_key, request_key, keyctl) in that ABI's numbering}}
_X32 = 0x40000000  # x32 syscalls: the x86_64 arch with this bit set in the number
KEYRING_SYSCALLS = {
    "x86_64": {0xC000003E: (248, 249, 250, _X32 | 248, _X32 | 249, _X32 | 250),  # AUDIT_ARCH_X86_64
               0x40000003: (286, 287, 288)},  # AUDIT_ARCH_I386 (int 0x80)
    "aarch64": {0xC00000B7: (217, 218, 219),  # AUDIT_ARCH_AARCH64
                0x40000028: (309, 310, 311)},  # AUDIT_ARCH_ARM (compat)
}
# {machine: {audit arch: the calls denied whatever their arguments}}: mincore, fadvise64 (and i386's fadvise64_64;
# arm's arm_fadvise64_64), io_setup, io_uring_setup/_enter/_register, process_madvise, cachestat
_URING = (425, 426, 427)
CACHE_SYSCALLS = {
    "x86_64": {0xC000003E: tuple(n | x for x in (0, _X32) for n in (27, 221, *_URING, 440, 451)) + (206, _X32 | 543),
               0x40000003: (218, 250, 272, 245, *_URING, 440, 451)},
    "aarch64": {0xC00000B7: (232, 223, 0, *_URING, 440, 451),
                0x40000028: (219, 270, 243, *_URING, 440, 451)},
}
# {machine: {audit arch: (madvise, preadv2 numbers)}}: denied for some arguments only
MADVISE = {"x86_64": {0xC000003E: (28, _X32 | 28), 0x40000003: (219,)},
           "aarch64": {0xC00000B7: (233,), 0x40000028: (220,)}}
PREADV2 = {"x86_64": {0xC000003E: (327, _X32 | 546), 0x40000003: (378,)},
           "aarch64": {0xC00000B7: (286,), 0x40000028: (392,)}}
MADV_COLD, MADV_PAGEOUT = 20, 21  # madvise(2) advice that moves file pages out of the cache
RWF_NOWAIT = 0x08  # preadv2(2) flag: fail with EAGAIN rather than wait for a page not in the cache

_libc = ctypes.CDLL(None, use_errno=True)
# Every libc function this module calls, looked up now: ctypes caches a function on the CDLL at its first use, so a
# process that first used one while serving a task (a timeout's path did) would hand the judges forked from it
# later a CDLL that shows it (tests/sandbox/test_judge_starts_clean.py).
LIBC_FUNCTIONS = ("unshare", "setns", "umount2", "mount", "capset", "setfsgid", "setfsuid", "prctl")
for _name in LIBC_FUNCTIONS:
    getattr(_libc, _name)


def real_uid(pid):
    """The real uid of process `pid` (a string), from its status (/proc/<pid> itself is root's once it set its uid);
    None once it is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            return next(line.split()[1] for line in f if line.startswith("Uid:"))
    except (OSError, StopIteration):
        return None


def check(ret, what):
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags):
    check(_libc.unshare(flags), "unshare")


def setns(fd, nstype):
    check(_libc.setns(fd, nstype), "setns")


def umount(target, flags=MNT_DETACH):
    check(_libc.umount2(target.encode(), flags), f"umount {target}")


def mount(source, target, fstype, flags, data=None):
    check(_libc.mount(source.encode() if source else None, target.encode(), fstype.encode() if fstype else None,
                      flags, data.encode() if data else None), f"mount {target}")


PR_SET_DUMPABLE, PR_SET_KEEPCAPS = 4, 8
CAP_SETUID = 7
_CAP_VERSION_3 = 0x20080522


def _capset(effective, permitted):
    header = (ctypes.c_uint32 * 2)(_CAP_VERSION_3, 0)
    data = (ctypes.c_uint32 * 6)(effective, permitted, 0, 0, 0, 0)  # two 32-bit sets of (eff, perm, inh)
    check(_libc.capset(header, data), "capset")


def become(uid, gid, fsuid, fsgid):
    """As root: real, effective and saved uid and gid `uid` and `gid`, no supplementary groups and no capability
    left, but files opened, made and checked as `fsuid`/`fsgid` (setfsuid(2)): it can signal and trace only what
    `uid` can, and reads and writes files as `fsuid` does.  Dumpable again (a changed fsuid clears it), so its
    /proc entries are its own uid's."""
    os.setgroups([])
    os.setresgid(gid, gid, gid)
    _libc.setfsgid(fsgid)
    check(prctl(PR_SET_KEEPCAPS, 1), "prctl(PR_SET_KEEPCAPS)")
    os.setresuid(uid, uid, uid)  # permitted capabilities kept, effective ones cleared
    _capset(1 << CAP_SETUID, 1 << CAP_SETUID)
    _libc.setfsuid(fsuid)
    _capset(0, 0)
    check(prctl(PR_SET_KEEPCAPS, 0), "prctl(PR_SET_KEEPCAPS)")
    check(prctl(PR_SET_DUMPABLE, 1), "prctl(PR_SET_DUMPABLE)")
    if _libc.setfsuid(-1) != fsuid or _libc.setfsgid(-1) != fsgid:  # (-1: only reads it back)
        raise OSError(errno.EPERM, f"setfsuid {fsuid}: not taken")


def prctl(option, arg2=0, arg3=0):
    """prctl(2) with unsigned long arguments (`arg3` may also be a ctypes pointer)."""
    arg3 = ctypes.c_ulong(arg3) if isinstance(arg3, int) else arg3
    return _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg2), arg3, ctypes.c_ulong(0), ctypes.c_ulong(0))


def keyring_filter(machine=None):
    """The classic-BPF program (bytes of `struct sock_filter`s) of `deny_keyrings`, or None when this
    architecture's numbers are unknown.  Per ABI: the keyring and cache calls (`KEYRING_SYSCALLS`, `CACHE_SYSCALLS`)
    jump to the EPERM return; `madvise` to a check of its advice (args[2]), `preadv2` to one of its flags (args[5]);
    everything else is allowed."""
    machine = machine or os.uname().machine
    table = KEYRING_SYSCALLS.get(machine)
    if table is None:
        return None
    ld_arch, ld_nr = (0x20, 0, 0, 4), (0x20, 0, 0, 0)  # BPF_LD|BPF_W|BPF_ABS seccomp_data.arch / .nr
    ld_arg = lambda i: (0x20, 0, 0, 16 + 8 * i)  # noqa: E731 (the low word of args[i]: both ABIs are little-endian)
    allow, deny = (0x06, 0, 0, 0x7FFF0000), (0x06, 0, 0, 0x00050000 | errno.EPERM)  # RET ALLOW / ERRNO
    arches = {arch: (nrs + CACHE_SYSCALLS[machine][arch], MADVISE[machine][arch], PREADV2[machine][arch])
              for arch, nrs in table.items()}
    blocks, at = [], 1 + len(arches) + 1  # where each arch's block starts
    for denied, madvise, preadv2 in arches.values():
        blocks.append(at)
        at += 1 + len(denied) + len(madvise) + len(preadv2) + 1
    madvise_at = at  # LD args[2]; JEQ COLD; JEQ PAGEOUT; ALLOW
    preadv2_at = madvise_at + 4  # LD args[5]; JSET NOWAIT; ALLOW
    deny_at = preadv2_at + 3
    prog = [ld_arch]
    for i, arch in enumerate(arches):  # JEQ arch: jump to its block
        prog.append((0x15, blocks[i] - len(prog) - 1, 0, arch))
    prog.append(allow)  # an ABI the table does not name: nothing to deny in it
    for denied, madvise, preadv2 in arches.values():
        prog.append(ld_nr)
        for target, nrs in ((deny_at, denied), (madvise_at, madvise), (preadv2_at, preadv2)):
            for nr in nrs:
                prog.append((0x15, target - len(prog) - 1, 0, nr))
        prog.append(allow)
    prog += [ld_arg(2), (0x15, deny_at - madvise_at - 2, 0, MADV_COLD),
             (0x15, deny_at - madvise_at - 3, 0, MADV_PAGEOUT), allow]
    prog += [ld_arg(5), (0x45, deny_at - preadv2_at - 2, 0, RWF_NOWAIT), allow]  # JSET: any of the bits
    prog.append(deny)
    assert len(prog) == deny_at + 1 and all(insn[1] < 256 for insn in prog)
    return b"".join(struct.pack("HBBI", *insn) for insn in prog)


_code = keyring_filter()
_KEYRING_FILTER = None if _code is None else ctypes.create_string_buffer(_code, len(_code))


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def deny_keyrings():
    """In a program's process: PR_SET_NO_NEW_PRIVS, then the seccomp filter (add_key, request_key, keyctl
    fail with EPERM, and the page cache's residency calls: module docstring).  False, having installed nothing,
    where the architecture is unknown.  The filter is built
    once, in the server: a program's process starts with as few new objects as it can (each one moves when its
    garbage collector first runs, which a program's shutdown order can show)."""
    if _KEYRING_FILTER is None:
        return False
    check(prctl(PR_SET_NO_NEW_PRIVS, 1), "prctl(PR_SET_NO_NEW_PRIVS)")
    fprog = _SockFprog(len(_KEYRING_FILTER) // 8, ctypes.addressof(_KEYRING_FILTER))
    check(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog)), "prctl(PR_SET_SECCOMP)")
    return True


def remove_tree(parent_fd, name, max_entries=10_000_000):
    """Remove `name` (a file, a link or a whole tree) under the directory `parent_fd`, iteratively and
    through directory fds: no recursion to overflow, no path to outgrow PATH_MAX (a program may leave
    thousands of nested directories), and never following a link out of the tree."""
    stack = [(parent_fd, name, None)]  # (parent fd, name, fd of the directory once opened)
    opened = []
    budget = max_entries
    try:
        while stack and budget > 0:
            budget -= 1
            pfd, entry, dfd = stack[-1]
            if dfd is None:
                try:
                    os.unlink(entry, dir_fd=pfd)
                    stack.pop()
                    continue
                except IsADirectoryError:
                    pass
                except OSError:
                    stack.pop()
                    continue
                try:
                    dfd = os.open(entry, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=pfd)
                except OSError:
                    stack.pop()
                    continue
                opened.append(dfd)
                stack[-1] = (pfd, entry, dfd)
            children = os.listdir(dfd)
            if children:
                stack.extend((dfd, child, None) for child in children[:4096])
                continue
            stack.pop()
            os.close(opened.pop())
            try:
                os.rmdir(entry, dir_fd=pfd)
            except OSError:
                pass
    finally:
        for fd in opened:
            os.close(fd)
