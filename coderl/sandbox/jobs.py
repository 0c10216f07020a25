"""What the fork server tracks per request: a `Job` (one request), its `Run`s (a function task's
program + judge pair, or one test of a per-process request) and their `Proc`s (OS processes).
Standard library only; loaded by path by `server.py`, like every module it loads."""

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
    """A function task's program + judge pair, or one test of a per-process request."""

    def __init__(self, job, index, stdin_text):
        self.job = job
        self.index = index
        self.stdin_text = stdin_text
        self.procs = []
        self.fds = {}  # fd -> stream name
        self.buffers = collections.defaultdict(bytearray)
        self.totals = collections.defaultdict(int)
        self.killed = None  # "wall" | "output"
        self.start = 0.0
        self.deadline = 0.0
        self.slot = None
        self.oom_before = 0
        self.after_judge = False  # the program was killed because its judge had finished
        self.done = False
        self.report = None
        self.build_error = None  # a build whose outputs could not be collected


class Job:
    """One request.  A COMMAND request with `build_argv` runs its build first (`build`, index -1); its
    test runs are queued once the build succeeded, with what it wrote (`built`) in their work dirs."""

    def __init__(self, msg):
        self.msg = msg
        self.id = msg["id"]
        self.limits = msg["limits"]
        if msg["mode"] == "python_tests":
            self.runs = [Run(self, 0, None)]
        else:
            tests = msg["tests"] or [{"id": "0", "source": ""}]
            self.runs = [Run(self, i, t["source"]) for i, t in enumerate(tests)]
        self.pending = len(self.runs)
        self.build = Run(self, -1, None) if msg["mode"] == "command" and msg.get("build_argv") else None
        self.built = {}  # relative path -> (bytes, mode): the build's outputs

    def first_runs(self):
        return [self.build] if self.build is not None else list(self.runs)


def write_files(work, files, uid=None):
    """Write `files` (relative path -> text, or (bytes, mode) for a build's outputs) into `work`."""
    for name, content in files.items():
        path = os.path.join(work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if isinstance(content, str):
            with open(path, "w", encoding="utf-8") as f:
                f.write(content)
        else:
            data, mode = content
            with open(path, "wb") as f:
                f.write(data)
            os.chmod(path, mode & 0o755)
        if uid is not None:
            os.chown(path, uid, uid)


def collect_outputs(work):
    """What a build wrote in its work dir: relative path -> (bytes, mode) of every regular file (links
    and special files are left out), walked without recursion or following links; raises ValueError
    past MAX_BUILT_FILES files, MAX_BUILT_BYTES bytes or MAX_BUILT_DEPTH levels."""
    out, total = {}, 0
    stack = [("", 0)]
    while stack:
        rel, depth = stack.pop()
        if depth > MAX_BUILT_DEPTH:
            raise ValueError(f"build output nested deeper than {MAX_BUILT_DEPTH} directories")
        for entry in os.scandir(os.path.join(work, rel) if rel else work):
            name = os.path.join(rel, entry.name) if rel else entry.name
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                stack.append((name, depth + 1))
            elif stat.S_ISREG(info.st_mode):
                total += info.st_size
                if len(out) >= MAX_BUILT_FILES or total > MAX_BUILT_BYTES:
                    raise ValueError(f"build output over {MAX_BUILT_FILES} files or {MAX_BUILT_BYTES} bytes")
                fd = os.open(entry.path, os.O_RDONLY | os.O_NOFOLLOW)
                with os.fdopen(fd, "rb") as f:
                    out[name] = (f.read(MAX_BUILT_BYTES + 1), info.st_mode)
    return out
