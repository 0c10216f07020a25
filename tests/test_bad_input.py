"""Bad input in every command: exit 2, exactly one line on stderr (`coderl CMD: error: ...`) naming the thing, no
traceback, before any model loads, and nothing left behind that was not there before.  In-process through
`coderl.cli.main`, so the whole matrix runs in seconds (no model is built; a loaded model fails the test).

Classes: a missing, empty or malformed input; a value of the wrong type; an output that cannot be written (a file
as its parent, a folder where a file goes, a read-only folder: `os.access` says so, as it does on a read-only
mount); an output that is an input; an existing output without --overwrite; a full disk (every write under the
test's folder fails with ENOSPC).  And the other side: an internal error (a bug) is not reported as bad input.
"""

from __future__ import annotations

import builtins
import errno
import json
import os
import shutil
from pathlib import Path

import pytest

from coderl.cli import main

TASKS = Path("tests/fixtures/tasks/humaneval_small.jsonl").resolve()
MODEL = "model"  # a folder with a config.json: resolves as a model, and loading it fails the test


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A folder of inputs: good tasks, completions, a run to compare, configs; bad ones of each kind."""
    monkeypatch.chdir(tmp_path)
    shutil.copy(TASKS, "tasks.jsonl")
    Path("single.jsonl").write_text(TASKS.read_text().splitlines()[0] + "\n")  # its test split is empty
    Path("empty.jsonl").write_text("")
    Path("bad.jsonl").write_text('{"task_id": "Toy/0", \n')
    Path("repo_rows.jsonl").write_text('{"task_id": "r/0"}\n')  # a repository row without its fields
    Path("completions.jsonl").write_text(json.dumps({"task_id": "Toy/0", "completion": "    return a + b\n"}) + "\n")
    Path("afile").write_text("not a folder\n")
    Path("folder").mkdir()
    Path("readonly").mkdir()
    Path(MODEL).mkdir()
    Path(MODEL, "config.json").write_text("{}")
    Path("run").mkdir()
    Path("run", "summary.json").write_text(json.dumps({"label": "x", "method": "base", "pass_at_k": {"pass@1": 0.5},
                                                      "tasks_all_passed": 1, "num_tasks": 2, "avg_gen_tokens": 3}))
    Path("badrun").mkdir()
    Path("badrun", "summary.json").write_text("{")
    Path("exclude.md").write_text("Toy/0\n")
    Path("dup.yaml").write_text("steps: 2\nlearning_rate: 1e-5\nsteps: 3\n")
    Path("typo.yaml").write_text("stpes: 2\n")
    Path("wrongtype.yaml").write_text("steps: many\n")
    Path("malformed.yaml").write_text("steps: 2\nlora: [r: 8\n")
    Path("empty.yaml").write_text("")
    Path("pipe-typo.yaml").write_text("out: p\nmodle: x\n")
    Path("pipe-dup.yaml").write_text("out: p\nseed: 1\nseed: 2\n")
    for name, weights in (("truncated", 4), ("noweights", None)):  # adapters: 4 of a tensor's 8 bytes, none
        Path(name).mkdir()
        Path(name, "adapter_config.json").write_text(json.dumps({"base_model_name_or_path": MODEL}))
        if weights:
            header = json.dumps({"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}).encode()
            Path(name, "adapter_model.safetensors").write_bytes(len(header).to_bytes(8, "little") + header
                                                                + bytes(weights))
    Path("trainrun", "checkpoints", "step-2").mkdir(parents=True)  # a run folder, given as --model
    Path("nofield.jsonl").write_text(json.dumps({"task_id": "Toy/0"}) + "\n")
    Path("unknownid.jsonl").write_text(json.dumps({"task_id": "Nope/9", "completion": "x"}) + "\n")
    Path("list.jsonl").write_text("[1, 2]\n")
    Path("notes.txt").write_text("hello\n")
    Path("list.yaml").write_text("- 1\n- 2\n")
    Path("lora-int.yaml").write_text("lora: 5\n")
    Path("no-overlap.yaml").write_text("check_overlap: false\n")
    Path("nested-typo.yaml").write_text("lora:\n  rr: 8\n")
    Path("pipe-wrongtype.yaml").write_text("out: p\nmodel: model\nseed: many\n")
    evalplus = Path(TASKS).parent / "evalplus"  # HumanEval+ and MBPP+ rows: one without its tests, one malformed
    he, mb = (json.loads((evalplus / f"{n}_small.jsonl").read_text().splitlines()[0]) for n in ("humanevalplus",
                                                                                               "mbppplus"))
    Path("he-notest.jsonl").write_text(json.dumps({k: v for k, v in he.items() if k != "test"}) + "\n")
    Path("he-badtest.jsonl").write_text(json.dumps({**he, "test": "def check(candidate):\n    inputs = [[1]\n"}) + "\n")
    Path("mb-notest.jsonl").write_text(json.dumps({**mb, "test_list": []}) + "\n")
    Path("mb-badtest.jsonl").write_text(json.dumps({**mb, "test": mb["test"].replace("for i, (inp", "for (i, inp")})
                                        + "\n")
    Path("partrun").mkdir()  # an interrupted evaluation
    Path("partrun", "samples.jsonl.partial").write_text(json.dumps({"batch_size": 1, "config": {}}) + "\n")
    Path("trainrun", "config.yaml").write_text("steps: 2\n")
    Path("allbad.jsonl").write_text('{"task_id": \n{oops\n')  # every line invalid JSON
    multipl_e = {"name": "HumanEval_12_longest", "language": "js", "prompt": "function longest(strings){\n",
                 "tests": "const assert = require('node:assert');\nfunction test() {\n  let candidate = longest;\n"
                          "  assert.deepEqual(candidate([]),undefined);\n  assert.deepEqual(candidate(xs),\"x\");\n}\n"
                          "test();"}  # MultiPL-E's layout (tests/tasks/multipl_e_rows.py); its 2nd test a variable
    Path("multipl-e-call.jsonl").write_text(json.dumps(multipl_e) + "\n")
    Path("multipl-e-notests.jsonl").write_text(json.dumps({k: v for k, v in multipl_e.items() if k != "tests"}) + "\n")
    for name, row in CONTEST_ROWS.items():  # issue 77's contest presets: a row missing its tests, a malformed row
        Path(f"{name}.jsonl").write_text(json.dumps(row) + "\n")
    kodcode = {"question_id": "K/0", "question": "Add.", "solution": "def add(a, b):\n    return a + b\n",
               "test": "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"}  # KodCode-V1's
    for name, change in (("kc-notest", {"test": None}), ("kc-syntax", {"test": "def test_add(:\n"}),
                         ("kc-unsupported", {"test": "def test_add(monkeypatch):\n    pass\n"})):
        row = {k: v for k, v in {**kodcode, **change}.items() if v is not None}
        Path(f"{name}.jsonl").write_text(json.dumps(row) + "\n")
    fake_checkpoint("cutrun", 2, steps=2, cut="adapter_model.safetensors")  # its only checkpoint cut short
    fake_checkpoint("cutrun", 1, steps=2, cut="trainer_state.pt")
    Path("cutrun", "config.yaml").write_text("seed: 0\n")
    fake_checkpoint("halfrun", 1, steps=2)  # its only checkpoint unfinished: no manifest, a file cut short
    Path("halfrun", "checkpoints", "step-1", "manifest.json").unlink()
    Path("halfrun", "checkpoints", "step-1", "trainer_state.pt").write_bytes(b"state")
    Path("halfrun", "config.yaml").write_text("seed: 0\n")
    from coderl.base.outputs import write_yaml
    from coderl.train.config import TrainConfig

    Path("grownrun").mkdir()  # a run started for 2 steps, grown to 3 with --resume --steps 3
    write_yaml("grownrun/config.yaml", TrainConfig(model=MODEL, tasks="tasks.jsonl", out="grownrun", device="cpu",
                                                   steps=2).to_dict())
    fake_checkpoint("grownrun", 3, steps=3)
    Path("leak-train.jsonl").write_text(json.dumps({  # another name and prompt, the same behaviour as eval's Toy/0
        "task_id": "Sum/0", "prompt": "def plus(x, y):\n    \"\"\"Return x plus y.\"\"\"\n",
        "canonical_solution": "    return x + y\n", "test": "def check(candidate):\n    assert candidate(2, 2) == 4\n",
        "entry_point": "plus"}) + "\n")
    Path("leak.yaml").write_text(f"out: leakout\nmodel: {MODEL}\nformat: completion\ndevice: cpu\n"
                                 "eval:\n  tasks: tasks.jsonl\n  limit: 1\nsft: null\n"
                                 "rl:\n  - name: grpo\n    algo: grpo\n    tasks: leak-train.jsonl\n"
                                 "    eval_tasks: null\n    steps: 1\n")
    monkeypatch.setenv("CODERL_CACHE", str(tmp_path.parent / f"{tmp_path.name}-cache"))  # outside the place
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode, **kw: (Path(p).name != "readonly" or not mode & os.W_OK)
                        and real_access(p, mode, **kw))
    import coderl.models

    def no_model(*args, **kwargs):
        raise AssertionError("a model was loaded before the bad input was found")

    monkeypatch.setattr(coderl.models, "load_model", no_model)
    return tmp_path


_NEMO = {"responses_create_params": {"input": [{"role": "user", "content": "Print 1."}]}, "hash_id": "h"}
_PRIME = {"problem_id": "p", "prompt": "Print 1."}
_CF = {"id": "1/A", "description": "Print 1.", "input_mode": "stdio", "official_tests_complete": True}
CONTEST_ROWS = {
    "nemo-notests": {**_NEMO, "verifier_metadata": {}},
    "nemo-bad": {**_NEMO, "verifier_metadata": {"unit_tests": {"inputs": "1", "outputs": ["1"]}}},
    "prime-notests": {**_PRIME, "verification_info": json.dumps({"language": "python", "test_cases": []})},
    "prime-bad": {**_PRIME, "verification_info": "{'test_cases': ["},
    "cf-notests": {**_CF, "examples": [], "official_tests": []},
    "cf-bad": {**_CF, "examples": [{"input": "", "output": 1}], "official_tests": []},
    "deep-notests": {"problem": "Print 1.", "metadata": "{}"},
    "deep-bad": {"problem": "Print 1.", "tests": "[{'input': ", "metadata": "{}"},
}


def fake_checkpoint(run: str, step: int, *, steps: int, cut: str | None = None) -> None:
    """RUN/checkpoints/step-N with an adapter and a trainer state (bytes, not loaded) and their manifest, as
    `save_checkpoint` writes it; `cut`: that file then loses its second half, as a disk that filled leaves it."""
    import hashlib

    folder = Path(run, "checkpoints", f"step-{step}")
    folder.mkdir(parents=True)
    files = {"adapter_model.safetensors": bytes(range(256)) * 4, "trainer_state.pt": b"state" * 100}
    manifest = {}
    for name, data in files.items():
        (folder / name).write_bytes(data[: len(data) // 2] if name == cut else data)
        manifest[name] = {"size": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    (folder / "manifest.json").write_text(json.dumps({"step": step, "steps": steps, "files": manifest}))


def files(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


def run(argv: list[str], capsys) -> tuple[int, list[str]]:
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.err.strip().splitlines()


TRAIN = ["train", "--model", MODEL, "--tasks", "tasks.jsonl", "--device", "cpu"]
SFT = ["sft", "--model", MODEL, "--data", "tasks.jsonl", "--device", "cpu"]
EVAL = ["eval", "--model", MODEL, "--tasks", "tasks.jsonl", "--device", "cpu"]
CHECK = ["check", "--tasks", "tasks.jsonl"]
KODCODE = f"hf:{TASKS.parent / 'kodcode_small.jsonl'}:preset=kodcode"  # test-file tasks
EXPORT = ["tasks", "export", "--tasks", "tasks.jsonl", "--format", "jsonl"]

# (command, class, argv, what the line must say)
CASES = [
    # check
    ("check", "missing", ["check", "--tasks", "nope.jsonl", "--reference"], "nope.jsonl': no such file"),
    ("check", "no pool", ["check", "--tasks", "repo:nopool", "--reference"], "repository pool 'nopool': no tasks.jsonl"),
    ("check", "repository row", ["check", "--tasks", "repo:repo_rows.jsonl", "--reference"],
     "repo_rows.jsonl:1: missing field(s) tree, fail_to_pass, issue"),
    ("tasks repos", "unknown repository", ["tasks", "repos", "--out", "pool", "--repos", "nosuch"],
     "no repository source named 'nosuch'"),
    ("tasks oracle", "repository row", ["tasks", "oracle", "--tasks", "repo:repo_rows.jsonl", "--out", "t.jsonl"],
     "repo_rows.jsonl:1: missing field(s)"),
    ("tasks oracle", "output cut", ["tasks", "oracle", "--tasks", "repo:p", "--out", "t.jsonl", "--output-chars", "50"],
     "--output-chars=50: expected an integer >= 100"),
    ("check", "empty", ["check", "--tasks", "empty.jsonl", "--reference"], "empty.jsonl: no rows"),
    ("check", "empty split", ["check", "--tasks", "single.jsonl", "--split", "test", "--reference"], "holds no tasks"),
    ("check", "malformed", ["check", "--tasks", "bad.jsonl", "--reference"], "bad.jsonl:1: invalid JSON"),
    ("check", "malformed", [*CHECK, "--completions", "bad.jsonl"], "bad.jsonl:1: invalid JSON"),
    ("check", "missing", [*CHECK, "--completions", "nope.jsonl"], "nope.jsonl: cannot read"),
    ("check", "empty", [*CHECK, "--completions", "empty.jsonl"], "empty.jsonl: no completions"),
    ("check", "outside the split", [*CHECK, "--completions", "completions.jsonl", "--split", "train"],
     "(split train: another split of them"),
    ("check", "unknown split", ["check", "--tasks", "easy@tset", "--reference"], "unknown split @tset (did you mean"),
    ("check", "wrong type", [*CHECK, "--reference", "--workers", "many"], "--workers: invalid int value"),
    ("check", "unknown flag", [*CHECK, "--reference", "--workrs", "2"], "did you mean '--workers'"),
    ("train", "unknown flag", [*TRAIN, "--out", "t", "--lr", "1e-4"],  # not taken for the YAML-only --lr-schedule
     "unrecognized arguments: --lr 1e-4 (did you mean '--learning-rate'?)"),
    ("launch", "typo", ["launch", "--num_processe", "2", *TRAIN, "--out", "t"],
     "coderl launch: error: unrecognized accelerate launch option: --num_processe (did you mean '--num_processes'?)"),
    ("launch", "bad value", ["launch", "--mixed_precision", "fp7", *TRAIN, "--out", "t"],
     "coderl launch: error: argument --mixed_precision/--mixed-precision: invalid choice: 'fp7'"),
    ("check", "output = input", [*CHECK, "--completions", "completions.jsonl", "--out", "completions.jsonl"],
     "is --completions"),
    ("check", "output = input", [*CHECK, "--reference", "--out", "tasks.jsonl"], "is --tasks"),
    ("check", "file as parent", [*CHECK, "--reference", "--out", "afile/r.jsonl"], "is a file, not a folder"),
    ("check", "folder as file", [*CHECK, "--reference", "--out", "folder"], "is a folder; expected a file"),
    ("check", "unwritable", [*CHECK, "--reference", "--out", "readonly/r.jsonl"], "cannot write in"),
    ("check", "existing", [*CHECK, "--reference", "--out", "exclude.md"], "pass --overwrite"),
    # eval
    ("eval", "missing", [*EVAL[:4], "nope.jsonl", "--out", "e"], "no such file"),
    ("eval", "empty split", [*EVAL[:4], "single.jsonl", "--split", "test", "--out", "e"], "holds no tasks"),
    ("eval", "no valid split", [*EVAL[:4], "single.jsonl", "--split", "valid", "--out", "e"],
     "valid exists for synthetic, math and corpus"),
    ("eval", "wrong type", [*EVAL, "--samples", "two", "--out", "e"], "--samples: invalid int value"),
    ("eval", "wrong choice", [*EVAL, "--format", "bogus", "--out", "e"], "invalid choice: 'bogus'"),
    ("eval", "missing model", ["eval", "--model", "nomodel", "--tasks", "tasks.jsonl", "--out", "e"], "not found"),
    ("eval", "truncated adapter", ["eval", "--model", "truncated", "--tasks", "tasks.jsonl", "--out", "e"],
     "adapter_model.safetensors is truncated"),
    ("eval", "adapter without weights", ["eval", "--model", "noweights", "--tasks", "tasks.jsonl", "--out", "e"],
     "no adapter_model.safetensors"),
    ("eval", "run folder as model", ["eval", "--model", "trainrun", "--tasks", "tasks.jsonl", "--out", "e"],
     "a run folder, not a model; give what it saved: trainrun/checkpoints/step-2"),
    ("train", "run folder as model", ["train", "--model", "trainrun", "--tasks", "tasks.jsonl", "--out", "t"],
     "a run folder"),
    ("sft", "truncated adapter", ["sft", "--model", "truncated", "--data", "tasks.jsonl", "--out", "s"],
     "is truncated"),
    ("eval", "file as parent", [*EVAL, "--out", "afile/e"], "is a file, not a folder"),
    ("eval", "file as folder", [*EVAL, "--out", "afile"], "is a file; expected a folder"),
    ("eval", "output = input", [*EVAL, "--out", "tasks.jsonl"], "is a file; expected a folder"),
    ("eval", "unwritable", [*EVAL, "--out", "readonly"], "cannot write in"),
    ("eval", "existing", [*EVAL, "--out", "run"], "already holds summary.json"),
    ("eval", "resume nothing", [*EVAL, "--out", "folder", "--resume"], "folder"),
    # train
    ("train", "missing", [*TRAIN[:4], "nope.jsonl", "--out", "t"], "no such file"),
    ("train", "removed flag", [*TRAIN, "--out", "t", "--self-distill", "0.5"], "--self-distill"),
    ("train", "empty", [*TRAIN[:4], "empty.jsonl", "--out", "t"], "empty.jsonl: no rows"),
    ("train", "empty split", [*TRAIN[:4], "single.jsonl@test", "--out", "t"], "holds no tasks"),
    ("train", "missing config", [*TRAIN, "--out", "t", "--config", "nope.yaml"], "--config nope.yaml: no such file"),
    ("train", "empty config", [*TRAIN, "--out", "t", "--config", "empty.yaml"], "--config empty.yaml: expected"),
    ("train", "malformed config", [*TRAIN, "--out", "t", "--config", "malformed.yaml"], "line 3: invalid YAML"),
    ("train", "duplicate key", [*TRAIN, "--out", "t", "--config", "dup.yaml"], "line 3: field 'steps' given twice"),
    ("train", "unknown key", [*TRAIN, "--out", "t", "--config", "typo.yaml"], "'stpes' (did you mean 'steps'?)"),
    ("train", "wrong type", [*TRAIN, "--out", "t", "--config", "wrongtype.yaml"], "steps"),
    ("train", "wrong type", [*TRAIN, "--out", "t", "--steps", "many"], "--steps: invalid int value"),
    ("train", "file as parent", [*TRAIN, "--out", "afile/t"], "is a file, not a folder"),
    ("train", "output = input", [*TRAIN, "--out", "tasks.jsonl"], "is a file; expected a folder"),
    ("train", "unwritable", [*TRAIN, "--out", "readonly"], "cannot write in"),
    ("train", "resume nothing", [*TRAIN, "--out", "folder", "--resume"], "holds no run"),
    # sft
    ("sft", "missing", [*SFT[:4], "nope.jsonl", "--out", "s"], "no such file"),
    ("sft", "empty", [*SFT[:4], "empty.jsonl", "--out", "s"], "empty.jsonl: no rows"),
    ("sft", "malformed", [*SFT[:4], "bad.jsonl", "--out", "s"], "bad.jsonl:1: invalid JSON"),
    ("sft", "wrong type", [*SFT, "--out", "s", "--epochs", "x"], "--epochs"),
    ("sft", "file as parent", [*SFT, "--out", "afile/s"], "is a file, not a folder"),
    ("sft", "output = input", [*SFT, "--out", "tasks.jsonl"], "is a file; expected a folder"),
    ("sft", "unwritable", [*SFT, "--out", "readonly"], "cannot write in"),
    # tasks export
    ("tasks export", "missing", [*EXPORT[:3], "nope.jsonl", *EXPORT[4:], "--out", "x.jsonl"], "no such file"),
    ("tasks export", "empty", [*EXPORT[:3], "empty.jsonl", *EXPORT[4:], "--out", "x.jsonl"], "no rows"),
    ("tasks export", "malformed", [*EXPORT[:3], "bad.jsonl", *EXPORT[4:], "--out", "x.jsonl"], "invalid JSON"),
    ("tasks export", "wrong type", [*EXPORT, "--out", "x.txt"], "expected a path ending in .jsonl"),
    ("tasks export", "output = input", [*EXPORT, "--out", "tasks.jsonl"], "is --tasks"),
    ("tasks export", "file as parent", [*EXPORT, "--out", "afile/x.jsonl"], "is a file, not a folder"),
    ("tasks export", "unwritable", [*EXPORT, "--out", "readonly/x.jsonl"], "cannot write in"),
    ("tasks export", "existing", [*EXPORT, "--out", "completions.jsonl"], "pass --overwrite"),
    # compare
    ("compare", "missing", ["compare", "nope"], "nope/summary.json: not found"),
    ("compare", "wrong type", ["compare", "afile"], "afile/summary.json: not found"),
    ("compare", "malformed", ["compare", "badrun"], "badrun/summary.json: invalid JSON"),
    ("compare", "output = input", ["compare", "run", "--exclude", "exclude.md", "--out", "exclude", "--no-plot"],
     "is --exclude"),
    ("compare", "file as parent", ["compare", "run", "--out", "afile/c"], "is a file, not a folder"),
    ("compare", "unwritable", ["compare", "run", "--out", "readonly/c"], "cannot write in"),
    # decontaminate
    ("decontaminate", "missing", ["decontaminate", "--tasks", "nope.jsonl", "--against", "tasks.jsonl"],
     "no such file"),
    ("decontaminate", "empty", ["decontaminate", "--tasks", "tasks.jsonl", "--against", "empty.jsonl"], "no rows"),
    ("decontaminate", "file as parent", ["decontaminate", "--tasks", "tasks.jsonl", "--against", "tasks.jsonl",
                                         "--out", "afile/d"], "is a file, not a folder"),
    ("decontaminate", "unwritable", ["decontaminate", "--tasks", "tasks.jsonl", "--against", "tasks.jsonl",
                                     "--out", "readonly/d"], "cannot write in"),
    ("decontaminate", "wrong type", ["decontaminate", "--tasks", "tasks.jsonl", "--ngram", "x"], "ngram"),
    # pipeline
    ("pipeline", "missing", ["pipeline", "--config", "nope.yaml"], "--config nope.yaml: no such file"),
    ("pipeline", "empty", ["pipeline", "--config", "empty.yaml"], "expected a mapping"),
    ("pipeline", "malformed", ["pipeline", "--config", "malformed.yaml"], "line 3: invalid YAML"),
    ("pipeline", "duplicate key", ["pipeline", "--config", "pipe-dup.yaml"], "line 3: field 'seed' given twice"),
    ("pipeline", "unknown key", ["pipeline", "--config", "pipe-typo.yaml"], "(did you mean 'model'?)"),
    ("pipeline", "wrong type", ["pipeline", "--config", "typo.yaml"], "unknown top-level field 'stpes'"),
    ("pipeline", "conflict", ["pipeline", "--config", "pipe-typo.yaml", "--dry-run", "--report-only"],
     "--dry-run and --report-only"),
    # found by the second audit (all but compare's missing samples.jsonl were one line already)
    ("check", "folder as file", ["check", "--tasks", "folder", "--reference"], "folder: is a directory"),
    ("check", "folder as file", [*CHECK, "--completions", "folder"], "folder: is a directory"),
    ("check", "missing field", [*CHECK, "--completions", "nofield.jsonl"], "nofield.jsonl:1: field 'completion'"),
    ("check", "unknown task", [*CHECK, "--completions", "unknownid.jsonl"], "task_id 'Nope/9' is not in tasks"),
    ("check", "wrong choice", [*CHECK, "--reference", "--split", "bogus"], "invalid choice: 'bogus'"),
    ("check", "out of range", [*CHECK, "--reference", "--workers", "0"], "--workers=0: expected a positive integer"),
    ("check", "out of range", [*CHECK, "--reference", "--timeout", "-1"], "expected a positive number of seconds"),
    ("check", "out of range", ["check", "--tasks", "synthetic:level=99", "--reference"], "option level='99'"),
    ("check", "unknown option", ["check", "--tasks", "synthetic:levle=1", "--reference"], "unknown option 'levle'"),
    ("check", "empty", ["check", "--tasks", "hf:", "--reference"], "missing the dataset after 'hf:'"),
    ("check", "missing tests", ["check", "--tasks", "hf:nemo-notests.jsonl:preset=nemotron-rl", "--reference"],
     "hf:nemo-notests.jsonl row 0: field 'verifier_metadata.unit_tests' missing (expected an object or a string)"),
    ("check", "malformed row", ["check", "--tasks", "hf:nemo-bad.jsonl:preset=nemotron-rl", "--reference"],
     "row 0: field 'verifier_metadata.unit_tests.inputs' is string (expected a list)"),
    ("check", "missing tests", ["check", "--tasks", "hf:prime-notests.jsonl:preset=primeintellect", "--reference"],
     "hf:prime-notests.jsonl row 0: no tests in verification_info.test_cases"),
    ("check", "malformed row", ["check", "--tasks", "hf:prime-bad.jsonl:preset=primeintellect", "--reference"],
     "hf:prime-bad.jsonl row 0: field 'verification_info' is not JSON text"),
    ("check", "missing tests", ["check", "--tasks", "hf:cf-notests.jsonl:preset=open-r1-codeforces", "--reference"],
     "hf:cf-notests.jsonl row 0: problem '1/A': field 'official_tests' is empty though 'official_tests_complete' "
     "is true"),
    ("check", "malformed row", ["check", "--tasks", "hf:cf-bad.jsonl:preset=open-r1-codeforces", "--reference"],
     "hf:cf-bad.jsonl row 0: field 'examples[0].output' is number (expected a string)"),
    ("check", "missing tests", ["check", "--tasks", "hf:deep-notests.jsonl:preset=deepcoder", "--reference"],
     "hf:deep-notests.jsonl row 0: field 'tests' missing (expected JSON text of the tests)"),
    ("check", "malformed row", ["check", "--tasks", "hf:deep-bad.jsonl:preset=deepcoder", "--reference"],
     "hf:deep-bad.jsonl row 0: field 'tests' is not JSON text"),
    # issue 77: a KodCode row (preset kodcode) without its test file, with a malformed one, with what is not supported
    ("check", "missing field", ["check", "--tasks", "hf:kc-notest.jsonl:preset=kodcode", "--reference"],
     "row 0: field 'test' missing (expected a string)"),
    ("check", "malformed", ["check", "--tasks", "hf:kc-syntax.jsonl:preset=kodcode", "--reference"],
     "row 0: field 'test': not valid Python (line 1: invalid syntax)"),
    ("check", "unsupported", ["check", "--tasks", "hf:kc-unsupported.jsonl:preset=kodcode", "--reference"],
     "row 0: field 'test': line 1: test test_add asks for fixture 'monkeypatch' (not supported)"),
    # issue 77: EvalPlus's presets, a row without its tests and a malformed test
    ("check", "missing tests", ["check", "--tasks", "hf:he-notest.jsonl:preset=humanevalplus", "--reference"],
     "hf:he-notest.jsonl row 0: field 'test' missing"),
    ("check", "malformed test", ["check", "--tasks", "hf:he-badtest.jsonl:preset=humanevalplus", "--reference"],
     "hf:he-badtest.jsonl row 0: field 'test' is not valid Python ('[' was never closed at line 2)"),
    ("check", "missing tests", ["check", "--tasks", "hf:mb-notest.jsonl:preset=mbppplus", "--reference"],
     "hf:mb-notest.jsonl row 0: field 'test_list' is not a non-empty list of asserts"),
    ("check", "malformed test", ["check", "--tasks", "hf:mb-badtest.jsonl:preset=mbppplus", "--reference"],
     "hf:mb-badtest.jsonl row 0: field 'test': its loop `for (i, inp, exp) in enumerate(zip(inputs, results))` is not "
     "EvalPlus's"),
    ("check", "empty", ["check", "--tasks", "", "--reference"], "argument --tasks: expected a value, got an empty"),
    ("check", "empty output", [*CHECK, "--reference", "--out", ""], "argument --out: expected a value"),
    ("eval", "empty output", [*EVAL, "--out", ""], "argument --out: expected a value"),
    ("train", "empty output", [*TRAIN, "--out", ""], "argument --out: expected a value"),
    ("sft", "empty output", [*SFT, "--out", ""], "argument --out: expected a value"),
    ("decontaminate", "empty output", ["decontaminate", "--tasks", "tasks.jsonl", "--out", ""], "argument --out"),
    ("compare", "empty output", ["compare", "run", "--out", ""], "argument --out: expected a value"),
    ("train", "empty config", [*TRAIN, "--out", "t", "--config", ""], "argument --config: expected a value"),
    ("check", "wrong type", ["check", "--tasks", "list.jsonl", "--reference"], "expected a JSON object per line"),
    ("check", "not JSON", ["check", "--tasks", "notes.txt", "--reference"], "notes.txt:1: invalid JSON"),
    ("eval", "out of range", [*EVAL, "--out", "e", "--samples", "0"], "--samples=0: expected an integer >= 1"),
    ("eval", "out of range", [*EVAL, "--out", "e", "--temperature", "-1"], "--temperature=-1.0: expected"),
    ("eval", "out of range", [*EVAL, "--out", "e", "--top-p", "2"], "--top-p=2.0: expected a number in (0, 1]"),
    ("eval", "empty", ["eval", "--model", "", "--tasks", "tasks.jsonl", "--out", "e"], "argument --model: expected"),
    ("eval", "file as model", ["eval", "--model", "afile", "--tasks", "tasks.jsonl", "--out", "e"],
     "a file but not a .gguf"),
    ("eval", "wrong choice", [*EVAL, "--out", "e", "--device", "tpu"], "invalid choice: 'tpu'"),
    ("eval", "interrupted output", [*EVAL, "--out", "partrun"], "pass --resume to continue it"),
    ("train", "out of range", [*TRAIN, "--out", "t", "--steps", "0"], "--steps=0: expected an integer >= 1"),
    ("train", "out of range", [*TRAIN, "--out", "t", "--learning-rate", "-1"], "expected a positive number"),
    ("train", "wrong choice", [*TRAIN, "--out", "t", "--algo", "bogus"], "invalid choice: 'bogus'"),
    ("train", "folder as config", [*TRAIN, "--out", "t", "--config", "folder"], "is a folder; expected a YAML file"),
    ("train", "list config", [*TRAIN, "--out", "t", "--config", "list.yaml"], "expected a mapping"),
    ("train", "unknown key", [*TRAIN, "--out", "t", "--config", "nested-typo.yaml"], "unknown field 'lora.rr'"),
    ("train", "existing", [*TRAIN, "--out", "trainrun"], "already holds a run (checkpoints); pass --resume"),
    ("train", "scalar section", [*TRAIN, "--out", "t", "--config", "lora-int.yaml"],
     "field 'lora' is 5; expected a mapping of its fields (finetune"),
    ("train", "missing eval tasks", [*TRAIN, "--out", "t", "--config", "no-overlap.yaml", "--eval-steps", "1",
                                     "--eval-tasks", "nope.jsonl"], "nope.jsonl': no such file"),
    ("sft", "out of range", [*SFT, "--out", "s", "--epochs", "0"], "--epochs=0.0: expected a positive number"),
    ("sft", "folder as file", [*SFT[:4], "folder", *SFT[5:], "--out", "s"], "folder: is a directory"),
    ("sft", "resume nothing", [*SFT, "--out", "nope", "--resume"], "holds no run"),
    ("sft", "existing", [*SFT, "--out", "trainrun"], "already holds a run"),
    ("tasks export", "wrong choice", [*EXPORT[:5], "bogus", "--out", "x.jsonl"], "invalid choice: 'bogus'"),
    ("tasks export", "folder as file", [*EXPORT, "--out", "folder"], "expected a path ending in .jsonl"),
    ("tasks", "no action", ["tasks"], "the following arguments are required: ACTION"),
    ("compare", "no run", ["compare"], "the following arguments are required: RUN"),
    ("compare", "missing samples", ["compare", "run", "run"], "run/samples.jsonl: cannot read"),
    ("decontaminate", "out of range", ["decontaminate", "--tasks", "tasks.jsonl", "--ngram", "0"],
     "expected comma-separated positive integers"),
    ("decontaminate", "missing", ["decontaminate", "--tasks", "tasks.jsonl", "--against", "nope.jsonl"],
     "no such file"),
    ("pipeline", "folder as config", ["pipeline", "--config", "folder"], "is a folder; expected a YAML file"),
    ("pipeline", "list config", ["pipeline", "--config", "list.yaml"], "expected a mapping"),
    ("pipeline", "wrong type", ["pipeline", "--config", "pipe-wrongtype.yaml"], "seed='many': expected an integer"),
    ("models", "unknown flag", ["models", "--bogus"], "unrecognized arguments: --bogus"),
    # found by issue 75's audit
    ("train", "damaged checkpoints", [*TRAIN, "--out", "cutrun", "--resume"],
     "--resume: no intact checkpoint in cutrun/checkpoints: cutrun/checkpoints/step-2 (adapter_model.safetensors is "
     "512 bytes, its manifest says 1024); cutrun/checkpoints/step-1 (trainer_state.pt is 250 bytes"),
    ("sft", "damaged checkpoints", [*SFT, "--out", "cutrun", "--resume"], "--resume: no intact checkpoint in cutrun"),
    ("eval", "repair on test files", [*EVAL, "--out", "e", "--turns", "2", "--tasks", KODCODE],
     f"--turns 2: no task of --tasks {KODCODE} has a hidden test: its 4 tasks are test-file tasks, which repair "
     "cannot split (a pytest file's tests are functions, not call/value pairs, so none can be kept out of the "
     "feedback on the others: every test is visible) (docs/repair.md, \"Visible and hidden tests\")"),
    ("train", "repair on test files", [*TRAIN, "--out", "t", "--turns", "2", "--tasks", KODCODE],
     f"--turns 2: no task of --tasks {KODCODE} has a hidden test: its 4 tasks are test-file tasks"),
    ("train", "unfinished checkpoint", [*TRAIN, "--out", "halfrun", "--resume"],
     "--resume: no intact checkpoint in halfrun/checkpoints: halfrun/checkpoints/step-1 (no manifest.json: unfinished"),
    ("sft", "unfinished checkpoint", [*SFT, "--out", "halfrun", "--resume"],
     "--resume: no intact checkpoint in halfrun/checkpoints: halfrun/checkpoints/step-1 (no manifest.json: unfinished"),
    ("train", "fewer steps than grown to", ["train", "--out", "grownrun", "--resume", "--steps", "2"],
     "--steps 2 is fewer than the 3 steps of the run in grownrun"),
    ("check", "time limits: file as parent", [*CHECK, "--reference", "--out", "r.jsonl", "--time-limits",
                                              "afile/t.jsonl"], "--time-limits afile/t.jsonl: "),
    ("check", "time limits: existing", [*CHECK, "--reference", "--out", "r.jsonl", "--time-limits",
                                        "completions.jsonl"], "--time-limits completions.jsonl: already holds"),
    ("check", "time limits = output", [*CHECK, "--reference", "--out", "r.jsonl", "--time-limits", "r.jsonl"],
     "--time-limits r.jsonl: is also written by --out r.jsonl"),
    ("train", "YAML-only setting as a flag", [*TRAIN, "--out", "t", "--no-check-overlap"],
     "write `check_overlap: VALUE` in a file given with --config"),
    ("check", "pseudo file system", [*CHECK, "--reference", "--out", "/proc/r.jsonl"], "cannot write in /proc"),
    ("eval", "pseudo file system", [*EVAL, "--out", "/proc/e"], "cannot write in /proc"),
    ("train", "pseudo file system", [*TRAIN, "--out", "/sys/t"], "cannot write in /sys"),
    ("tasks export", "pseudo file system", [*EXPORT, "--out", "/sys/x.jsonl"], "cannot write in /sys"),
    # issue 77's presets: a row missing its tests, a test that is not what the preset reads
    ("check", "MultiPL-E: no tests", ["check", "--tasks", "hf:multipl-e-notests.jsonl:preset=multipl-e", "--reference"],
     "hf:multipl-e-notests.jsonl row 0: field 'tests' missing (expected a string)"),
    ("check", "MultiPL-E: not a literal call", ["check", "--tasks", "hf:multipl-e-call.jsonl:preset=multipl-e",
                                                "--reference"],
     "hf:multipl-e-call.jsonl row 0: field 'tests': statement 2 is not a literal call assert.deepEqual(candidate(ARGS), "
     "VALUE): the name 'xs' where a literal was expected"),
    # models, and the command itself
    ("models", "missing", ["models", "--prepare", "nosuch-model"], "nosuch-model"),
    ("coderl", "unknown command", ["chekc"], "invalid choice: 'chekc'"),
]


@pytest.mark.parametrize("command, kind, argv, said", CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)])
def test_bad_input_is_one_line_and_leaves_nothing(place, capsys, command, kind, argv, said):
    before = files(place)
    code, err = run(argv, capsys)
    assert code == 2 and len(err) == 1, err
    prefix = "coderl: error: " if command == "coderl" else f"coderl {command}: error: "
    assert err[0].startswith(prefix) and said in err[0], err[0]
    assert files(place) == before


def test_a_leak_refused_by_the_run_leaves_nothing_and_the_dry_run_says_it_is_not_checked(place, capsys, monkeypatch):
    """The behaviour leak check runs before the pipeline writes anything: a refused plan leaves no OUT, no
    pipeline.log.  The dry run (no references run: it stays quick) says that the run makes that check."""
    assert main(["pipeline", "--config", "leak.yaml", "--dry-run"]) == 0 and not (place / "leakout").exists()
    assert "The run first checks each training stage's tasks against the evaluation tasks by behaviour" in \
        capsys.readouterr().out
    code, err = run(["pipeline", "--config", "leak.yaml"], capsys)
    assert code == 2 and err[-1].startswith("coderl pipeline: error: rl/grpo's training tasks (leak-train.jsonl) "
                                            "solve 1 of its 1 evaluation"), err
    assert not any("Traceback" in line for line in err) and not (place / "leakout").exists()
    # issue 102: the verdict is cached now, so the dry run refuses where the run would, running nothing
    import coderl.pipeline.run

    monkeypatch.setattr(coderl.pipeline.run, "open_sandbox", lambda *a, **k: pytest.fail("a dry run ran programs"))
    dry, said = run(["pipeline", "--config", "leak.yaml", "--dry-run"], capsys)
    assert dry == 2 and said[-1] == err[-1], said


def test_a_plain_resume_goes_on_to_the_steps_the_run_was_grown_to(place, capsys, monkeypatch):
    """config.yaml says 2 steps, the checkpoint (grown with --resume --steps 3) 3: `--resume` continues to 3."""
    import coderl.train

    seen = {}
    monkeypatch.setattr(coderl.train, "run_training", lambda cfg, **kw: seen.update(steps=cfg.steps) or {})
    code, err = run(["train", "--out", "grownrun", "--resume"], capsys)
    assert code == 0 and seen == {} and "at step 3 of 3; nothing to train" in err[-1], err  # 3 steps, all done
    run(["train", "--out", "grownrun", "--resume", "--steps", "5"], capsys)
    assert seen == {"steps": 5}  # more steps, given: taken


def test_resuming_a_finished_run_says_so_without_loading_a_model(place, capsys):
    """issue 102: it loaded the model (a real one: minutes) to find no step left.  The place's load_model fails."""
    code, err = run(["train", "--out", "grownrun", "--resume"], capsys)
    assert code == 0 and err == ["--resume: grownrun has finished: its newest intact checkpoint "
                                 f"({os.path.join('grownrun', 'checkpoints', 'step-3')}) is at step 3 of 3; nothing "
                                 "to train (--resume --steps N, more than 3, trains on)"], err


def test_resume_skips_a_damaged_checkpoint_for_the_newest_intact_one(place):
    from coderl.train.checkpoint import latest_checkpoint, resume_checkpoint

    fake_checkpoint("two", 2, steps=4)
    fake_checkpoint("two", 4, steps=4, cut="trainer_state.pt")
    lines = []
    assert resume_checkpoint("two", lines.append) == os.path.join("two", "checkpoints", "step-2")
    assert lines == ["--resume: skipped two/checkpoints/step-4 (trainer_state.pt is 250 bytes, its manifest says "
                     "500); resuming from step-2"]
    assert latest_checkpoint("two") == os.path.join("two", "checkpoints", "step-2")  # what the pipeline resumes
    changed = Path("two", "checkpoints", "step-2", "adapter_model.safetensors")
    changed.write_bytes(bytes(reversed(changed.read_bytes())))  # the same size, other bytes
    Path("two", "checkpoints", "step-4", "trainer_state.pt").unlink()
    with pytest.raises(Exception, match=r"step-4 \(trainer_state.pt missing\); two/checkpoints/step-2 "
                                        r"\(adapter_model.safetensors differs from its manifest \(sha256\)\)"):
        resume_checkpoint("two", lines.append)


def test_a_checkpoint_without_its_manifest_is_unfinished_and_skipped(place):
    """coderl writes the manifest last: a step-N without one (a copy that stopped) is skipped like a damaged one,
    for the newest intact checkpoint, by --resume (train and SFT share resume_checkpoint) and the pipeline."""
    from coderl.train.checkpoint import latest_checkpoint, recorded_steps, resume_checkpoint

    fake_checkpoint("half", 2, steps=4)
    fake_checkpoint("half", 4, steps=4, cut="trainer_state.pt")
    Path("half", "checkpoints", "step-4", "manifest.json").unlink()  # a truncated file, and nothing to say so
    lines = []
    assert resume_checkpoint("half", lines.append) == os.path.join("half", "checkpoints", "step-2")
    assert lines == ["--resume: skipped half/checkpoints/step-4 (no manifest.json: unfinished (coderl writes it "
                     "last)); resuming from step-2"]
    assert latest_checkpoint("half") == os.path.join("half", "checkpoints", "step-2")
    assert recorded_steps("half") == 4
    Path("old", "checkpoints", "step-3").mkdir(parents=True)
    Path("old", "checkpoints", "step-3", "trainer_state.pt").write_bytes(b"x")
    with pytest.raises(Exception, match=r"no intact checkpoint in old/checkpoints: old/checkpoints/step-3 \(no "
                                        r"manifest.json: unfinished"):
        resume_checkpoint("old", lines.append)


def test_skipping_bad_rows_of_a_file_of_only_bad_rows_says_so(place, capsys):
    """Not "empty": every row was skipped, and each is listed."""
    code, err = run(["check", "--tasks", "allbad.jsonl", "--reference", "--skip-bad-rows"], capsys)
    assert code == 2 and err[-1] == ("coderl check: error: allbad.jsonl: no task left: all 2 rows were skipped as "
                                     "bad (--skip-bad-rows)"), err


def test_a_verl_export_scores_from_any_directory(place, monkeypatch):
    """Its rows record the task spec with absolute paths (they were relative to the exporting directory)."""
    from coderl.integrations.verl import verl_rows
    from coderl.tasks import load_tasks

    specs = {row["extra_info"]["tasks"] for row in verl_rows("tasks.jsonl@train")}
    assert specs == {f"{place / 'tasks.jsonl'}@train"}
    monkeypatch.chdir(place / "folder")
    assert load_tasks(specs.pop()).tasks


def test_the_commands_of_docs_data_md_are_complete():
    """Every `coderl` command of docs/data.md's code blocks has the arguments its command requires (two of its
    opening commands had no --out): each parses and builds its command's config."""
    import re
    import shlex

    from coderl.base.config import from_args
    from coderl.cli import build_parser
    from coderl.eval.check import CheckConfig
    from coderl.eval.run import EvalConfig
    from coderl.integrations.export import ExportConfig
    from coderl.train.config import TrainConfig
    from coderl.train.sft.config import SFTConfig

    configs = {"check": CheckConfig, "eval": EvalConfig, "train": TrainConfig, "sft": SFTConfig,
               "export": ExportConfig}
    text = Path(__file__).resolve().parents[1].joinpath("docs", "data.md").read_text()
    commands = [shlex.split(line, comments=True) for block in re.findall(r"```bash\n(.*?)```", text, re.S)
                for line in block.replace("\\\n", " ").splitlines() if line.startswith("coderl ")]
    checked = 0
    for argv in commands:
        if "..." in argv:  # an elided example
            continue
        ns = build_parser().parse_args(argv[1:])  # SystemExit on a missing or unknown argument
        command = argv[2] if argv[1] == "tasks" else argv[1]
        from_args(configs[command], ns)  # a ConfigError on a missing --out
        checked += 1
    assert checked >= 3


def test_the_leak_check_names_only_settings_that_exist(monkeypatch):
    """The message of an undecided leak check said `--no-check-overlap`, which is no flag (a YAML setting)."""
    import dataclasses

    import coderl.eval.decontaminate
    from coderl.eval.decontaminate import Decontamination
    from coderl.eval.leak_report import overlap_error
    from coderl.sandbox.config import SandboxConfig
    from coderl.train.config import TrainConfig

    monkeypatch.setattr(coderl.eval.decontaminate, "cached_leaks",
                        lambda *a, **k: Decontamination(train_tasks=1, eval_tasks=1, incomplete=["Toy/0"]))
    message = overlap_error(str(TASKS), [], str(TASKS), SandboxConfig(workers=1))
    assert "check_overlap: false" in message and "--no-check-overlap" not in message
    assert "check_overlap" in {f.name for f in dataclasses.fields(TrainConfig(out="t").eval)}


class FullDisk:
    """A file whose every write fails as on a full disk (the file itself is opened, so it exists, as a real
    failed write leaves it)."""

    def __init__(self, f):
        self._f = f

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), self._f.name)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name):
        return getattr(self._f, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._f.close()


@pytest.mark.parametrize("argv", [
    [*CHECK, "--completions", "completions.jsonl", "--out", "out/r.jsonl", "--workers", "1"],
    [*EXPORT, "--out", "out/x.jsonl"],
    ["compare", "run", "--out", "out/c", "--no-plot"],
    [*TRAIN, "--out", "out/t"],
    ["decontaminate", "--tasks", "tasks.jsonl", "--against", "tasks.jsonl", "--out", "out/d", "--workers", "1"],
], ids=["check", "tasks-export", "compare", "train", "decontaminate"])
def test_a_full_disk_is_one_line_and_leaves_nothing(place, capsys, monkeypatch, argv):
    before = files(place)
    fill_disk(monkeypatch, place)
    code, err = run(argv, capsys)
    monkeypatch.undo()
    assert code == 2 and len(err) == 1 and "No space left on device" in err[0], err
    assert files(place) == before


def fill_disk(monkeypatch, root: Path, at: str = "") -> None:
    """Every file opened for writing under `root` fails its writes as on a full disk, from the first one whose name
    ends with `at` on (the disk fills there)."""
    real_open, full = builtins.open, [not at]

    def full_open(file, mode="r", *args, **kwargs):
        f = real_open(file, mode, *args, **kwargs)
        writing = any(m in mode for m in "wax+") and str(root) in os.path.abspath(str(file))
        full[0] = full[0] or writing and str(file).endswith(at)
        return FullDisk(f) if writing and full[0] else f

    monkeypatch.setattr(builtins, "open", full_open)


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory):
    pytest.importorskip("torch")
    from tests.models.tiny import tiny_llama

    return str(tiny_llama(tmp_path_factory.mktemp("model")))


@pytest.mark.parametrize("command, at", [
    ("eval", "samples.jsonl.partial"), ("eval", "samples.jsonl.tmp"), ("eval", "results.md.tmp"),
    ("eval", "summary.json.tmp"), ("sft", "config.yaml.tmp"), ("sft", "trainer_state.pt"),
])
def test_a_disk_that_fills_in_a_run_leaves_no_finished_output(tiny_model, tmp_path, monkeypatch, capsys, command, at):
    """A run (the tiny random model) whose disk fills at the file `at`: one line, exit 2, no finished output and no
    temporary file; what stays is only what a resume reads, and the resume (the disk freed) finishes the run."""
    common = ["--model", tiny_model, "--out", str(tmp_path / "run"), "--format", "completion", "--device", "cpu"]
    argv = (["eval", *common, "--tasks", str(TASKS), "--limit", "2", "--max-new-tokens", "2", "--workers", "1"]
            if command == "eval" else ["sft", *common, "--data", str(TASKS), "--no-progress"])
    fill_disk(monkeypatch, tmp_path, at)
    code, err = run(argv, capsys)
    monkeypatch.undo()
    assert code == 2 and "No space left on device" in err[-1] and not any("Traceback" in line for line in err), err
    assert [line for line in err if "error:" in line] == err[-1:], err  # before it: progress lines at most
    left = files(tmp_path)
    assert not [p for p in left if p.endswith((".tmp", "summary.json", "samples.jsonl", "results.md", "adapter"))
                or "/checkpoints/" in p], left
    if command == "eval" and "run/samples.jsonl.partial" in left:  # finished chunks, kept: --resume completes it
        assert run([*argv, "--resume"], capsys)[0] == 0 and (tmp_path / "run" / "summary.json").is_file()


def _wrapped(outer: Exception, inner: BaseException) -> Exception:
    outer.__context__ = inner
    return outer


@pytest.mark.parametrize("error", [
    OSError(errno.ENOSPC, "No space left on device"),  # a disk error as libraries report it: under their own
    _wrapped(RuntimeError("[enforce fail at inline_container.cc:672] unexpected pos 704 vs 598"),  # torch.save
             OSError(errno.ENOSPC, "No space left on device")),
    RuntimeError("Error while serializing: I/O error: No space left on device (os error 28)"),  # safetensors
], ids=["oserror", "torch-save", "safetensors"])
def test_a_disk_error_is_one_line_however_a_library_raises_it(place, capsys, monkeypatch, error):
    import coderl.tasks.spec

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(coderl.tasks.spec, "_load_tasks", broken)
    code, err = run([*CHECK, "--reference"], capsys)
    assert code == 2 and err == ["coderl check: error: writing: No space left on device"], err


@pytest.mark.parametrize("error", [RuntimeError("a bug"), KeyError("field"), ValueError("a bug"),
                                   RuntimeError("a bug (os error 2)"), _wrapped(RuntimeError("a bug"), KeyError("x")),
                                   FileNotFoundError(errno.ENOENT, "No such file", "/internal/path")])
def test_an_internal_error_keeps_its_traceback(place, capsys, monkeypatch, error):
    """A bug is not bad input: it propagates (a traceback, exit 1), never a one-line exit 2."""
    import coderl.tasks.spec

    def broken(*args, **kwargs):
        raise error

    monkeypatch.setattr(coderl.tasks.spec, "_load_tasks", broken)
    with pytest.raises(type(error)):
        main([*CHECK, "--reference"])
    assert "error:" not in capsys.readouterr().err


def test_a_bad_time_limit_scale_is_one_line(place, capsys, monkeypatch):
    monkeypatch.setenv("CODERL_TIME_LIMIT_SCALE", "0.5")
    before = files(place)
    code, err = run(["check", "--tasks", "easy", "--reference", "--out", "r.jsonl"], capsys)
    assert code == 2 and err == ["coderl check: error: $CODERL_TIME_LIMIT_SCALE='0.5': expected a whole number >= 1 "
                                 "(the factor on recorded time limits)"], err
    assert files(place) == before


@pytest.mark.parametrize("argv, said", [
    ([*TRAIN, "--out", "t", "--log-with", "tensorboard"], "coderl train: error: --log-with tensorboard: the "
     "'tensorboard' package is not installed (pip install 'coderl[trackers]', or pip install tensorboard)"),
    ([*SFT, "--out", "s", "--log-with", "wandb"], "coderl sft: error: --log-with wandb: the 'wandb' package is not "
     "installed"),
    ([*TRAIN, "--out", "t", "--engine", "vllm"], "coderl train: error: --engine vllm: no vLLM here"),
    ([*EVAL, "--out", "e", "--engine", "vllm"], "coderl eval: error: --engine vllm: no vLLM here"),
], ids=["train tensorboard", "sft wandb", "train vllm", "eval vllm"])
def test_a_missing_optional_package_is_said_before_the_model_loads_and_by_the_dry_run(place, capsys, monkeypatch,
                                                                                       argv, said):
    """issue 102: it was said once the model had loaded (a tracker: when the first metrics were written)."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in (
        "tensorboard", "wandb", "vllm") else real(name, *a))
    monkeypatch.delenv("CODERL_VLLM_PYTHON", raising=False)
    import coderl.rollout.vllm_engine as vllm_engine

    monkeypatch.setattr(vllm_engine, "REPO", place)  # no .venv-vllm here
    code, err = run(argv, capsys)
    assert code == 2 and len(err) == 1 and err[0].startswith(said), err
    if argv[0] == "train":  # the dry run says it, and refuses nothing (a config checked away from its machine)
        assert main([*argv, "--dry-run"]) == 0
        out = capsys.readouterr().out
        assert f"{said.removeprefix('coderl train: error: ')}" in out and "here the run would refuse to start" in out
    if "tensorboard" in argv:  # a pipeline stage's: before its base evaluation loads the model
        Path("tb.yaml").write_text(Path("leak.yaml").read_text().replace("    steps: 1\n", "    steps: 1\n"
                                                                          "    log_with: tensorboard\n"))
        code, err = run(["pipeline", "--config", "tb.yaml"], capsys)
        assert code == 2 and err == [f"coderl pipeline: error: rl/grpo: {said.removeprefix('coderl train: error: ')}"]
        assert main(["pipeline", "--config", "tb.yaml", "--dry-run"]) == 0
        assert "a run would stop: rl/grpo: --log-with tensorboard: the 'tensorboard' package" in capsys.readouterr().out
