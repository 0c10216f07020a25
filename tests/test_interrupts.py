"""Ctrl-C (SIGINT to the command's process group, as a terminal sends it) and SIGTERM (`kill PID`) in the middle of
`coderl check`, `eval`, `train` and `sft`, run as a user runs them (subprocesses, the tiny random model): one line
("interrupted" / "terminated"), exit 130 / 143, no traceback, no process left, nothing half-written (no *.tmp, every
line of what stays is whole, no finished output that is not), and what a resume needs is kept."""

import json
import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("torch")

from tests.models.tiny import tiny_llama  # noqa: E402
from tests.processes import descendants  # noqa: E402

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"
SIGNALS = [("SIGINT", 130, "interrupted"), ("SIGTERM", 143, "terminated")]


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return str(tiny_llama(tmp_path_factory.mktemp("model")))


def _lines(path):
    return path.read_text().splitlines() if path.exists() else []


def _command(name, model, out):
    """(argv, whether the command is in its middle, what it must leave) of each command."""
    common = ["--workers", "1"]
    if name == "check":
        return (["check", "--tasks", "synthetic:level=1,n=400", "--reference", "--quiet", "--out", str(out / "r.jsonl"),
                 *common], lambda: len(_lines(out / "r.jsonl.partial")) >= 2, [])
    if name == "eval":
        return (["eval", "--out", str(out), "--model", model, "--tasks", "synthetic:level=1,n=400", "--format",
                 "completion", "--max-new-tokens", "4", "--batch-size", "1", *common],
                lambda: len(_lines(out / "samples.jsonl.partial")) >= 3, ["samples.jsonl.partial"])
    device = ["--device", "cpu", "--no-progress", "--model", model, "--format", "completion", "--out", str(out)]
    if name == "train":
        return (["train", *device, "--tasks", TASKS, "--steps", "500", "--prompts-per-step", "1",
                 "--samples-per-prompt", "2", "--max-new-tokens", "4", "--save-steps", "1", *common],
                lambda: (out / "checkpoints" / "step-1").is_dir(), ["checkpoints", "config.yaml", "metrics.jsonl"])
    return (["sft", *device, "--data", TASKS, "--epochs", "500", "--save-steps", "1"],
            lambda: (out / "checkpoints" / "step-1").is_dir(), ["checkpoints", "config.yaml", "metrics.jsonl",
                                                                "sft_data.json"])


def _alive(pid):
    try:
        return open(f"/proc/{pid}/stat").read().split()[2] != "Z"
    except OSError:
        return False


def _as_foreground_job():
    """SIGINT at its default and unblocked, as a terminal starts a job: under a script's background job (`make test
    &`) pytest starts with SIGINT ignored, and a command that inherits an ignored SIGINT rightly keeps ignoring it
    (tests/sandbox/test_interrupts.py)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def interrupt(name, model, out, sig):
    """Run `name` until it is in its middle, send `sig`; (exit code, stderr, processes it had started)."""
    argv, busy, _ = _command(name, model, out)
    proc = subprocess.Popen([sys.executable, "-m", "coderl", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True, env={**os.environ, "PYTHONPATH": os.getcwd()},
                            preexec_fn=_as_foreground_job)
    deadline = time.monotonic() + 300  # a loaded machine imports torch slowly
    while not busy():
        assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()[1].decode()[-3000:]
        time.sleep(0.05)
    children = descendants(proc.pid)
    if sig == signal.SIGINT:
        os.killpg(proc.pid, sig)  # what the terminal does on Ctrl-C, to its foreground group
    else:
        proc.send_signal(sig)
    _, err = proc.communicate(timeout=300)
    return proc.returncode, err.decode(), children


FAST = {("eval", "SIGTERM"), ("train", "SIGINT")}  # in `make test`; each case takes 8-16 s (a Python start-up)


@pytest.mark.parametrize("name, sig, code, said", [
    pytest.param(name, *s, id=f"{name}-{s[0]}", marks=() if (name, s[0]) in FAST else pytest.mark.slow)
    for name in ("check", "eval", "train", "sft") for s in SIGNALS])
def test_an_interrupt_stops_the_command_cleanly(model_dir, tmp_path, name, sig, code, said):
    out = tmp_path / "out"
    rc, err, children = interrupt(name, model_dir, out, getattr(signal, sig))
    assert rc == code and "Traceback" not in err and err.strip().splitlines()[-1] == said, err[-3000:]
    deadline = time.monotonic() + 10
    while any(map(_alive, children)):  # the sandbox server and zygotes end with their parent
        assert time.monotonic() < deadline, f"left running: {[p for p in children if _alive(p)]}"
        time.sleep(0.05)
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) if out.exists() else []
    assert not [p for p in left if ".tmp" in p or p.endswith(".partial") and name != "eval"], left
    assert sorted({p.split("/")[0] for p in left}) == sorted(_command(name, model_dir, out)[2]), left
    for path in out.rglob("*"):  # every line of what stays is whole
        if path.suffix in (".jsonl", ".partial"):
            for line in path.read_text().splitlines():
                json.loads(line)
    if name == "eval":  # it resumes from there
        head, *chunks = _lines(out / "samples.jsonl.partial")
        assert json.loads(head)["batch_size"] == 1 and chunks
