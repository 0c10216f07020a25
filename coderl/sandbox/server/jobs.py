"""What the fork server tracks per request: a `Job` (one request), its `Run`s (a function task's
program + judge pair, or one test of a per-process request) and their `Proc`s (OS processes).
Standard library only, like every module of the server package."""

import base64
import collections
import os
import stat

from .contain import linux

MAX_BUILT_FILES = 10_000
MAX_BUILT_BYTES = 64 * 2**20
MAX_BUILT_DEPTH = 32

STREAMS = {"program": ("stdout", "stderr"), "judge": ("result", "judge_stderr"),
           "script": ("stdout", "stderr"), "command": ("stdout", "stderr")}


class Proc:
    """One OS process of a run."""

    def __init__(self, run, role, key):
        self.run = run
        self.role = role
        self.key = key
        self.pid = None
        self.pidfd = None
        self.exit = None  # the zygote's report once it has exited


class Run:
    """A function task's program and its judge, or one test of a per-process request."""

    def __init__(self, job, index, stdin_text, argv=None):
        """Run `index` of `job` (-1: its build), with its test's input and (COMMAND) its own run command."""
        self.job = job
        self.index = index
        self.stdin_text = stdin_text
        self.argv = argv or None  # COMMAND mode: this test's own run command (else the request's)
        self.procs = []
        self.fds = {}  # fd -> stream name
        self.buffers = collections.defaultdict(bytearray)
        self.totals = collections.defaultdict(int)
        self.killed = None  # "wall" | "cpu" | "input" (a test's own CPU limit) | "output"
        self.cpu_check = 0.0  # when the server next reads its processes' CPU (`Server.check_cpu`)
        self.meter = None  # the CPU of the program's whole tree (`meter.Meter`), once started
        self.deadline = 0.0
        self.judge_credit = 0.0  # wall seconds its judge's own work has added to `deadline` (`Server.credit_judge`)
        self.judge_deadline = 0.0  # once its program was killed: when its judge is killed too (`Server.end_program`)
        self.slot = None
        self.oom_before = 0
        self.after_judge = False  # the program was killed because its judge had finished
        self.judge = None  # a function task's judge (also among `procs`)
        self.record_cpu = []  # the program tree's CPU when each of its judge's records was read (`Server.read_stream`)
        self.marks = 0  # the judge's `mark` records read so far: the test running is the last one marked
        self.scanned = 0  # how far into its result buffer the server has looked for them
        self.input_limit = None  # while a test with a limit of its own runs: (id, limit, the tree's CPU at its start)
        self.input_killed = None  # the test whose own limit ended the program (`Server.check_cpu`)
        self.done = False
        self.report = None
        self.work = None  # an episode's working copy, its work dir (else the slot's)
        self.episode = None  # the episode it runs in
        self.built = False  # a build that ended well and whose outputs were collected
        self.build_error = None  # a build whose outputs could not be collected

    def ended(self):
        """Every process (the judge's too) exited."""
        return all(p.exit is not None for p in self.procs)


class Job:
    """One request.  A COMMAND request with `build_argv` runs its build first (`build`, index -1); its
    test runs are queued once the build succeeded, with what it wrote (`built`) in their work dirs."""

    def __init__(self, msg):
        """A job from the client's message: one run for a function task, one per test otherwise, and a build run."""
        self.msg = msg
        self.id = msg["id"]
        self.limits = msg["limits"]
        self.records = msg["mode"] == "command" and any(t.get("kind") == "record" for t in msg["tests"])
        if msg["mode"] == "python_tests" or self.records:  # (record tests: one run writes every test's record)
            self.runs = [Run(self, 0, None)]
        else:
            tests = msg["tests"] or [{"id": "0", "source": ""}]
            self.runs = [Run(self, i, t["source"], t.get("argv")) for i, t in enumerate(tests)]
        self.pending = len(self.runs)
        self.build = Run(self, -1, None) if msg["mode"] == "command" and msg.get("build_argv") else None
        self.forked = False  # a process of this job was asked of the zygote (`Server.fail`: whose failure it is)
        self.built = {}  # relative path -> (bytes, mode): the build's outputs

    def first_runs(self):
        return [self.build] if self.build is not None else list(self.runs)


_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def _parts(name):
    """The components of a relative path; ValueError for an absolute one or one that climbs (`..`)."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if not parts or name.startswith("/") or ".." in parts:
        raise ValueError(f"file name {name[:100]!r}: expected a relative path inside the work dir")
    return parts


def _entry(content):
    """(kind, data, mode) of a `files` value: text, a build's (bytes, mode) or (None, mode) directory, or the wire's
    {"data", "mode"} bytes, {"link"} and {"delete"} entries (`types.file_bytes`, ...)."""
    if isinstance(content, str):
        return "file", content.encode("utf-8"), 0o644
    if isinstance(content, (tuple, list)):
        data, mode = content
        return ("dir" if data is None else "file"), data, mode
    if isinstance(content, dict):
        if content.get("delete"):
            return "delete", None, 0
        if isinstance(content.get("link"), str):
            return "link", content["link"], 0
        if isinstance(content.get("data"), str):
            return "file", base64.b64decode(content["data"], validate=True), int(content.get("mode", 0o644))
    raise ValueError(f"file entry {str(content)[:80]!r}: expected text, bytes with a mode, a link or a deletion")


def write_files(work, files, uid=None):
    """Write `files` into `work`: relative path -> text, (bytes, mode) for a build's output file, (None, mode) for a
    directory, or the wire's bytes, link and deletion entries (`_entry`); an existing path at a name is replaced.
    Every step goes through directory fds with O_NOFOLLOW (the work dir belongs to the slot's uid, whose programs may
    have planted a link in it: a link planted there must never make this root process write, chmod or chown
    anything outside it; a link on the way to a name is replaced by a directory)."""
    root = os.open(work, _DIR_FLAGS)
    try:
        for name, content in files.items():
            *dirs, leaf = _parts(name)
            kind, data, mode = _entry(content)
            fd = os.dup(root)
            try:
                for part in dirs:
                    fd = _enter_dir(fd, part, uid)
                if kind == "dir":
                    try:
                        os.mkdir(leaf, mode & 0o755, dir_fd=fd)
                    except FileExistsError:
                        if stat.S_ISDIR(os.stat(leaf, dir_fd=fd, follow_symlinks=False).st_mode):
                            continue
                        linux.remove_tree(fd, leaf)
                        os.mkdir(leaf, mode & 0o755, dir_fd=fd)
                    if uid is not None:
                        os.chown(leaf, uid, uid, dir_fd=fd, follow_symlinks=False)
                    continue
                linux.remove_tree(fd, leaf)  # whatever stood there (nothing is followed)
                if kind == "link":
                    os.symlink(data, leaf, dir_fd=fd)
                    if uid is not None:
                        os.chown(leaf, uid, uid, dir_fd=fd, follow_symlinks=False)
                elif kind == "file":
                    _write_file(fd, leaf, data, mode, uid)
            finally:
                os.close(fd)
    finally:
        os.close(root)


def _enter_dir(fd, part, uid):
    """The directory `part` under `fd` (made when absent; a file or link there replaced by one), opened without
    following a link; `fd` is closed."""
    try:
        try:
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
        except (FileNotFoundError, NotADirectoryError, OSError) as exc:
            if not isinstance(exc, FileNotFoundError):
                linux.remove_tree(fd, part)
            os.mkdir(part, 0o755, dir_fd=fd)
            if uid is not None:
                os.chown(part, uid, uid, dir_fd=fd, follow_symlinks=False)
            nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
        return nxt
    finally:
        os.close(fd)


def _write_file(dir_fd, leaf, data, mode, uid):
    out = os.open(leaf, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, mode & 0o755,
                  dir_fd=dir_fd)
    with os.fdopen(out, "wb") as f:
        f.write(data)
        os.fchmod(f.fileno(), mode & 0o755)
        if uid is not None:
            os.fchown(f.fileno(), uid, uid)


def walk_tree(top_fd, max_files=MAX_BUILT_FILES, max_bytes=MAX_BUILT_BYTES, max_depth=MAX_BUILT_DEPTH,
              links=False):
    """Every entry under the directory `top_fd` (not closed here): yields (relative path, kind, data, mode) with kind
    "dir" (data None), "file" (its bytes) or, with `links`, "link" (its target); other special files are left out.
    Walked through directory fds without recursion and without following links, each file opened O_NOFOLLOW |
    O_NONBLOCK and checked regular by fstat; ValueError past `max_files` entries, `max_bytes` bytes or `max_depth`
    levels."""
    total = count = 0
    stack = [("", os.dup(top_fd), 0)]
    try:
        while stack:
            rel, dfd, depth = stack.pop()
            try:
                if depth > max_depth:
                    raise ValueError(f"tree nested deeper than {max_depth} directories")
                for name in sorted(os.listdir(dfd)):
                    path = f"{rel}/{name}" if rel else name
                    count += 1
                    if count > max_files:
                        raise ValueError(f"tree over {max_files} files or {max_bytes} bytes")
                    try:
                        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
                    except OSError:  # a link (ELOOP), or gone
                        if links:
                            try:
                                info = os.stat(name, dir_fd=dfd, follow_symlinks=False)
                                if stat.S_ISLNK(info.st_mode):
                                    yield path, "link", os.readlink(name, dir_fd=dfd), 0
                            except OSError:
                                pass
                        continue
                    info = os.fstat(fd)
                    if stat.S_ISDIR(info.st_mode):
                        yield path, "dir", None, info.st_mode & 0o7777
                        stack.append((path, fd, depth + 1))
                        continue
                    with os.fdopen(fd, "rb") as f:
                        if not stat.S_ISREG(info.st_mode):
                            continue
                        data = f.read(max_bytes - total + 1)
                    total += len(data)
                    if total > max_bytes:
                        raise ValueError(f"tree over {max_files} files or {max_bytes} bytes")
                    yield path, "file", data, info.st_mode & 0o7777
            finally:
                os.close(dfd)
    finally:
        for _, dfd, _ in stack:
            os.close(dfd)


def copy_tree(src_fd, work, uid=None, **caps):
    """A host tree (the directory `src_fd`) copied into `work`: directories, regular files with their bytes and modes,
    links as links (never followed), owned by `uid`; other special files left out; `walk_tree`'s caps."""
    entries = {}
    for path, kind, data, mode in walk_tree(src_fd, links=True, **caps):
        entries[path] = (None, mode) if kind == "dir" else {"link": data} if kind == "link" else (data, mode)
    write_files(work, entries, uid)


def snapshot(work, **caps):
    """A working copy as the wire carries it: relative path -> {"data", "mode"} of a file, {"link"} of a link,
    {"dir": mode} of a directory (`walk_tree`, its caps)."""
    out = {}
    fd = os.open(work, _DIR_FLAGS)
    try:
        for path, kind, data, mode in walk_tree(fd, links=True, **caps):
            out[path] = ({"dir": mode} if kind == "dir" else {"link": data} if kind == "link" else
                         {"data": base64.b64encode(data).decode("ascii"), "mode": mode})
    finally:
        os.close(fd)
    return out


def chown_tree(work, uid):
    """Every entry of a working copy (and the directory itself) given to `uid` (an episode's copy moves between
    slots, each with its own uid), without following a link."""
    fd = os.open(work, _DIR_FLAGS)
    try:
        os.fchown(fd, uid, uid)
        stack = [os.dup(fd)]
        while stack:
            dfd = stack.pop()
            try:
                for name in os.listdir(dfd):
                    os.chown(name, uid, uid, dir_fd=dfd, follow_symlinks=False)
                    try:
                        stack.append(os.open(name, _DIR_FLAGS, dir_fd=dfd))
                    except OSError:
                        pass
            finally:
                os.close(dfd)
    finally:
        os.close(fd)


def collect_outputs(work):
    """What a build wrote in its work dir: relative path -> (bytes, mode) of every regular file and (None, mode) of
    every directory (links, fifos and other special files are left out; `walk_tree` and its caps)."""
    fd = os.open(work, _DIR_FLAGS)
    try:
        return {path: (data, mode) for path, kind, data, mode in walk_tree(fd)}
    finally:
        os.close(fd)
