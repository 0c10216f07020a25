"""The learned reward term: a tiny random sequence classifier saved to a temp dir scores samples batched
as it does one by one, with or without a pad token, whatever the tokenizer's padding side; its mixing with
test rewards; and one-line errors for a missing or incompatible model."""

from __future__ import annotations

import json
import math

import pytest

from coderl.base.config import ConfigError
from coderl.rewards import RewardConfig
from coderl.rewards.components import REWARDS
from coderl.rewards.learned import RewardModelScorer, check_reward_model, load_scorer, normalize
from coderl.rewards.score import score
from tests.models.tiny import tiny_config, tiny_tokenizer
from tests.rewards.helpers import CHAT, TASK, result, sample

TEXTS = ["def add(a, b):\n    return a + b\n", "x", "for i in range(10):\n    print(i)\n" * 3,
         "Write a Python function that returns the sum of a list.", "import math\n"]


def save_classifier(path, *, pad: bool = True, padding_side: str = "right", chat: bool = True, labels: int = 1,
                    seed: int = 0):
    import torch
    from transformers import LlamaForSequenceClassification

    tok = tiny_tokenizer(pad=pad, chat_template=chat)
    tok.padding_side = padding_side
    config = tiny_config(len(tok))
    config.num_labels = labels
    if not pad:
        config.pad_token_id = None
    torch.manual_seed(seed)
    model = LlamaForSequenceClassification(config).eval()
    with torch.no_grad():  # a random score head is ~0; give the scores a spread worth comparing
        model.score.weight.normal_(0, 5.0)
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


@pytest.fixture(scope="module")
def rm_dir(tmp_path_factory):
    return save_classifier(tmp_path_factory.mktemp("rm") / "right")


def one_by_one(scorer: RewardModelScorer, texts: list[str]) -> list[float]:
    return [scorer.score([t], batch_size=1)[0] for t in texts]


def test_batched_scores_equal_unbatched_scores(rm_dir):
    scorer = RewardModelScorer(rm_dir, "cpu")
    batched = scorer.score(TEXTS, batch_size=8)
    assert batched == pytest.approx(one_by_one(scorer, TEXTS), abs=1e-5)
    assert batched == pytest.approx(scorer.score(TEXTS, batch_size=2), abs=1e-5)
    assert max(batched) - min(batched) > 0.1  # the texts are told apart: the test compares something


def test_left_and_right_padding_give_the_same_scores(rm_dir, tmp_path):
    left = save_classifier(tmp_path / "left", padding_side="left")
    right_scores = RewardModelScorer(rm_dir, "cpu").score(TEXTS)
    left_scorer = RewardModelScorer(left, "cpu")
    assert left_scorer.tokenizer.padding_side == "right"  # the scorer pads on the right whatever was saved
    assert left_scorer.score(TEXTS) == pytest.approx(right_scores, abs=1e-5)


def save_bert_classifier(path, padding_side: str):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tok = tiny_tokenizer(chat_template=False)
    tok.padding_side = padding_side
    config = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=128, num_labels=1, pad_token_id=2)
    torch.manual_seed(0)
    model = BertForSequenceClassification(config).eval()
    with torch.no_grad():
        model.classifier.weight.normal_(0, 5.0)
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return str(path)


def test_an_encoder_that_pools_its_first_position_scores_the_same_batched(tmp_path):
    """Why the scorer pads on the right: an encoder classifier reads position 0, a pad under left padding."""
    scorer = RewardModelScorer(save_bert_classifier(tmp_path / "bert", "left"), "cpu")
    assert scorer.score(TEXTS) == pytest.approx(one_by_one(scorer, TEXTS), abs=1e-5)
    scorer.tokenizer.padding_side = "left"  # what the saved tokenizer asked for
    assert scorer.score(TEXTS) != pytest.approx(one_by_one(scorer, TEXTS), abs=1e-5)


def test_a_tokenizer_without_a_pad_token_works(tmp_path):
    path = save_classifier(tmp_path / "nopad", pad=False)
    scorer = RewardModelScorer(path, "cpu")
    assert scorer.tokenizer.pad_token == "<|im_end|>" and scorer.model.config.pad_token_id == scorer.tokenizer.pad_token_id
    assert scorer.score(TEXTS) == pytest.approx(one_by_one(scorer, TEXTS), abs=1e-5)


def test_what_is_scored_is_the_chat_or_the_prompt_and_reply(rm_dir, tmp_path):
    chat = RewardModelScorer(rm_dir, "cpu")
    assert chat.text("question", "PROMPT", "reply") == \
        "<|im_start|>user\nquestion<|im_end|>\n<|im_start|>assistant\nreply<|im_end|>\n"
    plain = RewardModelScorer(save_classifier(tmp_path / "plain", chat=False), "cpu")
    assert plain.text("question", "PROMPT ", "reply") == "PROMPT reply"


def test_long_texts_keep_their_end(rm_dir):
    scorer = RewardModelScorer(rm_dir, "cpu", max_tokens=16)
    assert scorer.tokenizer.truncation_side == "left"
    long = "import math\n" * 50 + TEXTS[0]
    enc = scorer.tokenizer([long], truncation=True, max_length=16)
    assert len(enc["input_ids"][0]) == 16 and scorer.tokenizer.decode(enc["input_ids"][0]).endswith("a + b\n")


# ---- normalisation -----------------------------------------------------------------------------


def test_normalize_by_hand():
    # sigmoid(0) = 0.5, sigmoid(2) = 1 / (1 + e^-2) = 0.880797; stable for large negatives
    assert normalize([0.0, 2.0, -800.0], "sigmoid") == pytest.approx([0.5, 0.880797, 0.0], abs=1e-6)
    # [1, 2, 3]: mean 2, population std sqrt(2/3) = 0.816497 -> [-1.224745, 0, 1.224745]
    assert normalize([1.0, 2.0, 3.0], "batch") == pytest.approx([-1.224745, 0.0, 1.224745], abs=1e-6)
    assert normalize([4.0], "batch") == [0.0] and normalize([2.0, 2.0], "batch") == [0.0, 0.0]
    assert normalize([3.5, -1.0], "none") == [3.5, -1.0]
    with pytest.raises(ConfigError, match="expected one of sigmoid, batch, none"):
        normalize([1.0], "rank")


# ---- mixing with test rewards ---------------------------------------------------------------------


def test_score_mixes_test_and_rm_rewards_by_weight(rm_dir):
    cfg = RewardConfig(weights={"pass": 0.5, "reward_model": 0.5}, reward_model=rm_dir, reward_model_device="cpu")
    samples = [sample(CHAT), sample("    return a - b\n"), sample("")]
    results = [result(True), result(False), result(False)]
    batch = score(cfg, results, samples, [TASK] * 3)
    scorer = load_scorer(rm_dir, "cpu", cfg.reward_model_max_tokens)
    from coderl.rollout.formats import user_message

    raw = scorer.score([scorer.text(user_message(TASK), s.prompt, s.raw_output) for s in samples])
    rm = [1 / (1 + math.exp(-r)) for r in raw]
    assert batch.components["reward_model"] == pytest.approx(rm, abs=1e-6)
    assert batch.total == pytest.approx([0.5 * p + 0.5 * r for p, r in zip([1, 0, 0], rm)], abs=1e-6)
    assert batch.metrics()["reward/weighted/reward_model"] == pytest.approx(0.5 * sum(rm) / 3, abs=1e-6)
    # the component called alone (no batch) gives the same score
    component = REWARDS["reward_model"]
    params = {p: getattr(cfg, p) for p in component.params}
    assert component.fn(results[0], samples[0], TASK, **params) == pytest.approx(rm[0], abs=1e-5)


def test_batch_normalisation_is_over_the_score_call(rm_dir):
    cfg = RewardConfig(weights={"reward_model": 1.0}, reward_model=rm_dir, reward_model_device="cpu",
                       reward_model_normalize="batch")
    values = score(cfg, [result(True)] * 3, [sample(t) for t in TEXTS[:3]], [TASK] * 3).components["reward_model"]
    assert sum(values) == pytest.approx(0.0, abs=1e-6) and sum(v * v for v in values) / 3 == pytest.approx(1.0)


# ---- errors ---------------------------------------------------------------------------------------


def test_missing_and_incompatible_models_are_one_line_errors(tmp_path):
    cases = [(None, "needs a local HF folder"), (str(tmp_path / "nope"), "no such model folder")]
    causal = tmp_path / "causal"
    causal.mkdir()
    (causal / "config.json").write_text(json.dumps({"architectures": ["LlamaForCausalLM"]}))
    cases.append((str(causal), r"not a sequence-classification model \(architectures: LlamaForCausalLM"))
    two = save_classifier(tmp_path / "two", labels=2)
    cases.append((two, "the classifier has 2 outputs; a reward model has one"))
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "config.json").write_text("{not json")
    cases.append((str(broken), "config.json is unreadable"))
    for path, words in cases:
        with pytest.raises(ConfigError, match=words) as info:
            check_reward_model(path)
        assert "\n" not in str(info.value)
    with pytest.raises(ConfigError, match="needs a local HF folder"):
        RewardConfig(weights={"reward_model": 1.0})


def test_weights_without_the_model_files_fail_at_load_in_one_line(tmp_path):
    folder = tmp_path / "noweights"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"architectures": ["LlamaForSequenceClassification"],
                                                    "num_labels": 1, "model_type": "llama"}))
    with pytest.raises(ConfigError, match="cannot load it") as info:
        RewardModelScorer(str(folder), "cpu")
    assert "\n" not in str(info.value)


def test_train_config_reward_model_flags(rm_dir):
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.rewards import reward_config

    def config(**fields):
        return build(TrainConfig, dict(out="/tmp/x", tasks="easy", eval_tasks=None, device="cpu", **fields))

    rc = reward_config(config(reward_weights={"pass": 0.5, "reward_model": 0.5}, reward_model=rm_dir,
                              reward_model_normalize="batch"))
    assert rc.weights == {"pass": 0.5, "reward_model": 0.5} and rc.reward_model == rm_dir
    assert rc.reward_model_normalize == "batch" and rc.reward_model_device == "cpu"  # auto follows --device
    with pytest.raises(ConfigError, match="no reward_model component to use it"):
        config(reward_model=rm_dir)
    with pytest.raises(ConfigError, match="needs a local HF folder"):
        config(reward_weights={"reward_model": 1.0})
    with pytest.raises(ConfigError, match="no such model folder"):
        config(reward_weights={"reward_model": 1.0}, reward_model="/nonexistent/rm")


def test_texts_are_capped_at_the_models_position_limit(tmp_path):
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    tok = tiny_tokenizer(chat_template=False)
    config = BertConfig(vocab_size=len(tok), hidden_size=32, num_hidden_layers=1, num_attention_heads=4,
                        intermediate_size=64, max_position_embeddings=64, num_labels=1, pad_token_id=2)
    torch.manual_seed(0)
    BertForSequenceClassification(config).save_pretrained(tmp_path / "short")
    tok.save_pretrained(tmp_path / "short")
    scorer = RewardModelScorer(str(tmp_path / "short"), "cpu", max_tokens=1024)
    assert scorer.max_tokens == 64
    assert len(scorer.score(["a " * 500, "b"])) == 2  # 500 tokens would overrun a 64-position table


def test_a_model_that_fails_to_load_is_one_line_and_stops_training_before_the_policy_loads(tmp_path):
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.rl.policy_gradient import train

    path = save_classifier(tmp_path / "mismatch", labels=2)
    config = json.loads((tmp_path / "mismatch" / "config.json").read_text())
    config.update(num_labels=1, id2label={"0": "LABEL_0"}, label2id={"LABEL_0": 0})
    (tmp_path / "mismatch" / "config.json").write_text(json.dumps(config))
    with pytest.raises(ConfigError, match="cannot load it") as info:
        RewardModelScorer(path, "cpu")
    assert "\n" not in str(info.value)
    policy = tmp_path / "no-policy-here"  # a folder that names a model but holds no weights: never loaded
    policy.mkdir()
    (policy / "config.json").write_text("{}")
    cfg = build(TrainConfig, dict(out=str(tmp_path / "run"), model=str(policy), tasks="easy",
                                  eval_tasks=None, device="cpu", reward_weights={"reward_model": 1.0}, reward_model=path))
    with pytest.raises(ConfigError, match="cannot load it"):
        train(cfg, log=lambda m: None)  # the policy cannot load: the RM was checked first
    assert not (tmp_path / "run").exists()


def test_reward_model_flag_values_are_checked_naming_the_flag(rm_dir):
    from coderl.base.config import build
    from coderl.train.config import TrainConfig
    from coderl.train.rewards import reward_config

    def config(**fields):
        return build(TrainConfig, dict(out="/tmp/x", tasks="easy", eval_tasks=None, device="cpu",
                                       reward_weights={"reward_model": 1.0}, reward_model=rm_dir, **fields))

    assert reward_config(config(reward_model_max_tokens=512)).reward_model_max_tokens == 512
    for field, flag in [("reward_model_batch_size", "reward_model_batch_size 0"),
                        ("reward_model_max_tokens", "reward_model_max_tokens 0")]:
        with pytest.raises(ConfigError, match=flag):
            config(**{field: 0})


@pytest.mark.parametrize("field,value,message", [
    ("reward_model_normalize", "zscore", r"^reward_model_normalize 'zscore': expected one of sigmoid, batch, none "
                                         r"\(a YAML-only setting\)$"),
    ("reward_model_device", "tpu", r"^reward_model_device 'tpu': expected one of auto, cpu, cuda \(a YAML-only "
                                   r"setting\)$"),
])
def test_yaml_only_reward_model_settings_name_their_key(field, value, message):
    with pytest.raises(ConfigError, match=message):
        RewardConfig(weights={"pass": 1.0}, **{field: value}).validate_reward_model(False)
