"""coderl's verdicts against the upstream graders' own (issue 100, item 5): the fixtures of tests/fixtures/upstream
(their sources in its README)."""

from __future__ import annotations

import json
import os

import pytest

FIXTURES = os.path.join(os.path.dirname(os.path.dirname(__file__)), "fixtures", "upstream")
NEMO = os.path.join(FIXTURES, "nemo_gym_code_gen_example.jsonl")


def _rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


@pytest.mark.parametrize("compare, passes", [(None, 1), ("tokens", 3)])
def test_nemo_gym_example_rollouts_get_nemo_gyms_recorded_verdicts(sandbox, compare, passes):
    """NeMo Gym passed 1 of its 5 example rollouts; coderl's own token rule passed 3 (two print the right tokens on
    other lines); the nemotron-rl preset's rule (`nemo-gym`) agrees with NeMo Gym on all 5."""
    from coderl.tasks import load_tasks

    rows = _rows(NEMO)
    spec = f"hf:{NEMO}:preset=nemotron-rl" + (f",compare={compare}" if compare else "")
    tasks = {t.task_id: t for t in load_tasks(spec).tasks}
    verdicts = [sandbox.run(tasks[r["hash_id"]].build_request(r["program"])).passed for r in rows]
    upstream = [r["upstream_reward"] == 1.0 for r in rows]
    assert sum(verdicts) == passes and sum(upstream) == 1
    if compare is None:
        assert verdicts == upstream
        from coderl.tasks.loaders.stdio import load_stdio

        assert {t.metadata["compare"] for t in load_stdio(NEMO)} == {"nemo-gym"}  # a JSONL file of its rows too


def test_nemotron_rows_whose_statement_allows_several_answers_are_marked(tmp_path):
    from coderl.tasks import load_tasks
    from coderl.tasks.types import TaskFormatError

    tasks = load_tasks(f"hf:{NEMO}:preset=nemotron-rl").tasks
    marked = {t.task_id: t.metadata.get("several_answers") for t in tasks if t.metadata.get("several_answers")}
    assert marked == {"c69268d8bdb4da0685d7b187c88296c1": "many answers",  # "If there are many answers you can print any
                      "ff86821ed6f7260c7a17c4c9be03b663": "several solutions"}  # of them" / "several solutions, ..."
    with pytest.raises(TaskFormatError, match=r"row 2: the problem says several outputs are right \('several solutions'\)"):
        load_tasks(f"hf:{NEMO}:preset=nemotron-rl,several_answers=refuse")
    with pytest.raises(TaskFormatError, match=r"several_answers=maybe: expected judge"):
        load_tasks(f"hf:{NEMO}:preset=nemotron-rl,several_answers=maybe")


def _script():
    import importlib.util

    path = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(__file__))), "scripts", "upstream_verdicts.py")
    spec = importlib.util.spec_from_file_location("upstream_verdicts", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_coderl_agrees_with_the_upstream_graders_on_every_recorded_program(sandbox):
    """LiveCodeBench's, NeMo Gym's, APPS's, TACO's, verl's prime_code and rLLM's testing code, open-r1's code_reward and
    MultiPL-E's JavaScript suites under Node, run by scripts/upstream_verdicts.py inside
    coderl's sandbox on coderl/eval/upstream_cases.py's programs (right, wrong, near-miss formatting, type-loose
    values): coderl's verdict under each preset's rule is the grader's on every program but the documented ones."""
    script = _script()
    records = _rows(os.path.join(FIXTURES, "grader_verdicts.jsonl"))
    assert {r["grader"] for r in records} == set(script.GRADERS) and all("driver_error" not in r for r in records)
    kinds = [c["kind"] for c in script.cases()]
    assert len(records) == sum(sum(k in script.KINDS.get(g, {"stdio", "call"}) for k in kinds) for g in script.GRADERS)
    import shutil

    if shutil.which("node") is None:  # MultiPL-E's JavaScript programs need Node (docs/languages.md)
        records = [r for r in records if r["grader"] != "multipl-e-js"]
    ours = script.coderl_verdicts(records, sandbox)
    differ = {(r["grader"], r["case"]) for r, mine in zip(records, ours) if mine != r["upstream_pass"]}
    assert differ == set(script.DISAGREEMENTS)
    assert sum(r["upstream_pass"] for r in records if r["grader"] != "multipl-e-js") == 140  # RESULTS.md, "Verdicts
    # against the datasets' own graders": 151 of 297 with MultiPL-E's 11 of 16
