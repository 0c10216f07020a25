"""What the fork server tracks per request: a `Job` (one request), its `Run`s (a function task's
program + judge pair, or one test of a per-process request) and their `Proc`s (OS processes).
Standard library only, like every module of the server package."""

import collections
import os
import stat

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
        self.killed = None  # "wall" | "cpu" | "output"
        self.cpu_check = 0.0  # when the server next reads its processes' CPU (`Server.check_cpu`)
        self.meter = None  # the CPU of the program's whole tree (`meter.Meter`), once started
        self.deadline = 0.0
        self.judge_credit = 0.0  # wall seconds its judge's own work has added to `deadline` (`Server.credit_judge`)
        self.judge_deadline = 0.0  # once its program was killed: when its judge is killed too (`Server.end_program`)
        self.slot = None
        self.oom_before = 0
        self.after_judge = False  # the program was killed because its judge had finished
        self.judge = None  # a function task's judge (also among `procs`)
        self.done = False
        self.report = None
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
        if msg["mode"] == "python_tests":
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


def write_files(work, files, uid=None):
    """Write `files` into `work`: relative path -> text, (bytes, mode) for a build's output file, or
    (None, mode) for a directory.  Every step goes through directory fds with O_NOFOLLOW and O_EXCL
    (the work dir belongs to the slot's uid, whose programs may have planted a link in it: a link planted
    there must never make this root process write, chmod or chown anything outside it)."""
    root = os.open(work, _DIR_FLAGS)
    try:
        for name, content in files.items():
            *dirs, leaf = _parts(name)
            fd = os.dup(root)
            try:
                for part in dirs:
                    try:
                        os.mkdir(part, 0o755, dir_fd=fd)
                        if uid is not None:
                            os.chown(part, uid, uid, dir_fd=fd, follow_symlinks=False)
                    except FileExistsError:
                        pass
                    nxt = os.open(part, _DIR_FLAGS, dir_fd=fd)
                    os.close(fd)
                    fd = nxt
                data, mode = (content.encode("utf-8"), 0o644) if isinstance(content, str) else content
                if data is None:  # a directory of the build's
                    try:
                        os.mkdir(leaf, mode & 0o755, dir_fd=fd)
                    except FileExistsError:
                        continue
                    if uid is not None:
                        os.chown(leaf, uid, uid, dir_fd=fd, follow_symlinks=False)
                    continue
                out = os.open(leaf, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                              mode & 0o755, dir_fd=fd)
                with os.fdopen(out, "wb") as f:
                    f.write(data)
                    os.fchmod(f.fileno(), mode & 0o755)
                    if uid is not None:
                        os.fchown(f.fileno(), uid, uid)
            finally:
                os.close(fd)
    finally:
        os.close(root)


def collect_outputs(work):
    """What a build wrote in its work dir: relative path -> (bytes, mode) of every regular file and
    (None, mode) of every directory (links, fifos and other special files are left out), walked
    through directory fds without recursion and without following links, each file opened
    O_NOFOLLOW | O_NONBLOCK and checked regular by fstat; ValueError past MAX_BUILT_FILES entries,
    MAX_BUILT_BYTES bytes or MAX_BUILT_DEPTH levels."""
    out, total = {}, 0
    stack = [("", os.open(work, _DIR_FLAGS), 0)]
    try:
        while stack:
            rel, dfd, depth = stack.pop()
            try:
                if depth > MAX_BUILT_DEPTH:
                    raise ValueError(f"build output nested deeper than {MAX_BUILT_DEPTH} directories")
                for name in os.listdir(dfd):
                    path = f"{rel}/{name}" if rel else name
                    if len(out) >= MAX_BUILT_FILES:
                        raise ValueError(f"build output over {MAX_BUILT_FILES} files or {MAX_BUILT_BYTES} bytes")
                    try:
                        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dfd)
                    except OSError:  # a link (ELOOP), or gone: left out
                        continue
                    info = os.fstat(fd)
                    if stat.S_ISDIR(info.st_mode):
                        out[path] = (None, info.st_mode)
                        stack.append((path, fd, depth + 1))
                        continue
                    with os.fdopen(fd, "rb") as f:
                        if not stat.S_ISREG(info.st_mode):
                            continue
                        data = f.read(MAX_BUILT_BYTES - total + 1)
                    total += len(data)
                    if total > MAX_BUILT_BYTES:
                        raise ValueError(f"build output over {MAX_BUILT_FILES} files or {MAX_BUILT_BYTES} bytes")
                    out[path] = (data, info.st_mode)
            finally:
                os.close(dfd)
    finally:
        for _, dfd, _ in stack:
            os.close(dfd)
    return out
