"""Tests whose verdict depends on sharing between the test and the program (issue 99 item 3) are refused at load:
values cross as copies, so a lazy program (a shallow copy, its internal list returned, its argument kept) would pass
them here and fail them in one Python process.  Each documented shape is shown passing a lazy program when the check
is left out, and refused in one line with it; the bundled sets lose no task to the rule."""

import json

import pytest

from coderl.sandbox import Sandbox
from coderl.tasks import load_tasks
from coderl.tasks.copy_shapes import copy_shape, function_task_blocks
from coderl.tasks.rows import skipping_bad_rows
from coderl.tasks.types import TaskFormatError

SHAPES = {
    # a shallow copy returned: the test changes the copy's inner list, then reads its argument
    "shallow copy": ("def grid_copy(m):\n    return list(m)\n",
                     "m = [[1, 2], [3, 4]]\nr = grid_copy(m)\nr[0][0] = 9\nassert m[0][0] == 1"),
    # a method returns its internal list: the test changes it, then asks the object
    "internal list": ("class Stack:\n    def __init__(self):\n        self._items = []\n\n"
                      "    def push(self, x):\n        self._items.append(x)\n\n"
                      "    def items(self):\n        return self._items\n\n    def size(self):\n        return len(self._items)\n",
                      "s = Stack()\ns.push(1)\nxs = s.items()\nxs.append(5)\nassert s.size() == 1"),
    # a closure keeps its argument: the test changes the argument, then calls the closure
    "closure": ("def counter_of(xs):\n    return lambda: len(xs)\n",
                "xs = [1]\ng = counter_of(xs)\nxs.append(2)\nassert g() == 1"),
    # an object keeps its argument: the test changes the argument, then asks the object
    "kept argument": ("class Bag:\n    def __init__(self, items):\n        self.items = items\n\n"
                      "    def size(self):\n        return len(self.items)\n",
                      "items = [1, 2]\nb = Bag(items)\nitems.append(3)\nassert b.size() == 2"),
}


def _file(tmp_path, name, code, test):
    path = tmp_path / f"{name.replace(' ', '_')}.jsonl"
    path.write_text(json.dumps({"task_id": 1, "text": f"Write it ({name}).", "code": code, "test_list": [test]}) + "\n")
    return f"mbpp:{path}"


@pytest.mark.parametrize("name", sorted(SHAPES))
def test_a_lazy_program_passes_a_sharing_test_so_the_task_is_refused_at_load(name, tmp_path, monkeypatch):
    code, test = SHAPES[name]
    spec = _file(tmp_path, name, code, test)
    with pytest.raises(TaskFormatError) as refused:
        load_tasks(spec)
    message = str(refused.value)
    assert "\n" not in message and "test 0 changes" in message and "values cross between the tests and the program "\
        "as copies" in message, message
    with skipping_bad_rows() as skipped:  # --skip-bad-rows: left out and said, the rest loads
        with pytest.raises(TaskFormatError, match="holds no tasks"):
            load_tasks(spec)
    assert len(skipped) == 1 and "changes" in skipped[0]
    # why: without the rule the lazy program (the one above: it shares) passes here, where Python fails it
    monkeypatch.setattr("coderl.tasks.copy_shapes.task_copy_shape", lambda task: None)
    [task] = load_tasks(spec).tasks
    with Sandbox(workers=1) as sandbox:
        assert sandbox.run(task.build_request(code)).passed


def test_what_only_reads_itself_or_the_programs_objects_is_not_refused():
    def why(test, program=("f", "candidate"), classes=()):
        return copy_shape(function_task_blocks([type("T", (), {"id": "t", "setup": "", "source": test})()]),
                          program, classes)

    assert why("r = f([1, 2])\nr.append(3)\nassert r == [1, 2, 3]") is None  # a copy in both worlds
    assert why("xs = [3, 1]\nf(xs)\nassert xs == [1, 3]") is None  # the program's change copied back
    assert why("assert f([1]) == [1]\nassert f([2]) == [2]") is None
    assert why("s = Stack()\ns.items = [1]\nassert s.size() == 1", ("Stack",), ("Stack",)) is None  # a handle
    assert why("r = f([1])\nr[0] = 2\nassert f([1]) == [1]") is not None  # changed, then the program again


def test_the_bundled_sets_lose_no_task_to_the_rule(monkeypatch):
    from coderl.tasks.copy_shapes import task_copy_shape

    monkeypatch.setattr("coderl.tasks.spec._checked", lambda taskset, skipped: taskset)  # every task, unchecked
    for spec in ("humaneval", "easy", "corpus", "synthetic", "pool"):
        assert [t.task_id for t in load_tasks(spec).tasks if task_copy_shape(t)] == [], spec
