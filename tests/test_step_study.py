"""scripts/step_study.py (issue 103's step study): its answer shapes by hand, its paired differences as `coderl
compare`'s, and its entropy against a plain forward of each answer alone, on tiny models' real evaluation runs."""

import json
import math

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import build  # noqa: E402
from coderl.eval.compare import paired  # noqa: E402
from coderl.eval.run import EvalConfig, run_eval  # noqa: E402
from scripts import step_study  # noqa: E402
from tests.models.tiny import tiny_llama  # noqa: E402

TASKS = "tests/fixtures/tasks/humaneval_small.jsonl"


@pytest.mark.parametrize("code, one", [
    ("def f(x):\n    return x + 1\n", True),
    ('def f(x):\n    """Doc."""\n    import math\n    return math.floor(x)\n', True),
    ("def f(x):\n    y = x + 1\n    return y\n", False),
    ("def g(x):\n    return x\n\ndef f(x):\n    return g(x)\n", False),  # a helper: not one line
    ("import os\ndef f(x):\n    return [i for i in range(x)\n", False),  # does not parse
    ("x = 1\n", False),  # no function
    ("def f(x):\n    if x:\n        return 1\n", True),  # one (compound) statement
])
def test_one_statement_counts_the_body_less_docstring_and_imports(code, one):
    assert step_study.one_statement(code) is one


def test_answer_shares_by_hand():
    rows = [{"completion": "def f(x):\n    return x\n", "status": "passed"},
            {"completion": "def f(x):\n    y = x\n    return y\n", "status": "runtime_error"},
            {"completion": "def f(x):\n    return (\n", "status": "syntax_error"},
            {"completion": "def f(x):\n    return -x\n", "status": "failed"}]
    assert step_study.answers(rows) == {"one_line": 0.5, "errors": 0.5}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """{(model seed, kind): run dir}: greedy and sampled evaluations of two tiny random models."""
    root = tmp_path_factory.mktemp("study")
    out = {}
    for seed in (0, 1):
        model = str(tiny_llama(root / f"m{seed}", seed=seed))
        for kind, kw in (("greedy", {}), ("sampled", {"samples": 3, "temperature": 0.7})):
            run = root / f"{kind}{seed}"
            run_eval(build(EvalConfig, dict(out=str(run), model=model, tasks=TASKS, format="completion",
                                            max_new_tokens=6, workers=2, **kw)), log=lambda m: None)
            out[seed, kind] = str(run)
    return out


def _plain_entropy(run: str) -> float:
    """The entropy per generated token, each answer alone through an unpadded forward at the run's temperature."""
    from coderl.models import load_model

    summary = json.load(open(f"{run}/summary.json"))
    loaded = load_model(summary["config"]["model"])
    tok, t = loaded.tokenizer, summary["temperature"]
    total = count = 0.0
    for line in open(f"{run}/samples.jsonl"):
        row = json.loads(line)
        p = tok(row["prompt"], add_special_tokens=False)["input_ids"]
        o = tok(row["raw_output"], add_special_tokens=False)["input_ids"] + ([] if row["truncated"] else
                                                                            [tok.eos_token_id])
        with torch.no_grad():
            logits = loaded.model(torch.tensor([p + o])).logits[0, len(p) - 1:len(p) + len(o) - 1].double() / t
        logp = logits.log_softmax(-1)
        total += float(-(logp.exp() * logp).sum())
        count += len(o)
    return total / count


def test_the_study_of_two_checkpoints(runs, tmp_path, capsys):
    out = tmp_path / "records.json"
    argv = ["--row", "0 (SFT)", runs[0, "greedy"], runs[0, "sampled"],
            "--row", "10", runs[1, "greedy"], runs[1, "sampled"], "--entropy", "--json", str(out)]
    assert step_study.main(argv) == 0
    table = capsys.readouterr().out
    records = json.loads(out.read_text())
    assert [r["label"] for r in records] == ["0 (SFT)", "10"]
    assert "paired" not in records[0]["greedy"]
    for kind in ("greedy", "sampled"):
        summary = json.load(open(f"{runs[1, kind]}/summary.json"))
        assert records[1][kind]["pass@1"] == summary["pass_at_k"]["pass@1"]
        assert records[1][kind]["length"] == summary["avg_gen_tokens"]
        assert records[1][kind]["paired"] == paired(runs[0, kind], runs[1, kind])
    for seed in (0, 1):
        assert math.isclose(records[seed]["sampled"]["entropy"], _plain_entropy(runs[seed, "sampled"]),
                            rel_tol=1e-4)
    assert len(table.splitlines()) == 4 and table.count("| 10 |") == 1


def test_a_row_without_a_finished_run_is_one_line(tmp_path, capsys):
    assert step_study.main(["--row", "0", str(tmp_path), str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "summary.json" in err


def test_runs_of_other_tasks_or_a_broken_samples_file_are_one_line(runs, tmp_path, capsys):
    import shutil

    other = tmp_path / "other"
    shutil.copytree(runs[1, "greedy"], other)
    rows = (other / "samples.jsonl").read_text().splitlines()
    (other / "samples.jsonl").write_text("\n".join(rows[1:]) + "\n")  # one task fewer
    argv = ["--row", "0", runs[0, "greedy"], runs[0, "sampled"], "--row", "1", str(other), runs[1, "sampled"]]
    assert step_study.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "different task sets" in err and str(other) in err
    (other / "samples.jsonl").write_text("{not json\n")
    assert step_study.main(["--row", "0", str(other), runs[0, "sampled"]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "invalid JSON" in err
