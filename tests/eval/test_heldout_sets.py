"""The held-out composition sets docs/models-and-eval.md names: their task and level-2 composition counts, and the
demo's set a prefix of the full one (the counts the report's intervals resample)."""

import pytest

from coderl.eval.run import task_clusters
from coderl.tasks import load_tasks


@pytest.mark.parametrize("spec, tasks, compositions", [
    ("synthetic:level=2,n=400,split=test", 400, 256),
    ("synthetic:level=2,n=400,split=valid", 400, 260),
    ("synthetic:level=2,n=200,split=test", 200, 200),
])
def test_held_out_sets_cover_enough_compositions(spec, tasks, compositions):
    got = load_tasks(spec).tasks
    clusters = task_clusters(got)
    assert len(got) == tasks and len(set(clusters.values())) == compositions
    assert all(len(t.metadata["composition"]) == 2 for t in got)


def test_the_demo_set_is_a_prefix_of_the_full_one():
    small, full = (load_tasks(f"synthetic:level=2,n={n},split=test").tasks for n in (200, 400))
    assert [(t.task_id, t.prompt) for t in small] == [(t.task_id, t.prompt) for t in full[:200]]
