"""SFT on an agent's trajectories (issue 98, item 5): a conversation tokenised as generation saw it, turn by turn
(the template's rendering extended, never the whole text re-tokenised), the replies and their end-of-turn ids
labelled and every observation masked; a template that does not extend the conversation is refused; `coderl sft`
trains on a trajectories file."""

import json

import pytest

from coderl.base.config import ConfigError, build
from coderl.train.sft.conversations import Conversation, load_conversations, tokenize_conversation
from coderl.train.sft.data import build_conversation_examples
from coderl.train.sft.run import SFTConfig, sft
from tests.models.tiny import tiny_llama, tiny_tokenizer

IM_END = 2  # the tiny tokenizer's <|im_end|>

MESSAGES = (
    {"role": "user", "content": "Fix the issue: clamp(42, 0, 10) is 42."},
    {"role": "assistant", "content": "Run the tests.\n\n```bash\npytest -q\n```"},
    {"role": "user", "content": "exit code 1\n1 failed"},
    {"role": "assistant", "content": "```bash\nsubmit\n```"},
)


@pytest.fixture(scope="module")
def tok():
    return tiny_tokenizer()


def test_only_the_replies_and_their_ends_are_labelled(tok):
    ids, labels = tokenize_conversation(Conversation("t", MESSAGES), tok, IM_END)
    assert len(ids) == len(labels)
    labelled = [i for i, lab in zip(ids, labels) if lab != -100]
    assert labelled == [i for i, lab in zip(ids, labels) if lab == i]  # a label is its own token, or -100
    replies = [tok(m["content"], add_special_tokens=False)["input_ids"] + [IM_END] for m in MESSAGES
               if m["role"] == "assistant"]
    assert labelled == replies[0] + replies[1]
    # what is masked is exactly the rendering of the rest: the prompt before the first reply, then the observation
    # with the template's glue around it
    prompt = tok.apply_chat_template(list(MESSAGES[:1]), add_generation_prompt=True, tokenize=False)
    first = tok(prompt, add_special_tokens=False)["input_ids"]
    assert ids[: len(first)] == first and all(lab == -100 for lab in labels[: len(first)])
    assert "1 failed" in tok.decode([i for i, lab in zip(ids, labels) if lab == -100])
    assert "1 failed" not in tok.decode(labelled)


def test_a_template_that_drops_earlier_turns_is_refused(tok):
    import copy

    dropping = copy.deepcopy(tok)
    # a template that renders only the last user message (as a template dropping earlier reasoning would)
    dropping.chat_template = ("{% for m in messages[-1:] %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
                              "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
    with pytest.raises(ConfigError, match="does not extend"):
        tokenize_conversation(Conversation("t", MESSAGES), dropping, IM_END)


def test_a_bad_row_is_one_line(tmp_path):
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"task_id": "a", "messages": [{"role": "user", "content": "x"}]}) + "\n")
    with pytest.raises(ConfigError, match=r"t.jsonl:1: field 'messages': expected to end on an assistant reply"):
        load_conversations(str(path))
    path.write_text(json.dumps({"task_id": "a", "messages": [{"role": "robot", "content": "x"}]}) + "\n")
    with pytest.raises(ConfigError, match=r"messages\[0\]"):
        load_conversations(str(path))


def test_coderl_sft_trains_on_a_trajectories_file(tmp_path, tok):
    data = tmp_path / "trajectories.jsonl"
    rows = [{"task_id": f"t{i}", "messages": list(MESSAGES), "reason": "submitted"} for i in range(3)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    examples = build_conversation_examples(load_conversations(str(data)), tok, IM_END, 4096).examples
    assert len(examples) == 3 and examples[0].labels.count(-100) < len(examples[0].labels)
    model_dir = tiny_llama(tmp_path / "model")
    cfg = build(SFTConfig, dict(out=str(tmp_path / "run"), model=str(model_dir), data=str(data), format="chat",
                                progress=False, device="cpu", learning_rate=1e-2, batch_size=1,
                                gradient_accumulation=1, max_length=4096, epochs=1))
    result = sft(cfg)
    assert result.steps == 3 and result.metrics["sft/loss"] > 0
    recorded = json.loads((tmp_path / "run" / "sft_data.json").read_text())
    assert recorded["examples"] == 3 and "conversations" in json.dumps(recorded["data"])
