"""`coderl sft` on a tiny random model: exact prompt masking (token by token, and why it must be two
tokenisations), the end token per format, the chat/reasoning reply round-trips through extraction and
passes in the sandbox, an overfit run that changes every LoRA parameter and reloads to the same
logits, accumulation weighting, and one-line errors (--qlora without CUDA, bad JSONL, over-long)."""

import json
import math
import os
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")

from coderl.base.config import ConfigError, build  # noqa: E402
from coderl.cli import main  # noqa: E402
from coderl.models.lora import LoraConfig  # noqa: E402
from coderl.rollout.formats import get_format  # noqa: E402
from coderl.tasks import TaskFormatError, load_tasks  # noqa: E402
from coderl.train.sft.data import (  # noqa: E402
    IGNORE_INDEX,
    build_examples,
    collate,
    end_token,
    prompt_ids,
    solution_text,
    tokenize_example,
    without_docstring,
)
from coderl.train.sft.run import QLORA_NO_CUDA, SFTConfig, plan_steps, sft  # noqa: E402
from tests.models.tiny import tiny_llama, tiny_model, tiny_tokenizer  # noqa: E402
from tests.train.helpers import TASKS, learning_metrics  # noqa: E402

IM_END = 2  # the tiny tokenizer's <|im_end|>: its EOS and ChatML's end of turn


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


@pytest.fixture(scope="module")
def tasks():
    return load_tasks(TASKS).tasks


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return tiny_llama(tmp_path_factory.mktemp("model"))


def config(model_dir, out, **overrides):
    fields = dict(out=str(out), model=str(model_dir), data=TASKS, split="all", format="completion",
                  progress=False, device="cpu", learning_rate=1e-2, batch_size=1, gradient_accumulation=1,
                  max_length=256)
    fields.update(overrides)
    return build(SFTConfig, fields)


def write_jsonl(path, rows):
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return str(path)


# ---------------------------------------------------------------------------------------------
# masking


def test_completion_labels_token_by_token(tok, tasks):
    task = tasks[0]  # prompt ends in "\n", body starts with 4 spaces
    assert task.prompt.endswith("\n") and task.reference_solution.startswith("    return")
    example = tokenize_example(task, "completion", tok, tok.eos_token_id)
    prompt = tok(task.prompt)["input_ids"]
    solution = tok(task.reference_solution, add_special_tokens=False)["input_ids"]
    labels = example.labels
    assert example.prompt_length == len(prompt)
    assert list(example.input_ids) == prompt + solution + [IM_END]
    for i in range(len(prompt)):
        assert labels[i] == IGNORE_INDEX, i
    assert labels[len(prompt):] == solution + [IM_END]
    assert tok.decode(labels[len(prompt):-1]) == task.reference_solution  # indentation kept, nothing stripped


def test_concatenated_tokenisation_mislabels_the_boundary(tok, tasks):
    """Why two tokenisations: as one string, BPE merges the prompt's last "\\n" with the body's indent."""
    task = tasks[0]
    prompt = tok(task.prompt)["input_ids"]
    joined = tok(task.prompt + task.reference_solution)["input_ids"]
    assert joined != prompt + tok(task.reference_solution, add_special_tokens=False)["input_ids"]
    n = len(prompt)
    assert joined[: n - 1] == prompt[: n - 1]  # identical up to the prompt's last token ...
    boundary = tok.decode([joined[n - 1]])
    assert boundary.startswith("\n") and boundary != "\n"  # ... which swallowed the body's indentation
    assert tok.decode([prompt[-1]]) == "\n"
    # Masking the first len(prompt) positions of `joined` would hide that indentation from the loss
    # and train on ids the model never sees at generation time (the prompt is tokenised alone there).


def test_collate_right_pads_with_masked_labels(tok, tasks):
    examples = [tokenize_example(t, "completion", tok, IM_END) for t in tasks[:2]]
    ids, attention, labels = collate(examples, pad_id=tok.pad_token_id)
    for i, e in enumerate(examples):
        n = len(e.input_ids)
        assert ids[i, :n].tolist() == list(e.input_ids)
        assert attention[i, :n].all() and not attention[i, n:].any()
        assert labels[i, :n].tolist() == e.labels
        assert (labels[i, n:] == IGNORE_INDEX).all()


@pytest.mark.parametrize("fmt", ["completion", "chat", "reasoning"])
def test_prompt_ids_are_the_generation_prompt_ids(tasks, fmt):
    from coderl.rollout.generation import generate

    model, tok = tiny_model()
    for task in tasks:
        batch = generate(model, tok, [task], format=fmt, max_new_tokens=1)
        n = int(batch.prompt_lengths[0])
        assert prompt_ids(task, fmt, tok) == batch.prompt_ids[0, -n:].tolist()


# ---------------------------------------------------------------------------------------------
# chat / reasoning targets


@pytest.mark.parametrize("fmt", ["chat", "reasoning"])
def test_chat_end_of_turn_is_the_last_label(tok, tasks, fmt):
    end_id, why = end_token(tok, fmt, [IM_END])
    assert end_id == IM_END and "end of turn" in why
    task = tasks[0]
    example = tokenize_example(task, fmt, tok, end_id)
    labels = example.labels
    assert labels[-1] == IM_END
    assert all(x == IGNORE_INDEX for x in labels[: example.prompt_length])
    header = tok("<|im_start|>assistant\n", add_special_tokens=False)["input_ids"]
    assert list(example.input_ids[example.prompt_length - len(header): example.prompt_length]) == header
    assert tok.decode(labels[example.prompt_length:-1]) == solution_text(task, fmt)


def test_end_token_falls_back_to_eos_when_end_of_turn_does_not_stop_generation(tok):
    # If generation does not stop on the template's end of turn, train the EOS it does stop on.
    tok2 = tiny_tokenizer()
    tok2.eos_token = "<|endoftext|>"
    assert end_token(tok2, "chat", [tok2.eos_token_id]) == (0, "<|endoftext|> (the tokenizer's EOS)")


def test_chat_reply_is_the_whole_function_without_its_docstring(tasks):
    task = tasks[0]
    assert task.prompt == 'def add(a, b):\n    """Add two numbers."""\n'
    assert solution_text(task, "chat") == "```python\ndef add(a, b):\n    return a + b\n```"
    assert solution_text(task, "completion") == task.reference_solution
    he = load_tasks("humaneval").tasks[0]        # imports kept, the multi-line docstring cut out
    reply = solution_text(he, "chat")
    assert reply == ("```python\nfrom typing import List\n\n\ndef has_close_elements(numbers: List[float], "
                     "threshold: float) -> bool:\n" + he.reference_solution + "```")


@pytest.mark.parametrize("program, expected", [
    # a multi-line docstring goes, everything else stays byte for byte (comments, blank lines, other defs)
    ('import math\n\ndef f(x):\n    """Doc.\n\n    >>> f(1)\n    """\n    # keep\n    return x\n\n'
     'def g():\n    """other function: kept"""\n    return 1\n',
     'import math\n\ndef f(x):\n    # keep\n    return x\n\ndef g():\n    """other function: kept"""\n'
     '    return 1\n'),
    ("def f(x):\n    'single quotes'\n    return x\n", "def f(x):\n    return x\n"),
    # unchanged: docstring is the whole body / shares a line / no docstring / no such function / bad syntax
    ('def f(x):\n    """only a docstring"""\n', None),
    ('def f(x):\n    """doc"""; return x\n', None),
    ('def f(x):\n    """éééééé""";x=1\n    return x\n', None),   # offsets are bytes: é is two
    ("def f(x):\n    return x\n", None),
    ('def h(x):\n    """doc"""\n    return x\n', None),
    ('def f(x:\n    """doc"""\n', None),
])
def test_without_docstring(program, expected):
    assert without_docstring(program, "f") == (program if expected is None else expected)
    assert without_docstring(program, None) == program


@pytest.mark.parametrize("fmt", ["completion", "chat", "reasoning"])
def test_target_round_trips_through_extraction_and_passes(tasks, sandbox, fmt):
    """The target is a reply the format's extraction turns back into a passing program (HumanEval
    prompts, and the fixture's prompt that has a docstring)."""
    checked = load_tasks("humaneval").tasks[:8] + [tasks[0]]
    requests = []
    for task in checked:
        extraction = get_format(fmt).extract(task, solution_text(task, fmt))
        assert extraction.format_ok
        program = task.build_program(extraction.completion)
        assert task.reference_solution in program
        requests.append(task.build_request(extraction.completion))
    results = sandbox.run_many(requests)
    assert [r.passed for r in results] == [True] * len(checked), [r.status for r in results]


def test_bare_header_prompts_extract_in_every_format(tok, tasks):
    """A prompt that is a bare header (`def is_even(n):\n`, no docstring) still gets a compiling chat
    extraction (`assemble` gives the stub a `pass` body before the model's function), so no example is
    listed as unextractable."""
    for fmt in ("chat", "completion", "reasoning"):
        built = build_examples(tasks, fmt, tok, IM_END, 1024)
        assert built.unextractable == [] and len(built.examples) == 3, fmt


# ---------------------------------------------------------------------------------------------
# training


OVERFIT_PAIRS = [{"prompt": "def add(a, b):\n", "completion": "    return a + b\n"},
                 {"prompt": "def square(x):\n", "completion": "    return x * x\n"}]


@pytest.fixture(scope="module")
def learnable_model_dir(tmp_path_factory):
    """The tiny llama initialised with std 0.2 instead of 0.02.  At 0.02 (tied embeddings, hidden 32) a
    logit can move by at most ~||embedding|| * sqrt(hidden) ~ 0.6 whatever the attention LoRA does, so
    the loss cannot fall far below ln(vocab); at 0.2 there is room to memorise two examples."""
    from transformers import LlamaForCausalLM

    from tests.models.tiny import tiny_config

    tok = tiny_tokenizer()
    cfg = tiny_config(len(tok))
    cfg.initializer_range = 0.2
    torch.manual_seed(0)
    out = tmp_path_factory.mktemp("learnable") / "tiny-llama"
    LlamaForCausalLM(cfg).save_pretrained(out)
    tok.save_pretrained(out)
    return out


@pytest.fixture(scope="module")
def overfit(learnable_model_dir, tmp_path_factory):
    """20 optimizer steps at lr 1e-2 on 2 examples (one micro-batch of 2 per step; LoRA dropout on)."""
    root = tmp_path_factory.mktemp("sft")
    data = write_jsonl(root / "pairs.jsonl", OVERFIT_PAIRS)
    cfg = config(learnable_model_dir, root / "run", data=data, epochs=20, batch_size=2, gradient_accumulation=1,
                 lr_schedule="constant", save_steps=10)
    logs = []
    result = sft(cfg, log=logs.append)
    return cfg, result, logs


def test_overfit_lowers_the_loss(overfit):
    cfg, result, logs = overfit
    rows = [json.loads(line) for line in open(os.path.join(cfg.out, "metrics.jsonl"))]
    assert [r["step"] for r in rows] == list(range(1, 21)) and result.steps == 20
    for r in rows:
        assert {"sft/loss", "sft/tokens", "train/lr", "train/grad_norm", "time/step"} <= r.keys()
        assert r["sft/tokens"] == rows[0]["sft/tokens"] > 0
    first, last = rows[0]["sft/loss"], rows[-1]["sft/loss"]
    assert last < 0.5 * first, (first, last)
    assert last < 0.5 * math.log(len(result.tokenizer)), last  # memorised, not merely flattened to uniform
    assert any(line.startswith("trainable parameters: ") for line in logs)


def test_every_lora_parameter_changes(overfit, learnable_model_dir):
    from peft import get_peft_model
    from safetensors.torch import load_file

    from coderl.models import load_model, lora_config

    cfg, result, _ = overfit
    torch.manual_seed(cfg.seed)  # the same LoRA initialisation as the run's
    initial = {k: v.detach().clone() for k, v in
               get_peft_model(load_model(str(learnable_model_dir)).model, lora_config(8, 16, 0.05)).named_parameters()
               if "lora_" in k}
    final = load_file(os.path.join(result.checkpoint, "adapter_model.safetensors"))
    assert len(final) == len(initial) > 0
    for name, before in initial.items():
        key = name.replace(".default", "")
        assert not torch.allclose(final[key], before), f"{name} did not change"


def test_checkpoints_and_adapter_load_with_the_same_logits(overfit):
    from coderl.models import load_model

    cfg, result, _ = overfit
    assert sorted(os.listdir(os.path.join(cfg.out, "checkpoints"))) == ["step-10", "step-20"]
    assert result.checkpoint == os.path.join(cfg.out, "checkpoints", "step-20")
    assert sorted(os.listdir(result.adapter)) == sorted(set(os.listdir(result.checkpoint))
                                                        - {"trainer_state.pt", "manifest.json"})
    text = OVERFIT_PAIRS[0]["prompt"] + OVERFIT_PAIRS[0]["completion"]
    ids = torch.tensor([result.tokenizer(text)["input_ids"]])
    with torch.no_grad():
        expected = result.model(input_ids=ids).logits
        for path in (result.checkpoint, result.adapter):
            loaded = load_model(path)
            assert loaded.kind == "adapter"
            torch.testing.assert_close(loaded.model(input_ids=ids).logits, expected, rtol=0, atol=1e-5)


def test_sft_adapter_starts_an_rl_policy(overfit):
    from coderl.train.policy import build_policy

    _, result, _ = overfit
    policy = build_policy(SimpleNamespace(model=result.adapter, lora_r=8, lora_alpha=16, lora_dropout=0.05))
    ids = torch.tensor([[5, 6, 7, 8]])
    policy.model.eval()
    with torch.no_grad():
        expected = result.model(input_ids=ids).logits
        torch.testing.assert_close(policy.model(input_ids=ids).logits, expected, rtol=0, atol=1e-5)
        with policy.reference():
            torch.testing.assert_close(policy.model(input_ids=ids).logits, expected, rtol=0, atol=1e-5)


def test_training_continues_an_sft_adapter(overfit, tmp_path):
    """`--model RUN/adapter` keeps training that adapter; the new one still names the original base."""
    cfg, result, _ = overfit
    again = sft(config(result.adapter, tmp_path / "again", data=cfg.data, epochs=1, batch_size=2),
                log=lambda m: None)
    from safetensors.torch import load_file

    assert again.steps == 1 and again.metrics["train/grad_norm"] > 0
    before = load_file(os.path.join(result.adapter, "adapter_model.safetensors"))
    after = load_file(os.path.join(again.adapter, "adapter_model.safetensors"))
    assert before.keys() == after.keys() and any(not torch.equal(before[k], after[k]) for k in before)
    base = json.load(open(os.path.join(result.adapter, "coderl_adapter.json")))["base"]
    assert json.load(open(os.path.join(again.adapter, "coderl_adapter.json")))["base"] == base
    assert not os.path.samefile(base, result.adapter)


def test_an_adapter_records_its_prompt_format_and_eval_uses_it(overfit, tmp_path, monkeypatch, capsys):
    """The adapter's coderl_adapter.json names the format it was trained with; `coderl eval` of it uses that format
    unless --format is given; an older adapter (no format recorded) gets the default and a one-line notice."""
    import shutil

    import coderl.eval.run
    from coderl.cli import main

    _, result, _ = overfit
    assert json.load(open(os.path.join(result.adapter, "coderl_adapter.json")))["format"] == "completion"
    used = []
    monkeypatch.setattr(coderl.eval.run, "run_eval", lambda cfg, log: used.append(cfg.format) or {})
    monkeypatch.setattr(coderl.eval.run, "format_summary", lambda summary: "")
    old = tmp_path / "old"
    shutil.copytree(result.adapter, old)
    (old / "coderl_adapter.json").write_text(json.dumps({"base": "x"}))
    for model, given in ((result.adapter, []), (result.adapter, ["--format", "chat"]), (str(old), [])):
        assert main(["eval", "--model", model, "--out", str(tmp_path / "e"), *given]) == 0
    assert used == ["completion", "chat", "chat"]
    err = capsys.readouterr().err
    assert f"--format completion: the format {result.adapter} was trained with" in err
    assert f"note: {old} does not record its prompt format" in err


def test_accumulation_weights_micro_batches_by_tokens(model_dir, tmp_path):
    """One micro-batch of 2 and two micro-batches of 1 give the same step: loss and gradient are the
    token mean over the window (examples of different lengths; dropout off so the passes agree)."""
    data = write_jsonl(tmp_path / "pairs.jsonl", [
        {"prompt": "def f(x):\n", "completion": "    return x\n"},
        {"prompt": "def g(a, b):\n", "completion": "    for i in range(10):\n        print(i)\n    return a + b\n"},
    ])
    common = dict(data=data, lora_dropout=0.0, epochs=1)
    one = sft(config(model_dir, tmp_path / "one", batch_size=2, gradient_accumulation=1, **common), log=lambda m: None)
    two = sft(config(model_dir, tmp_path / "two", batch_size=1, gradient_accumulation=2, **common), log=lambda m: None)
    assert one.steps == two.steps == 1
    for key in ("sft/loss", "train/grad_norm"):
        assert one.metrics[key] == pytest.approx(two.metrics[key], rel=1e-5), key
    assert one.metrics["sft/tokens"] == two.metrics["sft/tokens"]


def test_logits_from_the_first_target_give_the_whole_sequences_loss(tok, tasks):
    """The loss on logits kept from the first position that predicts a target (`first_predicting`) equals the
    loss on every position's logits, value and gradient: two examples with prompts of different lengths,
    right-padded in one micro-batch, so the shorter prompt's targets start where the longer one's prompt goes on."""
    from coderl.train.sft.run import first_predicting, token_loss_sum

    examples = build_examples(tasks[:2], "completion", tok, IM_END, 256).examples
    input_ids, attention, labels = collate(examples, tok.pad_token_id)
    start = first_predicting(labels)
    assert start == min(e.prompt_length for e in examples) - 1 > 0
    assert (labels[:, 1:start + 1] == IGNORE_INDEX).all()  # no target before it is predicted
    model, _ = tiny_model(tokenizer=tok)

    def loss_and_grads(**keep):
        model.zero_grad(set_to_none=True)
        logits = model(input_ids=input_ids, attention_mask=attention, **keep).logits
        loss, count = token_loss_sum(logits, labels[:, labels.shape[1] - logits.shape[1]:])
        loss.backward()
        return loss.detach(), count, [p.grad.clone() for p in model.parameters() if p.grad is not None]

    full, full_count, full_grads = loss_and_grads()
    kept, kept_count, kept_grads = loss_and_grads(logits_to_keep=labels.shape[1] - start)
    assert kept_count == full_count == int((labels != IGNORE_INDEX).sum())
    assert kept == pytest.approx(float(full), rel=1e-6)
    assert len(kept_grads) == len(full_grads) > 0
    for a, b in zip(kept_grads, full_grads):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6)


def test_plan_steps_fractional_epochs():
    cfg = SimpleNamespace(epochs=1.5, seed=0, batch_size=1, gradient_accumulation=2)
    plan = plan_steps(4, cfg)
    flat = [i for step in plan for mb in step for i in mb]
    assert len(flat) == 6 and sorted(flat[:4]) == [0, 1, 2, 3]
    assert [len(step) for step in plan] == [2, 2, 2]


def test_over_long_examples_are_skipped_and_counted(model_dir, tmp_path, tok, tasks):
    lengths = {t.task_id: len(tokenize_example(t, "completion", tok, IM_END).input_ids) for t in tasks}
    longest = max(lengths, key=lengths.get)
    limit = sorted(lengths.values())[-2]  # all but the longest fit
    assert lengths[longest] > limit
    logs = []
    result = sft(config(model_dir, tmp_path / "run", max_length=limit), log=logs.append)
    assert result.skipped_too_long == [longest] and result.examples == len(tasks) - 1
    assert any(f"skipped 1 examples longer than --max-length {limit}: {longest}" in line for line in logs)
    recorded = json.load(open(tmp_path / "run" / "sft_data.json"))
    assert recorded["skipped_too_long"] == [longest]
    with pytest.raises(ConfigError, match="no usable example"):
        sft(config(model_dir, tmp_path / "none", max_length=2), log=lambda m: None)


# ---------------------------------------------------------------------------------------------
# one-line errors


def test_qlora_without_cuda_is_one_line(model_dir, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)  # runs on a GPU machine too
    with pytest.raises(ConfigError) as info:
        sft(config(model_dir, tmp_path / "q", qlora=True), log=lambda m: None)
    assert str(info.value) == QLORA_NO_CUDA
    assert QLORA_NO_CUDA == ("--qlora needs a CUDA GPU (bitsandbytes 4-bit kernels); this machine has none "
                             "— drop --qlora to load the model in full precision")
    code = main(["sft", "--out", str(tmp_path / "q2"), "--model", str(model_dir), "--data", TASKS, "--qlora"])
    err = capsys.readouterr().err
    assert code == 2 and err == f"coderl sft: error: {QLORA_NO_CUDA}\n"
    assert not (tmp_path / "q2").exists()  # stopped before writing anything


@pytest.mark.parametrize("row, message", [
    ({"prompt": "def f():\n"}, "field 'completion' missing (expected a string)"),
    ({"prompt": "def f():\n", "completion": 3}, "field 'completion' is number (expected a string)"),
    ({"prompt": "", "completion": "    pass\n"}, "field 'prompt' is empty"),
    ("{not json", "invalid JSON"),
])
def test_bad_jsonl_row_is_one_line(model_dir, tmp_path, capsys, row, message):
    good = {"prompt": "def f():\n", "completion": "    return 1\n"}
    path = write_jsonl(tmp_path / "pairs.jsonl", [good, good, row])
    with pytest.raises(TaskFormatError) as info:
        sft(config(model_dir, tmp_path / "run", data=path), log=lambda m: None)
    assert str(info.value).startswith(f"{path}:3: ") and message in str(info.value)
    code = main(["sft", "--out", str(tmp_path / "cli"), "--model", str(model_dir), "--data", path])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and f"{path}:3: " in err


def test_a_fresh_sft_refuses_a_directory_holding_another_run(model_dir, tmp_path, capsys):
    """`coderl sft --out EXISTING_RUN` stops in one line, as `coderl train` does, and leaves the run as it was."""
    first = sft(config(model_dir, tmp_path / "run", epochs=0.34), log=lambda m: None)
    before = open(tmp_path / "run" / "metrics.jsonl").read()
    with pytest.raises(ConfigError, match="already holds a run .*choose another --out"):
        sft(config(model_dir, tmp_path / "run", epochs=0.34), log=lambda m: None)
    code = main(["sft", "--out", str(tmp_path / "run"), "--model", str(model_dir), "--data", TASKS, "--split", "all",
                 "--format", "completion", "--device", "cpu", "--no-progress"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "--out " in err and "already holds a run" in err, err
    assert "pass --resume to continue it, --overwrite to replace it" in err, err
    assert open(tmp_path / "run" / "metrics.jsonl").read() == before and os.path.isdir(first.adapter)
    again = sft(config(model_dir, tmp_path / "run", epochs=0.34, overwrite=True, seed=1), log=lambda m: None)
    assert open(tmp_path / "run" / "metrics.jsonl").read() != before and os.path.isdir(again.adapter)


def test_a_failed_sft_leaves_nothing_it_made(tmp_path, capsys):
    """A model that fails to load: no config.yaml, no --out folder (and an --out folder that was there stays empty)."""
    for out in (tmp_path / "new" / "run", tmp_path / "empty"):
        (tmp_path / "empty").mkdir(exist_ok=True)
        code = main(["sft", "--out", str(out), "--model", str(tmp_path / "no-model"), "--data", TASKS, "--split",
                     "all", "--format", "completion", "--device", "cpu", "--no-progress"])
        assert code == 2 and capsys.readouterr().err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["empty"]


def test_sft_steps_through_the_shared_optimiser(model_dir, tmp_path, monkeypatch):
    """SFT builds its optimiser and applies its accumulated gradients with the RL loops' (the updater's
    `build_optimizer` and `apply_gradients`)."""
    from coderl.train import updater

    calls = {"build": 0, "apply": 0}

    def counting(name, fn):
        def wrapped(*args, **kwargs):
            calls[name] += 1
            return fn(*args, **kwargs)
        return wrapped

    monkeypatch.setattr(updater, "build_optimizer", counting("build", updater.build_optimizer))
    monkeypatch.setattr(updater, "apply_gradients", counting("apply", updater.apply_gradients))
    result = sft(config(model_dir, tmp_path / "run", max_grad_norm=1e-6), log=lambda m: None)
    assert calls == {"build": 1, "apply": result.steps} and result.steps == 3
    assert result.metrics["train/grad_norm"] > 1e-6  # measured before clipping, as the RL loops log it


def _nan_loss_at(monkeypatch, steps: set):
    """token_loss_sum, NaN on the given (1-based) calls: one call per optimizer step at batch 1 x 1."""
    from coderl.train.sft import run as sft_module

    real, calls = sft_module.token_loss_sum, {"n": 0}

    def loss_sum(logits, labels):
        calls["n"] += 1
        loss, count = real(logits, labels)
        return (loss * float("nan") if calls["n"] in steps else loss), count

    monkeypatch.setattr(sft_module, "token_loss_sum", loss_sum)


def test_sft_skips_a_non_finite_update_and_stops_after_three_in_a_row(model_dir, tmp_path, monkeypatch, capsys):
    from safetensors.torch import load_file

    _nan_loss_at(monkeypatch, {2})
    result = sft(config(model_dir, tmp_path / "run", save_steps=1), log=lambda m: None)
    rows = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    assert [r["train/nonfinite_steps"] for r in rows] == [0, 1, 1] and result.steps == 3
    one, two = (load_file(tmp_path / "run" / "checkpoints" / f"step-{s}" / "adapter_model.safetensors")
                for s in (1, 2))
    assert all(torch.equal(one[k], two[k]) for k in one)  # the NaN step applied nothing
    _nan_loss_at(monkeypatch, {1, 2, 3})
    code = main(["sft", "--out", str(tmp_path / "cli"), "--model", str(model_dir), "--data", TASKS, "--split", "all",
                 "--format", "completion", "--device", "cpu", "--no-progress", "--gradient-accumulation", "1"])
    err = capsys.readouterr().err  # the run's log (stderr since issue 75), then one error line
    errors = [line for line in err.splitlines() if "error" in line.lower()]
    assert code == 2 and "Traceback" not in err and errors == [err.splitlines()[-1]], err
    assert errors[0].startswith("coderl sft: error: step 3: loss or gradient not finite in 3 steps in a row (steps "
                                "1-3); not applied. Lower --learning-rate"), err


def test_an_interrupted_sft_resumes_exactly(model_dir, tmp_path, monkeypatch):
    """Ctrl-C in step 6 of 6 (checkpoints every 2 steps, the last at 4; a kill had also cut a metrics line short):
    --resume refuses a changed setting and an --out with no run, cuts metrics.jsonl back to step 4, and ends
    with the uninterrupted run's metrics and adapter."""
    from safetensors.torch import load_file

    import coderl.train.sft.run as sft_module

    kw = dict(epochs=2, save_steps=2)
    whole = sft(config(model_dir, tmp_path / "whole", **kw), log=lambda m: None)
    loss, calls = sft_module.token_loss_sum, []

    def interrupted(*args):
        calls.append(1)
        if len(calls) == 6:
            raise KeyboardInterrupt
        return loss(*args)

    monkeypatch.setattr(sft_module, "token_loss_sum", interrupted)
    with pytest.raises(KeyboardInterrupt):
        sft(config(model_dir, tmp_path / "cut", **kw), log=lambda m: None)
    monkeypatch.setattr(sft_module, "token_loss_sum", loss)
    assert sorted(os.listdir(tmp_path / "cut" / "checkpoints")) == ["step-2", "step-4"]
    with open(tmp_path / "cut" / "metrics.jsonl", "a") as f:
        f.write('{"step": 6, "sft/lo')
    with pytest.raises(ConfigError, match=r"--resume: learning_rate: 0.01 -> 0.02 \(changed since"):
        sft(config(model_dir, tmp_path / "cut", resume=True, learning_rate=2e-2, **kw), log=lambda m: None)
    with pytest.raises(ConfigError, match="holds no run"):
        sft(config(model_dir, tmp_path / "typo", resume=True, **kw), log=lambda m: None)
    said = []
    cut = sft(config(model_dir, tmp_path / "cut", resume=True, **kw), log=said.append)
    assert any("resumed from" in m and "step-4 at step 4" in m for m in said), said
    rows = {d: [json.loads(line) for line in open(tmp_path / d / "metrics.jsonl")] for d in ("whole", "cut")}
    assert [r["step"] for r in rows["cut"]] == [1, 2, 3, 4, 5, 6] and cut.examples_seen == whole.examples_seen
    for a, b in zip(rows["whole"], rows["cut"]):
        assert learning_metrics(a) == pytest.approx(learning_metrics(b), abs=1e-6)
    a, b = (load_file(os.path.join(r.adapter, "adapter_model.safetensors")) for r in (whole, cut))
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)


def test_sft_resume_on_the_command_line_takes_the_runs_settings(model_dir, tmp_path, capsys):
    """`coderl sft --out RUN --resume` alone: the run's config.yaml gives the rest (a finished run: nothing to do)."""
    args = ["sft", "--out", str(tmp_path / "run"), "--model", str(model_dir), "--data", TASKS, "--split", "all",
            "--format", "completion", "--device", "cpu", "--no-progress", "--epochs", "0.67", "--save-steps", "1"]
    assert main(args) == 0
    before = open(tmp_path / "run" / "metrics.jsonl").read()
    assert main(["sft", "--out", str(tmp_path / "run"), "--resume"]) == 0
    assert "done: 1 optimizer steps" in capsys.readouterr().out
    assert open(tmp_path / "run" / "metrics.jsonl").read() == before


# ---------------------------------------------------------------------------------------------
# LoRA targets: one setting of the lora section, shared by sft and train


def _wrapped(model_dir, out):
    """Module names (outside the embedding) that carry a LoRA A matrix after an SFT run's adapter is saved."""
    from safetensors.torch import load_file

    names = load_file(os.path.join(out, "adapter_model.safetensors")).keys()
    return {n.split(".lora_A")[0].rsplit(".", 1)[-1] for n in names if ".lora_A" in n}


@pytest.mark.parametrize("targets, expected", [
    ("attention", {"q_proj", "k_proj", "v_proj", "o_proj"}),
    ("all-linear", {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"}),
    ("q_proj, down_proj", {"q_proj", "down_proj"}),
])
def test_sft_wraps_the_chosen_targets_and_train_keeps_the_adapters_shape(model_dir, tmp_path, targets, expected):
    from coderl.train.policy import build_policy

    result = sft(config(model_dir, tmp_path / "run", lora_targets=targets, epochs=0.2), log=lambda m: None)
    assert _wrapped(model_dir, result.adapter) == expected
    # train over that adapter keeps its targets whatever its own lora_targets says (a fresh adapter's setting)
    policy = build_policy(SimpleNamespace(model=result.adapter, lora=LoraConfig(lora_targets="attention")))
    trained = {n.split(".lora_A")[0].rsplit(".", 1)[-1] for n, p in policy.model.named_parameters()
               if ".lora_A.default" in n and p.requires_grad}
    assert trained == expected and "targets" in policy.note


@pytest.mark.parametrize("fields, message", [
    (dict(lora_targets="q_proj;v_proj"), "--lora-targets='q_proj;v_proj': expected attention or all-linear"),
    (dict(lora_targets="all-linear", finetune="full"), "--lora-targets='all-linear': expected no LoRA targets"),
])
def test_bad_lora_targets_are_one_line_at_load(model_dir, tmp_path, fields, message):
    with pytest.raises(ConfigError) as e:
        config(model_dir, tmp_path / "run", **fields)
    assert str(e.value).startswith(message) and "\n" not in str(e.value)


def test_targets_the_model_lacks_are_one_line(model_dir, tmp_path):
    with pytest.raises(ConfigError) as e:
        sft(config(model_dir, tmp_path / "run", lora_targets="c_attn,c_proj"), log=lambda m: None)
    assert str(e.value).startswith("--lora-targets='c_attn,c_proj': expected module names of this model")
    assert not (tmp_path / "run").exists()
