"""Per-family pass rates in eval summaries (the corpus's difficulty map)."""

from coderl.eval.run import by_family
from coderl.tasks.types import Task


def test_by_family_averages_per_task_pass_rates():
    tasks = [Task(f"t/{i}", "function", "", (), metadata={"family": fam}) for i, fam in enumerate("aab")]
    tasks.append(Task("t/3", "function", "", ()))  # no family: not counted
    counts = {"t/0": [2, 2], "t/1": [2, 1], "t/2": [4, 0], "t/3": [1, 1]}
    # a: (2/2 + 1/2) / 2 = 0.75, one task all passed; b: 0/4
    assert by_family(tasks, counts) == {"a": {"tasks": 2, "pass_rate": 0.75, "tasks_passed": 1},
                                        "b": {"tasks": 1, "pass_rate": 0.0, "tasks_passed": 0}}
    assert by_family(tasks[3:], counts) == {}
