"""One owner per output (issue 75, `coderl/base/ownership.py`): while a command writes a run folder or an output
file, a second command on it (`--resume` and `--overwrite` too), inside it or around it is refused in one line
naming the holder (pid, command, start), exit 2, before it writes anything; the lock goes with its holder however
it dies (SIGKILL too).  Real processes (the bad-input matrix, tests/test_bad_input.py, is in-process by design).

In `make test`: the module's rules in-process; each command refused by a holder of its output (a small process
holding it as the command does); a SIGKILLed `check` whose output is free afterwards.  In `make test-slow`: each
command against a real run of itself, a pipeline resumed after its holder was killed, and a 2-process
`coderl launch` (one lock for the run; its ranks die with it when it is SIGKILLed).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coderl.base.config import ConfigError
from coderl.base.ownership import ENV, lock_file, owned

TASKS = Path("tests/fixtures/tasks/humaneval_small.jsonl").resolve()
ENVIRON = {**os.environ, "PYTHONPATH": os.getcwd()}
ENVIRON.pop(ENV, None)

# ------------------------------------------------------------------------------------------------ the rules


def test_a_second_owner_is_refused_and_the_lock_goes_with_the_first(tmp_path):
    out = tmp_path / "run"
    with owned(("--out", str(out))):
        assert os.path.exists(lock_file(str(out)))
        with pytest.raises(ConfigError, match=rf"^--out {out}: in use by pid {os.getpid()} \(coderl[^)]*, started "
                                              r"\d{4}-\d\d-\d\dT[\d:]+\); wait for it to end or stop it, or choose "
                                              r"another --out$"):
            with owned(("--out", str(out))):
                pass
    assert os.listdir(tmp_path) == []  # no lock file left, no folder made for it
    with owned(("--out", str(out))):
        pass


def test_two_names_of_one_output_have_one_owner(tmp_path):
    (tmp_path / "runs").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "runs")
    with owned(("--out", str(tmp_path / "runs" / "a"))):
        with pytest.raises(ConfigError, match="in use by"):
            with owned(("--out", str(tmp_path / "link" / "a"))):
                pass


def test_a_tree_has_one_owner(tmp_path):
    """Inside a folder in use (a pipeline's), and around an output in use (a stage run on its own), refused."""
    tree = tmp_path / "pipeline"
    with owned(("--out", str(tree))):
        with pytest.raises(ConfigError, match=rf"^--out {tree}/rl/grpo: inside {tree}, which is in use by pid "):
            with owned(("--out", str(tree / "rl" / "grpo"))):
                pass
    (tree / "rl").mkdir(parents=True)
    with owned(("--out", str(tree / "rl" / "grpo"))):
        with pytest.raises(ConfigError, match=rf"^--out {tree}: {tree}/rl/grpo in it is in use by pid "):
            with owned(("--out", str(tree))):
                pass


def test_the_process_a_launcher_holds_the_run_for_takes_none(tmp_path, monkeypatch):
    out = str(tmp_path / "run")
    with owned(("--out", out)):
        monkeypatch.setenv(ENV, lock_file(out))  # as `coderl launch` names it to its ranks
        with owned(("--out", out)):
            pass
        monkeypatch.setenv(ENV, lock_file(str(tmp_path / "other")))  # another run's: refused as any
        with pytest.raises(ConfigError, match="in use by"):
            with owned(("--out", out)):
                pass
    monkeypatch.delenv(ENV)
    monkeypatch.setenv("WORLD_SIZE", "2")  # a plain `accelerate launch`: rank 0 holds the run, rank 1 takes none
    monkeypatch.setenv("RANK", "1")
    with owned(("--out", out)):
        assert not os.path.exists(lock_file(out))


def test_an_output_whose_lock_cannot_be_written_is_one_line(tmp_path):
    (tmp_path / "afile").write_text("x")
    with pytest.raises(ConfigError, match=r"^--out .*afile/run: .*afile is a file, not a folder$"):
        with owned(("--out", str(tmp_path / "afile" / "run"))):
            pass


# ------------------------------------------------------------------------------------------------ real processes

HOLD = """
import sys
from coderl.base.ownership import owned
out, sys.argv = sys.argv[1], ["coderl", *sys.argv[2:]]
with owned(("--out", out)):
    print("held", flush=True)
    sys.stdin.read()
"""


def _holding(out: Path, *command: str) -> subprocess.Popen:
    """A process holding `out` as `coderl COMMAND` does, until its stdin closes."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(out), *command], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=ENVIRON)
    assert proc.stdout.readline() == "held\n"
    return proc


def _coderl(*argv: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "coderl", *argv], capture_output=True, text=True, env=ENVIRON,
                          timeout=600, **kw)


def _tree(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in sorted(root.rglob("*"))} if root.exists() else {}


def _pipeline_config(where: Path, model: str, out: Path, steps: int = 500) -> Path:
    config = where / "pipeline.yaml"
    config.write_text(f"out: {out}\nmodel: {model}\nformat: completion\ndevice: cpu\nallow_eval_overlap: true\n"
                      f"eval: {{tasks: {TASKS}, limit: 2, max_new_tokens: 4, workers: 1}}\n"
                      f"rl:\n  - {{name: grpo, algo: grpo, tasks: {TASKS}, eval_tasks: null, steps: {steps}, "
                      "prompts_per_step: 1, samples_per_prompt: 2, max_new_tokens: 4, save_steps: 1, workers: 1, "
                      "progress: false}\n")
    return config


def _refusal(name: str, place: Path, model: str) -> tuple[list[str], Path, Path]:
    """(the command, the output it names, the output held) of each command (`--resume` / `--overwrite`: the lock
    comes first)."""
    run = place / "run"
    common = ["--model", model, "--out", str(run)]
    if name == "train":
        return ["train", "--tasks", str(TASKS), "--device", "cpu", *common, "--resume"], run, run
    if name == "sft":
        return ["sft", "--data", str(TASKS), "--device", "cpu", *common, "--overwrite"], run, run
    if name == "eval":
        return ["eval", "--tasks", str(TASKS), *common, "--resume"], run, run
    if name == "check":
        out = place / "r.jsonl"
        return ["check", "--tasks", str(TASKS), "--reference", "--out", str(out), "--overwrite"], out, out
    if name == "export":
        out = place / "t.jsonl"
        return ["tasks", "export", "--tasks", str(TASKS), "--format", "jsonl", "--out", str(out), "--overwrite"], \
            out, out
    if name == "pipeline":
        return ["pipeline", "--config", str(_pipeline_config(place, model, run))], run, run
    # a stage's folder run on its own while the pipeline holds its tree
    return ["train", "--tasks", str(TASKS), "--device", "cpu", "--model", model, "--out", str(run / "rl" / "grpo")], \
        run / "rl" / "grpo", run


@pytest.mark.parametrize("name", ["train", "sft", "eval", "check", "export",
                                  *(pytest.param(n, marks=pytest.mark.slow) for n in ("pipeline", "train in a pipeline"))])
def test_a_command_on_an_output_in_use_is_refused_before_it_writes(tmp_path, name):
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")  # names a model; none is loaded before the refusal
    argv, given, held = _refusal(name, tmp_path, str(model))
    holder = _holding(held, "pipeline" if "pipeline" in name else argv[0], "--out", str(held))
    try:
        before = _tree(tmp_path)
        run = _coderl(*argv)
        after = _tree(tmp_path)
    finally:
        holder.stdin.close()
        holder.wait()
    prog = "coderl tasks export" if name == "export" else f"coderl {argv[0]}"
    flag, instead = (f"{tmp_path / 'pipeline.yaml'}: out", "out") if name == "pipeline" else ("--out", "--out")
    inside = f"inside {held}, which is " if given != held else ""
    lines = run.stderr.strip().splitlines()
    assert run.returncode == 2 and len(lines) == 1, run.stderr[-3000:]
    assert lines[0].startswith(f"{prog}: error: {flag} {given}: {inside}in use by pid {holder.pid} (coderl "), lines
    assert ", started " in lines[0] and lines[0].endswith(f"or choose another {instead}"), lines
    assert after == before  # nothing written
    assert not os.path.exists(lock_file(str(held)))  # and the holder's lock went with it


def test_a_sigkilled_holder_leaves_its_output_free(tmp_path):
    out = tmp_path / "r.jsonl"
    holder = subprocess.Popen([sys.executable, "-m", "coderl", "check", "--tasks", "synthetic:level=1,n=400",
                               "--reference", "--quiet", "--workers", "1", "--out", str(out)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENVIRON, start_new_session=True)
    deadline = time.monotonic() + 300
    while not Path(f"{out}.partial").exists():  # in its middle
        assert holder.poll() is None and time.monotonic() < deadline, holder.stderr.read().decode()[-3000:]
        time.sleep(0.05)
    refused = _coderl("check", "--tasks", str(TASKS), "--reference", "--out", str(out), "--overwrite")
    assert refused.returncode == 2 and f"in use by pid {holder.pid}" in refused.stderr, refused.stderr
    os.killpg(holder.pid, signal.SIGKILL)
    holder.wait()
    assert os.path.exists(lock_file(str(out)))  # left by the killed holder, and free
    run = _coderl("check", "--tasks", str(TASKS), "--reference", "--out", str(out), "--overwrite")
    assert run.returncode == 0 and out.exists(), run.stderr[-3000:]
    assert not os.path.exists(lock_file(str(out)))


# ------------------------------------------------------------------------------------------------ real runs (slow)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    from tests.models.tiny import tiny_llama

    return str(tiny_llama(tmp_path_factory.mktemp("model")))


def _start(argv: list[str], busy, launch=()) -> subprocess.Popen:
    """`coderl ARGV` (under `launch`) in a session of its own, once `busy()` says it is in its middle."""
    proc = subprocess.Popen([*(launch or [sys.executable, "-m", "coderl"]), *argv], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, env=ENVIRON, start_new_session=True)
    deadline = time.monotonic() + 300
    while not busy():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read().decode()[-3000:]
        time.sleep(0.05)
    return proc


def _kill(proc: subprocess.Popen) -> None:
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


@pytest.mark.slow
@pytest.mark.timeout(900)  # two runs at once on a loaded machine
@pytest.mark.parametrize("name, again", [("train", "--resume"), ("train", "--overwrite"), ("sft", "--overwrite"),
                                         ("eval", "--resume"), ("check", "--overwrite")])
def test_a_run_refuses_a_second_of_itself_and_is_free_once_killed(tiny_model, tmp_path, name, again):
    from tests.test_interrupts import _command

    out = tmp_path / "out"
    argv, busy, _ = _command(name, tiny_model, out)
    holder = _start(argv, busy)
    try:
        second = _coderl(*argv, again)
        assert second.returncode == 2 and second.stderr.count("\n") == 1, second.stderr[-3000:]
        assert f"in use by pid {holder.pid} (coderl {name} " in second.stderr, second.stderr
    finally:
        _kill(holder)
    from coderl.base.ownership import _held

    assert not _held(lock_file(str(argv[argv.index("--out") + 1])))  # free after a SIGKILL


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_pipeline_holds_its_tree_and_resumes_once_its_holder_is_killed(tiny_model, tmp_path):
    out = tmp_path / "out"
    config = _pipeline_config(tmp_path, tiny_model, out)
    checkpoints = out / "rl" / "grpo" / "checkpoints"
    holder = _start(["pipeline", "--config", str(config)], lambda: (checkpoints / "step-1").is_dir())
    try:
        again = _coderl("pipeline", "--config", str(config))
        stage = _coderl("train", "--tasks", str(TASKS), "--device", "cpu", "--model", tiny_model, "--out",
                        str(out / "rl" / "grpo"), "--resume")
        assert again.returncode == 2 and f"in use by pid {holder.pid} (coderl pipeline " in again.stderr, again.stderr
        assert stage.returncode == 2 and f"inside {out}, which is in use by pid {holder.pid}" in stage.stderr, \
            stage.stderr
    finally:
        _kill(holder)
    newest = max(int(p.name.split("-")[1]) for p in checkpoints.glob("step-*"))
    resumed = _start(["pipeline", "--config", str(config)], lambda: (checkpoints / f"step-{newest + 1}").is_dir())
    _kill(resumed)
    assert "[resume" in resumed.stderr.read().decode()  # the plan: the RL stage goes on from that checkpoint


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_launch_holds_its_run_for_its_ranks_and_its_ranks_die_with_it(tiny_model, tmp_path):
    """`coderl launch` of 2 processes: one lock for the run (the launcher's; its ranks take none, and the run
    goes on), a second command on it refused naming the launcher; SIGKILL of the launcher alone (not its group)
    ends both ranks, and the run is free."""
    pytest.importorskip("accelerate")
    from coderl.base.ownership import _held
    from tests.processes import descendants
    from tests.test_interrupts import _alive, _command, _launch

    out = tmp_path / "out"
    argv, busy, _ = _command("train", tiny_model, out)
    launcher = _start(argv, busy, _launch())
    try:
        ranks = [p for p in descendants(launcher.pid) if "coderl" in Path(f"/proc/{p}/cmdline").read_text()]
        second = _coderl(*argv, "--resume")
        assert second.returncode == 2 and f"in use by pid {launcher.pid} (coderl launch " in second.stderr, \
            second.stderr
        assert len(ranks) >= 2
    finally:
        launcher.kill()  # SIGKILL to the launcher alone: its ranks are in sessions of their own
        launcher.wait()
    deadline = time.monotonic() + 30
    while any(map(_alive, ranks)):
        assert time.monotonic() < deadline, f"ranks left running: {[p for p in ranks if _alive(p)]}"
        time.sleep(0.1)
    assert not _held(lock_file(str(out)))


def test_a_pipeline_on_a_busy_out_is_refused_before_its_task_sets_load(tmp_path):
    """issue 102: the pipeline loaded every task set (minutes for a large one) before it found its OUT in use; here
    a task file that is not there would be the error if they were loaded first."""
    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")
    run = tmp_path / "run"
    config = _pipeline_config(tmp_path, str(model), run)
    config.write_text(config.read_text().replace(f"eval: {{tasks: {TASKS}", "eval: {tasks: nope.jsonl"))
    holder = _holding(run, "pipeline", "--out", str(run))
    try:
        done = _coderl("pipeline", "--config", str(config))
    finally:
        holder.stdin.close()
        holder.wait()
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr[-3000:]
    assert lines[0].startswith(f"coderl pipeline: error: {config}: out {run}: in use by pid {holder.pid}"), lines


@pytest.mark.parametrize("held, given", [
    ("r.jsonl", "r.jsonl.summary.json"),  # check's summary beside its results
    ("r.jsonl", "r.jsonl.skipped_rows.txt"),  # --skip-bad-rows' list
    ("leaks", "leaks.md"),  # decontaminate's prefix
    ("r.jsonl.summary.json", "r.jsonl"),  # and the other way: an output whose sidecar another command writes
])
def test_an_outputs_sidecar_files_are_held_with_it(tmp_path, held, given):
    """issue 102: the lock covered OUT alone; a second command could write OUT.summary.json meanwhile."""
    holder = _holding(tmp_path / held, "check", "--out", str(tmp_path / held))
    try:
        with pytest.raises(ConfigError) as info:
            with owned(("--out", str(tmp_path / given))):
                pass
    finally:
        holder.stdin.close()
        holder.wait()
    said = str(info.value)
    assert said.startswith(f"--out {tmp_path / given}: ") and f"in use by pid {holder.pid}" in said, said
    assert str(tmp_path / held) in said and "\n" not in said
    with owned(("--out", str(tmp_path / given))):  # free once the holder is gone
        pass
    with owned(("--out", str(tmp_path / "r2.jsonl"))), owned(("--out", str(tmp_path / "r2.jsonl.v2"))):
        pass  # other names, not sidecars: free
    with owned(("--out", str(tmp_path / "r3.jsonl")), ("--time-limits", str(tmp_path / "r3.jsonl.json"))):
        pass  # one command's own outputs side by side
