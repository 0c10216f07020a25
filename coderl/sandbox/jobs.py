"""What the fork server tracks per request: a `Job` (one request), its `Run`s (a function task's
program + judge pair, or one test of a per-process request) and their `Proc`s (OS processes).
Standard library only; loaded by path by `server.py`, like every module it loads."""

import collections

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


class Job:
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
