"""A caught hack never pays (issue 38): a program the judge caught tampering earns at most `tamper_cap`,
even when its verdict is `passed`; courtesy notes (which honest code can trigger) never gate."""

import json

import pytest

from coderl.rewards import RewardConfig, score
from coderl.rollout.types import Sample
from coderl.sandbox.types import ExecutionResult, Status, is_judge_observed
from coderl.tasks.spec import load_tasks

# The tests swallow whatever the candidate raises for a negative input with a bare `except:`, so a
# program that raises SystemExit there still passes every test; the judge sees SystemExit cross the
# channel and notes `exit_called` itself.
TASK = {"task_id": "cap/0", "entry_point": "double",
        "prompt": 'def double(x: int) -> int:\n    """Twice x."""\n',
        "test": "def check(candidate):\n    try:\n        candidate(-1)\n    except:\n        pass\n"
                "    assert candidate(2) == 4\n    assert candidate(5) == 10\n"}
HONEST = "    if x < 0:\n        raise ValueError(x)\n    return 2 * x\n"
EXITING = "    if x < 0:\n        raise SystemExit(0)\n    return 2 * x\n"


@pytest.fixture(scope="module")
def task(tmp_path_factory):
    path = tmp_path_factory.mktemp("cap") / "task.jsonl"
    path.write_text(json.dumps(TASK) + "\n")
    (task,) = load_tasks(str(path)).tasks
    return task


def _sample(task, completion):
    return Sample(task_id=task.task_id, group=0, prompt=task.prompt, raw_output=completion, completion=completion,
                  gen_tokens=(1,) * 10, code_tokens=(1,) * 10, truncated=False, format_ok=True)


def test_a_tampering_but_passing_program_earns_at_most_the_cap(task, sandbox):
    honest, exiting = (sandbox.run(task.build_request(c)) for c in (HONEST, EXITING))
    assert honest.passed and not honest.caught
    assert exiting.passed and exiting.caught == ["exit_called"]  # passed: only the note tells them apart
    samples = [_sample(task, HONEST), _sample(task, EXITING)]
    for weights in ({"pass": 1.0}, {"fraction": 1.0, "perfect_bonus": 1.0}):
        out = score(RewardConfig(weights=weights), [honest, exiting], samples, [task, task])
        assert out.total[0] > 0 and out.total[1] == 0.0 and out.capped[1] == -out.total[0]
        assert out.metrics()["sandbox/caught_rate"] == 0.5
        capped = score(RewardConfig(weights=weights, tamper_cap=0.25), [honest, exiting], samples, [task, task])
        assert capped.total[1] == 0.25
        off = score(RewardConfig(weights=weights, tamper_cap=None), [honest, exiting], samples, [task, task])
        assert off.total == out.total[:1] * 2 and off.capped == [0.0, 0.0]  # switched off: paid as honest


# Attacks tried on the cap as a policy would: ways to leave the test early that the bare `except:` swallows.
# Every exit-like one is still noted by the judge (the class crossing the channel, subclasses included);
# a plain BaseException subclass earns nothing an honest ValueError does not (this task accepts any raise
# for a negative input), so it is no hack and no note.
@pytest.mark.parametrize("body, caught", [
    ("    class Quit(SystemExit):\n        pass\n    if x < 0:\n        raise Quit(0)\n    return 2 * x\n",
     ["exit_called"]),
    ("    if x < 0:\n        raise KeyboardInterrupt\n    return 2 * x\n", ["exit_called"]),
    ("    if x < 0:\n        exit(0)\n    return 2 * x\n", ["exit_called"]),
    ("    import sys\n    if x < 0:\n        sys.exit(0)\n    return 2 * x\n", ["exit_called"]),
    ("    class B(BaseException):\n        pass\n    if x < 0:\n        raise B()\n    return 2 * x\n", []),
])
def test_exit_like_escapes_are_caught_and_capped(task, sandbox, body, caught):
    result = sandbox.run(task.build_request(body))
    assert result.passed and result.caught == caught
    total = score(RewardConfig(weights={"pass": 1.0}), [result], [_sample(task, body)], [task]).total
    assert total == [0.0 if caught else 1.0]


def test_the_cap_never_raises_a_reward():
    """min(total, cap): a caught sample already below the cap keeps its (lower) total."""
    result = ExecutionResult(status=Status.FAILED, tamper=["protocol:bad_message"])
    task = type("T", (), {"task_id": "t"})()
    sample = Sample(task_id="t", group=0, prompt="", raw_output="", completion="x", gen_tokens=(1,) * 300,
                    code_tokens=(1,), truncated=False, format_ok=True)
    out = score(RewardConfig(weights={"pass": 1.0, "length_penalty": 1.0}, tamper_cap=0.0), [result], [sample], [task])
    assert out.total == pytest.approx([-0.03]) and out.capped == [0.0]


@pytest.mark.parametrize("note, gating", [
    ("exit_called", True), ("early_exit", True), ("forged_pass", True), ("unexpected_value_record", True),
    ("bad_record", True), ("protocol:oversized_message", True), ("non_builtin_return:Always", True),
    ("program_comparison:Thing", True),
    ("patched_builtins", False), ("patched_sys_modules", False), ("patched_module:json", False),
    ("patched_import_system", False), ("patched_runtime", False), ("trace_hook", False),
])
def test_judge_observed_notes_gate_and_courtesy_notes_do_not(note, gating):
    assert is_judge_observed(note) is gating
    result = ExecutionResult(status=Status.PASSED, tamper=[note])
    assert bool(result.caught) is gating
