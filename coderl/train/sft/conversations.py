"""SFT on conversations: an agent's trajectories (issue 98: the oracle's, `coderl tasks oracle`), each a list of chat
messages, trained on the assistant's replies only.

A file of them is JSON lines with `messages` (a list of {"role": "system" | "user" | "assistant" | "tool", "content":
text}, ending on an assistant reply), `task_id`, and `tools` where the replies call tools in a format the chat template
renders (`rollout.tool_calls`: the template is applied with `tools=` as the agent's prompts are). Tokenised as
generation sees a conversation, never as one string: each assistant reply's prompt is the chat template's rendering of
the messages before it with the generation prompt, and only the text that rendering adds to what came before is
tokenised as glue (the end of the last reply, the observation, the next assistant header); the reply is tokenised alone,
then the end-of-turn id. So the ids are what a multi-turn episode's generation produced (`coderl.rollout.repair`'s token
path), and labels are -100 on everything but the replies and their end-of-turn ids: observations get no gradient. A
template whose rendering of a longer conversation does not extend the shorter one's (one that drops earlier reasoning)
is refused in one line, since the ids would no longer be the ones generation saw.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from coderl.base.config import ConfigError

ROLES = ("system", "user", "assistant", "tool")


@dataclass(frozen=True)
class Conversation:
    task_id: str
    messages: tuple[dict, ...]
    tools: list | None = None  # the tools the template renders into the prompt (a templated tool-call format)

    @property
    def prompt(self) -> str:
        """The task text it answers (the pipeline's leak check compares it with evaluation tasks' prompts): the issue
        in its first user message (between the <issue> tags the agent's environment writes), else that message."""
        first = next((m.get("content") or "" for m in self.messages if m.get("role") == "user"), "")
        found = re.search(r"<issue>\n(.*)\n</issue>", first, re.DOTALL)
        return found.group(1) if found else first


def is_conversation_file(data: str) -> bool:
    """A JSONL file whose first row holds `messages`."""
    if not data.endswith(".jsonl"):
        return False
    try:
        with open(data, encoding="utf-8") as f:
            first = next((line for line in f if line.strip()), "")
        return "messages" in json.loads(first)
    except (OSError, ValueError):
        return False


def load_conversations(path: str) -> list[Conversation]:
    """Every row of a conversation file, checked; a bad row is one line `file:LINE: ...`."""
    out = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                row = json.loads(line)
            except ValueError as exc:
                raise ConfigError(f"{where}: not JSON ({exc})") from None
            messages = row.get("messages") if isinstance(row, dict) else None
            if not isinstance(messages, list) or not messages:
                raise ConfigError(f"{where}: field 'messages': expected a non-empty list of chat messages")
            for i, m in enumerate(messages):
                if not (isinstance(m, dict) and m.get("role") in ROLES and isinstance(m.get("content"), str)):
                    raise ConfigError(f"{where}: field 'messages[{i}]': expected {{'role': one of {', '.join(ROLES)}, "
                                      "'content': text}")
            if messages[-1]["role"] != "assistant":
                raise ConfigError(f"{where}: field 'messages': expected to end on an assistant reply (what is trained)")
            tools = row.get("tools")
            if tools is not None and not (isinstance(tools, list) and all(isinstance(t, dict) for t in tools)):
                raise ConfigError(f"{where}: field 'tools': expected a list of tool schemas (objects)")
            out.append(Conversation(str(row.get("task_id", f"row-{number}")), tuple(messages), tools or None))
    return out


def tokenize_conversation(conversation: Conversation, tokenizer: Any, end_id: int) -> tuple[list[int], list[int]]:
    """(input ids, labels) of a conversation: the replies and their end-of-turn ids labelled, the rest -100."""
    end_text = tokenizer.decode([end_id])
    messages = list(conversation.messages)
    rendered = ""
    ids: list[int] = []
    labels: list[int] = []
    for i, message in enumerate(messages):
        if message["role"] != "assistant":
            continue
        prompt = tokenizer.apply_chat_template(messages[:i], tools=conversation.tools, add_generation_prompt=True,
                                               tokenize=False)
        if not prompt.startswith(rendered):
            raise ConfigError(f"conversation {conversation.task_id}: the chat template's rendering of the messages "
                              f"before reply {i} does not extend the rendering before the last reply: the ids would "
                              "not be the ones generation saw (a template that drops earlier turns?)")
        glue = tokenizer(prompt[len(rendered):], add_special_tokens=False)["input_ids"]  # the template wrote them
        reply = tokenizer(message["content"], add_special_tokens=False)["input_ids"] + [end_id]
        ids += glue + reply
        labels += [-100] * len(glue) + reply
        rendered = prompt + message["content"] + end_text
    return ids, labels

