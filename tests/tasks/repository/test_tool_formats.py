"""Tool-call formats (`coderl.rollout.tool_calls`, issue 98 item 2): each format's parser reads back what its renderer
(and the model's own chat template) writes, over generated commands; malformed replies are observations saying why;
`auto` finds the format a template speaks and a named one it does not speak is refused in one line; episodes in the
templated formats resolve a fixture task through the same collector, the tools in the prompt and the observations in
the tool role; the oracle's trajectory in a templated format is SFT data whose ids are the episode's.

The two templates (tests/fixtures/chat_templates/) are written for these tests in the form of Qwen2.5's (Hermes) and
Qwen3-Coder's; no model hub is reachable here."""

import json
import random
from pathlib import Path

import pytest

from coderl.rollout.tool_calls import (
    BASH,
    SUBMIT,
    TOOLS,
    Malformed,
    ToolCall,
    by_name,
    resolve,
    template_call,
    template_format,
)
from tests.models.tiny import tiny_tokenizer

TEMPLATES = Path(__file__).resolve().parents[2] / "fixtures" / "chat_templates"
TEMPLATE_OF = {"hermes": "hermes.jinja", "qwen3-coder": "qwen3_coder.jinja"}


def _tokenizer(fmt: str | None):
    tok = tiny_tokenizer()
    if fmt is not None:
        tok.chat_template = (TEMPLATES / TEMPLATE_OF[fmt]).read_text()
    return tok


def _commands(n: int, seed: int = 0) -> list[str]:
    """Shell commands with what a format must carry: quotes, backslashes, braces, newlines, tags, unicode, JSON."""
    rng = random.Random(seed)
    pieces = ["ls -la", "'a b'", '"c d"', "\\n", "\\\\", "{}", '{"k": [1, 2]}', "$HOME", "&&", "|", ";", "<x>",
              "</y>", "é ü 中", "\t", "\n", "cat <<'EOF'\nline\nEOF", "python -c 'print(1)'", "# note", "`pwd`", "=",
              "<parameter=", "<function=x>"]
    out = []
    for _ in range(n):
        text = " ".join(rng.choice(pieces) for _ in range(rng.randint(1, 8))).strip()
        out.append(text or "true")
    return out


@pytest.mark.parametrize("name", ["bash-block", "hermes", "qwen3-coder"])
def test_every_format_reads_back_what_it_writes(name):
    fmt = by_name(name)
    for command in _commands(150):
        if name == "qwen3-coder" and ("<parameter=" in command or "</parameter>" in command):
            continue  # the XML cannot carry its own tags (as vLLM's parser cannot)
        for thought in ("", "Run the tests first.\nThen read the failure."):
            call = ToolCall(BASH, {"command": command})
            assert fmt.parse(fmt.render(call, thought)) == call, (name, command)
        assert fmt.parse(fmt.render(ToolCall(SUBMIT), "Done.")) == ToolCall(SUBMIT)


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder"])
def test_a_templated_format_reads_the_call_its_template_writes_for_every_command(name):
    """What a model trained on the template writes, read back: the template's own rendering of each call."""
    tok = _tokenizer(name)
    user = [{"role": "user", "content": "x"}]
    before = tok.apply_chat_template(user, tools=TOOLS, tokenize=False, add_generation_prompt=True)
    for command in _commands(60, seed=1):
        if name == "qwen3-coder" and ("<parameter=" in command or "</parameter>" in command):
            continue
        message = {"role": "assistant", "content": "",
                   "tool_calls": [{"type": "function", "function": {"name": BASH, "arguments": {"command": command}}}]}
        written = tok.apply_chat_template(user + [message], tools=TOOLS, tokenize=False)[len(before):]
        assert by_name(name).parse(written) == ToolCall(BASH, {"command": command}), command


@pytest.mark.parametrize("name, reply, why", [
    ("bash-block", "I will think about it.", "exactly one ```bash block"),
    ("bash-block", "```bash\nls\n```\n```bash\npwd\n```", "it held 2"),
    ("bash-block", "```python\nprint(1)\n```", "exactly one ```bash block"),
    ("hermes", "Let me look.", "called no tool"),
    ("hermes", '<tool_call>\n{"name": "bash", "arguments": {"command": "ls"}}', "never closed"),
    ("hermes", '<tool_call>{"name": "bash", "arguments": {"command": "ls"}}</tool_call>'
               '<tool_call>{"name": "submit", "arguments": {}}</tool_call>', "2 tool calls"),
    ("hermes", "<tool_call>\n{name: bash}\n</tool_call>", "not JSON"),
    ("hermes", '<tool_call>["bash"]</tool_call>', "JSON object"),
    ("hermes", '<tool_call>{"name": "python", "arguments": {"code": "1"}}</tool_call>', "no tool 'python'"),
    ("hermes", '<tool_call>{"name": "bash", "arguments": {}}</tool_call>', "needs the argument 'command'"),
    ("hermes", '<tool_call>{"name": "bash", "arguments": {"command": "ls", "cwd": "/"}}</tool_call>',
     "takes no argument 'cwd'"),
    ("hermes", '<tool_call>{"name": "bash", "arguments": {"command": ["ls"]}}</tool_call>', "must be a string"),
    ("hermes", '<tool_call>{"name": "bash", "arguments": "[1]"}</tool_call>', "not a JSON object"),
    ("qwen3-coder", "<tool_call>\n<function=bash>\n<parameter=command>\nls\n</parameter>\n</function>",
     "never closed"),
    ("qwen3-coder", "<tool_call>\n<parameter=command>\nls\n</parameter>\n</tool_call>", "one <function=NAME>"),
    ("qwen3-coder", "<tool_call>\n<function=bash>\n</function>\n</tool_call>", "needs the argument 'command'"),
    ("qwen3-coder", "<tool_call>\n<function=shell>\n<parameter=cmd>\nls\n</parameter>\n</function>\n</tool_call>",
     "no tool 'shell'"),
])
def test_a_malformed_call_is_an_observation_that_says_why(name, reply, why):
    with pytest.raises(Malformed, match=why.replace("(", r"\(").replace("[", r"\[")):
        by_name(name).parse(reply)


def test_lenient_where_the_common_parsers_are():
    # arguments as a JSON string (OpenAI's wire form) and a parameter left unclosed before </function> (vLLM's)
    assert by_name("hermes").parse('<tool_call>{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}</tool_call>') \
        == ToolCall(BASH, {"command": "ls"})
    assert by_name("qwen3-coder").parse("<tool_call><function=bash><parameter=command>ls</function></tool_call>") \
        == ToolCall(BASH, {"command": "ls"})
    assert by_name("bash-block").parse("```sh\n  submit  \n```") == ToolCall(SUBMIT)


def test_auto_finds_the_template_s_format_and_a_format_it_does_not_speak_is_one_line():
    assert resolve("auto", _tokenizer(None)).name == "bash-block"  # ChatML without tools, as the bundled model's
    assert resolve("auto", _tokenizer("hermes")).name == "hermes"
    assert resolve("auto", _tokenizer("qwen3-coder")).name == "qwen3-coder"
    assert template_call(_tokenizer(None)) is None and template_format(_tokenizer("hermes")) == "hermes"
    assert resolve("bash-block", _tokenizer("hermes")).name == "bash-block"  # always possible: the instructions say it
    with pytest.raises(ValueError, match=r"^--tool-format hermes: the model's chat template renders no tools "
                                         r"\(expected hermes\); use --tool-format bash-block or auto$"):
        resolve("hermes", _tokenizer(None))
    with pytest.raises(ValueError, match=r"^--tool-format qwen3-coder: the model's chat template writes tool calls "
                                         r"as hermes \(expected qwen3-coder\); use --tool-format hermes or auto$"):
        resolve("qwen3-coder", _tokenizer("hermes"))
    with pytest.raises(ValueError, match="'json' is not a tool-call format"):
        resolve("json", _tokenizer(None))


# ---- episodes in the templated formats (the real sandbox, the fixture repository) --------------------------------

torch = pytest.importorskip("torch")


def _shown_task(tasks):
    from coderl.tasks.repository.task import repository_of

    return next(t for t in tasks if set(repository_of(t).fail_to_pass) - set(repository_of(t).hidden))


@pytest.mark.parametrize("name", ["hermes", "qwen3-coder"])
def test_an_episode_in_a_templated_format_resolves_with_tools_in_the_prompt(name, fixture_tasks, repo_sandbox,
                                                                          monkeypatch):
    from coderl.rollout.agent import AgentConfig, collect_agent
    from coderl.rollout.collect import Generation
    from coderl.rollout.repository_env import oracle_replies
    from tests.models.tiny import tiny_model
    from tests.rollout.scripted import script_engine

    model, tok = tiny_model(seed=0, tokenizer=_tokenizer(name))
    task = _shown_task(fixture_tasks)
    replies = oracle_replies(task, by_name(name))
    assert all("```bash" not in r and "<tool_call>" in r for r in replies)
    calls = script_engine(monkeypatch, replies)
    gen = Generation(format="chat", samples_per_prompt=1, max_new_tokens=8)
    got = collect_agent(model, tok, [task], repo_sandbox, gen, AgentConfig(agent=True, tool_format="auto"),
                        max_sequence_tokens=1 << 16)
    (episode,) = got.episodes
    assert got.tool_format == name
    assert (episode.status, episode.reason, episode.malformed) == ("FULL", "submitted", 0)
    assert episode.observations[0].startswith("exit code 1") and episode.observations[-1].startswith("exit code 0")
    first = tok.decode(calls[0][0])
    assert "# Tools" in first and '"name": "bash"' in first.replace("<name>bash</name>", '"name": "bash"')
    last = tok.decode(calls[-1][0])
    assert last.count("<tool_response>") == len(replies) - 1  # every observation in the tool role
    for before, after in zip(calls, calls[1:]):  # each turn's prompt extends the last
        assert after[0][:len(before[0])] == before[0]
    # a format the template does not speak: refused before anything runs (one line, exit 2 at the CLI)
    from coderl.base.config import ConfigError

    other = "qwen3-coder" if name == "hermes" else "hermes"
    with pytest.raises(ConfigError, match=f"--tool-format {other}: the model's chat template writes tool calls as"):
        collect_agent(model, tok, [task], repo_sandbox, gen, AgentConfig(agent=True, tool_format=other))


def test_a_templated_oracle_trajectory_is_sft_data_with_the_episode_s_ids(fixture_tasks, repo_sandbox, tmp_path,
                                                                         monkeypatch):
    """`coderl tasks oracle --tool-format hermes` rows carry the tools and the tool role; SFT tokenises them into the
    very ids an episode of the same replies is made of, and trains the replies only."""
    from coderl.rollout.agent import AgentConfig, collect_agent
    from coderl.rollout.collect import Generation
    from coderl.rollout.repository_env import oracle_replies, play
    from coderl.train.sft.conversations import load_conversations, tokenize_conversation
    from tests.models.tiny import tiny_model
    from tests.rollout.scripted import script_engine

    tok = _tokenizer("hermes")
    task = _shown_task(fixture_tasks)
    fmt = by_name("hermes")
    row = play(repo_sandbox, task, oracle_replies(task, fmt), tool_format=fmt)
    assert row["verdict"]["status"] == "FULL" and row["tools"] == TOOLS
    assert {m["role"] for m in row["messages"][1:]} == {"assistant", "tool"}
    path = tmp_path / "trajectories.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (conversation,) = load_conversations(str(path))
    ids, labels = tokenize_conversation(conversation, tok, tok.convert_tokens_to_ids("<|im_end|>"))

    model, _ = tiny_model(seed=0, tokenizer=tok)
    replies = [m["content"] for m in row["messages"] if m["role"] == "assistant"]
    calls = script_engine(monkeypatch, replies)
    gen = Generation(format="chat", samples_per_prompt=1, max_new_tokens=8)
    collect_agent(model, tok, [task], repo_sandbox, gen, AgentConfig(agent=True, tool_format="hermes"),
                  max_sequence_tokens=1 << 16)
    last_prompt = calls[-1][0]
    reply_ids = tok(replies[-1], add_special_tokens=False)["input_ids"]
    # the episode's ids (its last prompt and last reply) are SFT's, but for the end-of-turn id SFT appends to the
    # last reply (the scripted engine's replies end without it; the glue after each earlier one holds it)
    assert ids == last_prompt + reply_ids + [tok.convert_tokens_to_ids("<|im_end|>")]
    trained = [i for i, label in zip(ids, labels) if label != -100]
    assert len(trained) == sum(len(tok(r, add_special_tokens=False)["input_ids"]) + 1 for r in replies)
    assert "<tool_response>" not in tok.decode(trained)  # observations are never trained
