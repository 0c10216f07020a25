"""Ctrl-C (SIGINT to the command's process group, as a terminal sends it) and SIGTERM (`kill PID`) in the middle of
`coderl check`, `eval`, `train`, `sft` and `pipeline` (in its RL stage), run as a user runs them (subprocesses, the tiny random model): one line
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
                lambda: (out / "checkpoints" / "step-1").is_dir(), ["checkpoints", "config.yaml", "heartbeat.json",
                                                                     "metrics.jsonl"])
    if name == "sft":
        return (["sft", *device, "--data", TASKS, "--epochs", "500", "--save-steps", "1"],
                lambda: (out / "checkpoints" / "step-1").is_dir(), ["checkpoints", "config.yaml", "metrics.jsonl",
                                                                    "sft_data.json"])
    config = out.parent / "pipeline.yaml"  # a finished base evaluation, then an RL stage in its middle
    config.write_text(f"out: {out}\nmodel: {model}\nformat: completion\ndevice: cpu\nallow_eval_overlap: true\n"
                      f"eval: {{tasks: {TASKS}, limit: 2, max_new_tokens: 4, workers: 1}}\n"
                      f"rl:\n  - {{name: grpo, algo: grpo, tasks: {TASKS}, eval_tasks: null, steps: 500, "
                      "prompts_per_step: 1, samples_per_prompt: 2, max_new_tokens: 4, save_steps: 1, workers: 1, "
                      "progress: false}\n")
    return (["pipeline", "--config", str(config)], lambda: (out / "rl" / "grpo" / "checkpoints" / "step-1").is_dir(),
            ["base-eval", "overlap.json", "pipeline.log", "pipeline.yaml", "plan.json", "rl"])


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


def interrupt(name, model, out, sig, launch=()):
    """Run `name` (under the `launch` command) until it is in its middle, send `sig`; (exit code, stderr, processes
    it had started)."""
    argv, busy, _ = _command(name, model, out)
    proc = subprocess.Popen([*(launch or [sys.executable, "-m", "coderl"]), *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
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


FAST = {("eval", "SIGTERM"), ("train", "SIGINT"), ("pipeline", "SIGINT")}  # in `make test`; each case takes 8-16 s (a Python start-up)


@pytest.mark.parametrize("name, sig, code, said", [
    pytest.param(name, *s, id=f"{name}-{s[0]}", marks=() if (name, s[0]) in FAST else pytest.mark.slow)
    for name in ("check", "eval", "train", "sft", "pipeline") for s in SIGNALS])
def test_an_interrupt_stops_the_command_cleanly(model_dir, tmp_path, name, sig, code, said):
    out = tmp_path / "out"
    rc, err, children = interrupt(name, model_dir, out, getattr(signal, sig))
    assert rc == code and "Traceback" not in err and err.strip().splitlines()[-1] == said, err[-3000:]
    _left_clean(name, model_dir, out, children)


def _left_clean(name, model_dir, out, children):
    """No process left; of what stays, nothing half-written and only what the command keeps for a resume."""
    deadline = time.monotonic() + 10
    while any(map(_alive, children)):  # the sandbox server and zygotes end with their parent
        assert time.monotonic() < deadline, f"left running: {[p for p in children if _alive(p)]}"
        time.sleep(0.05)
    left = sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) if out.exists() else []
    assert not [p for p in left if ".tmp" in p or p.endswith(".partial") and name != "eval"], left
    assert sorted({p.split("/")[0] for p in left}) == sorted(_command(name, model_dir, out)[2]), left
    assert "rl/grpo/pipeline_stage.json" not in left and "base-eval/pipeline_stage.json" in left or name != "pipeline"
    for path in out.rglob("*"):  # every line of what stays is whole
        if path.suffix in (".jsonl", ".partial"):
            for line in path.read_text().splitlines():
                json.loads(line)
    if name == "eval":  # it resumes from there
        head, *chunks = _lines(out / "samples.jsonl.partial")
        assert json.loads(head)["batch_size"] == 1 and chunks


def _launch(processes=2):
    from tests.train.test_distributed import ROOT, _free_port

    return [sys.executable, "-m", "coderl", "launch", "--config_file",
            os.path.join(ROOT, "configs", "accelerate", "ddp.yaml"), "--num_processes", str(processes),
            "--main_process_port", str(_free_port())]


@pytest.mark.slow
@pytest.mark.parametrize("sig, code, said", SIGNALS, ids=[s[0] for s in SIGNALS])
def test_an_interrupt_stops_a_launch_of_two_processes_cleanly(model_dir, tmp_path, sig, code, said):
    """`coderl launch` (accelerate's launcher) with 2 CPU processes: the launcher forwards the signal to both ranks;
    they stop as one process does, one line for the launch (rank 0's), no traceback from any process (the elastic
    agent's own is what `accelerate launch` would add), and no rank or sandbox process left."""
    pytest.importorskip("accelerate")
    out = tmp_path / "out"
    rc, err, children = interrupt("train", model_dir, out, getattr(signal, sig), _launch())
    ours = [line for line in err.splitlines() if line in ("interrupted", "terminated")]
    assert rc == code and ours == [said] and "Traceback" not in err and "torch/distributed/elastic" not in err, err[-3000:]
    _left_clean("train", model_dir, out, children)


@pytest.mark.slow
def test_a_launch_whose_ranks_fail_ends_with_their_one_line(model_dir, tmp_path):
    """A rank's one-line error ends `coderl launch` with that rank's exit code, and no launcher traceback."""
    pytest.importorskip("accelerate")
    run = subprocess.run([*_launch(), "train", "--device", "cpu", "--model", model_dir, "--tasks",
                          str(tmp_path / "missing.jsonl"), "--out", str(tmp_path / "out")],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": os.getcwd()}, timeout=600)
    assert run.returncode == 2 and "Traceback" not in run.stderr and "missing.jsonl" in run.stderr, run.stderr[-3000:]
    assert "torch/distributed/elastic" not in run.stderr, run.stderr[-3000:]  # the agent adds no line of its own


def test_launch_without_a_command_is_one_line():
    run = subprocess.run([sys.executable, "-m", "coderl", "launch", "--num_processes", "2"], capture_output=True,
                         text=True, env={**os.environ, "PYTHONPATH": os.getcwd()})
    assert run.returncode == 2 and run.stderr.count("\n") == 1 and "train or sft" in run.stderr, run.stderr
