"""How an agent's reply calls a tool (issue 98, item 2): the formats, their parsers, and which one a model's chat
template speaks.  docs/agents.md, "Tool-call formats".

The tools are the same in every format: `bash(command)` runs one shell command in the working copy, `edit(path,
start, end, text)` replaces a file's lines `start`..`end` (as `nl -ba` numbers them) with `text` -- a fix written as
the lines it changes, with no diff syntax or context to get exactly right (SWE-agent's line-range edit) -- and
`submit()` ends the episode (`TOOLS`: OpenAI function schemas, what a chat template's `tools=` renders).

* `bash-block` (for a model whose chat template renders no tools, as the bundled SmolLM2's): the instructions say how
  to act in the first message; a reply holds exactly one fenced ```bash block, and the command `submit` alone submits
  (mini-swe-agent's plain format); a block whose first line is `edit PATH START END` is an edit, its other lines the
  new text.  Observations come back as the user.
* `hermes`: the model's own chat template renders `tools=` (Qwen2.5's, Hermes'): a reply holds one
  `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`; observations come back in the `tool` role (the template
  wraps them, Qwen2.5's in <tool_response>).
* `qwen3-coder`: the same with Qwen3-Coder's XML call: `<tool_call><function=bash><parameter=command>...
  </parameter></function></tool_call>` (a value's one leading and one trailing newline are not part of it, as
  vLLM's parser reads it).
* `auto`: the format whose parser reads back the call the model's own template writes for a probe assistant message
  with `tool_calls` (`template_format`); `bash-block` when the template renders no tools.  A named format the template
  does not speak is refused in one line.

A reply that calls no tool, several, an unknown one, or with arguments the schema does not allow is malformed
(`Malformed`, whose message is the observation the agent gets).  Text beside the call (the model's reasoning) is
allowed.  Neither JSON nor the XML escapes `</tool_call>`, so a command holding that text cannot be called (as with
vLLM's parsers).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

BASH, EDIT, SUBMIT = "bash", "edit", "submit"
TOOLS = [
    {"type": "function", "function": {
        "name": BASH,
        "description": "Run one shell command in the repository's top folder (a fresh bash each time; the "
                       "environment's python and pytest first on PATH). Returns its exit code and output.",
        "parameters": {"type": "object", "properties": {
            "command": {"type": "string", "description": "the command, as bash -c runs it"}},
            "required": ["command"]}}},
    {"type": "function", "function": {
        "name": EDIT,
        "description": "Replace lines start to end of a file (numbered from 1 as `nl -ba` shows them, both "
                       "included) with text; end = start - 1 inserts the text before line start, an empty text "
                       "deletes the lines. Returns the edited lines, numbered.",
        "parameters": {"type": "object", "properties": {
            "path": {"type": "string", "description": "the file, relative to the repository's top folder"},
            "start": {"type": "integer", "description": "the first line replaced"},
            "end": {"type": "integer", "description": "the last line replaced"},
            "text": {"type": "string", "description": "the new lines"}},
            "required": ["path", "start", "end", "text"]}}},
    {"type": "function", "function": {
        "name": SUBMIT,
        "description": "Submit the working copy as the fix of the issue (ends the episode).",
        "parameters": {"type": "object", "properties": {}, "required": []}}},
]
FORMATS = ("bash-block", "hermes", "qwen3-coder")
CHOICES = ("auto", *FORMATS)


class Malformed(ValueError):
    """A reply that is not one valid tool call; its message is what the agent is told."""


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict = field(default_factory=dict)

    @property
    def command(self) -> str | None:
        """The shell command (bash), or None for submit."""
        return self.arguments.get("command") if self.name == BASH else None


def check(call: ToolCall, tools: list = TOOLS) -> ToolCall:
    """`call` if its tool exists and its arguments are what the schema allows (strings where it says string; an
    integer, or a string of one as an XML call carries it, where it says integer -- given back as an int)."""
    schemas = {t["function"]["name"]: t["function"]["parameters"] for t in tools}
    if call.name not in schemas:
        raise Malformed(f"there is no tool {call.name!r} (the tools: {', '.join(schemas)})")
    schema = schemas[call.name]
    allowed = schema.get("properties", {})
    for name in schema.get("required", []):
        if name not in call.arguments:
            raise Malformed(f"the tool {call.name!r} needs the argument {name!r}")
    for name, value in call.arguments.items():
        if name not in allowed:
            raise Malformed(f"the tool {call.name!r} takes no argument {name!r}")
        if allowed[name].get("type") == "string" and not isinstance(value, str):
            raise Malformed(f"the tool {call.name!r}'s argument {name!r} must be a string")
    integers = {}
    for name, value in call.arguments.items():
        if allowed[name].get("type") != "integer":
            continue
        if isinstance(value, str) and re.fullmatch(r"\s*-?\d+\s*", value):
            value = int(value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise Malformed(f"the tool {call.name!r}'s argument {name!r} must be an integer")
        integers[name] = value
    return ToolCall(call.name, {**call.arguments, **integers}) if integers else call


_BLOCK = re.compile(r"```(?:bash|sh)[ \t]*\n(.*?)```", re.DOTALL)
_EDIT_LINE = re.compile(r"edit[ \t]+(\S+)[ \t]+(\d+)[ \t]+(\d+)[ \t]*")
_TOOL_CALL = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)


class BashBlock:
    """One fenced ```bash block; `submit` alone submits; `edit PATH START END` as its first line, an edit whose text
    is the block's other lines (kept as written: their indentation is the code's)."""

    name = "bash-block"
    observation_role = "user"
    template_tools = False  # the instructions, not the template, say how to act

    def parse(self, text: str) -> ToolCall:
        blocks = _BLOCK.findall(text)
        if len(blocks) != 1:
            raise Malformed("Your reply must hold exactly one ```bash block with one command (or `submit` alone "
                            f"once the issue is fixed); it held {len(blocks)}.")
        first, _, rest = blocks[0].lstrip("\n").partition("\n")
        edit = _EDIT_LINE.fullmatch(first)
        if edit:
            path, start, end = edit.groups()
            return ToolCall(EDIT, {"path": path, "start": int(start), "end": int(end),
                                   "text": rest[:-1] if rest.endswith("\n") else rest})
        if first.split()[:1] == [EDIT]:  # an edit that misses its form: said so (bash has no command `edit`)
            raise Malformed("An edit's block starts with the line `edit FILE START END` (START and END: line numbers "
                            f"as `nl -ba FILE` shows them), then the new lines; this one started `{first[:80]}`.")
        command = blocks[0].strip()
        return ToolCall(SUBMIT) if command == SUBMIT else ToolCall(BASH, {"command": command})

    def render(self, call: ToolCall, thought: str = "") -> str:
        if call.name == EDIT:
            a = call.arguments
            command = f"edit {a['path']} {a['start']} {a['end']}" + (f"\n{a['text']}" if a["text"] else "")
        else:
            command = SUBMIT if call.name == SUBMIT else call.arguments["command"]
        return f"{thought}\n\n```bash\n{command}\n```" if thought else f"```bash\n{command}\n```"

    def instructions(self) -> str:
        return ("You are working in the repository's top folder. Each reply: think briefly, then give exactly one "
                "shell command in a fenced ```bash block. Its output comes back to you. The repository's tests run "
                "with `pytest` (and its code with `python`). To replace lines START to END of a file (as `nl -ba` "
                "numbers them), give a block whose first line is `edit FILE START END` and whose next lines are the "
                "new lines. When the issue is fixed, reply with the command `submit` alone.")


class _Tagged:
    """A format whose call sits in <tool_call> tags, with the tools rendered by the chat template."""

    name = ""
    observation_role = "tool"
    template_tools = True

    def parse(self, text: str) -> ToolCall:
        blocks = _TOOL_CALL.findall(text)
        if not blocks:
            opened = "<tool_call>" in text
            raise Malformed("Your reply opened a <tool_call> and never closed it." if opened else
                            "Your reply called no tool: call `bash` with one command, or `submit` once the issue "
                            "is fixed.")
        if len(blocks) > 1:
            raise Malformed(f"Your reply held {len(blocks)} tool calls; make one call a reply.")
        return check(self._call(blocks[0]))

    def instructions(self) -> str:
        return ("You are working in the repository's top folder. Each reply: think briefly, then call one tool: "
                "`bash` runs one shell command (its output comes back to you; the repository's tests run with "
                "`pytest`, its code with `python`); `edit` replaces lines of a file (as `nl -ba` numbers them); "
                "`submit` once the issue is fixed.")

    def _call(self, block: str) -> ToolCall:
        raise NotImplementedError


class Hermes(_Tagged):
    """<tool_call>{"name": ..., "arguments": {...}}</tool_call> (Qwen2.5, Hermes)."""

    name = "hermes"

    def _call(self, block: str) -> ToolCall:
        try:
            data = json.loads(block)
        except ValueError as exc:
            raise Malformed(f"Your tool call is not JSON ({exc}).") from None
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise Malformed('Your tool call must be a JSON object {"name": ..., "arguments": {...}}.')
        arguments = data.get("arguments", {})
        if isinstance(arguments, str):  # some models write the arguments as a JSON string, as OpenAI's API does
            try:
                arguments = json.loads(arguments)
            except ValueError:
                raise Malformed("Your tool call's arguments are not a JSON object.") from None
        if not isinstance(arguments, dict):
            raise Malformed("Your tool call's arguments are not a JSON object.")
        return ToolCall(data["name"], arguments)

    def render(self, call: ToolCall, thought: str = "") -> str:
        body = json.dumps({"name": call.name, "arguments": call.arguments}, ensure_ascii=False)
        return f"{thought}\n<tool_call>\n{body}\n</tool_call>" if thought else f"<tool_call>\n{body}\n</tool_call>"


_FUNCTION = re.compile(r"<function=([^>\n]+)>(.*?)</function>", re.DOTALL)
_PARAMETER = re.compile(r"<parameter=([^>\n]+)>(.*?)(?:</parameter>|(?=<parameter=)|$)", re.DOTALL)


class Qwen3Coder(_Tagged):
    """<tool_call><function=NAME><parameter=KEY>value</parameter>...</function></tool_call> (Qwen3-Coder)."""

    name = "qwen3-coder"

    def _call(self, block: str) -> ToolCall:
        functions = _FUNCTION.findall(block)
        if len(functions) != 1:
            raise Malformed("Your tool call must hold one <function=NAME>...</function>.")
        name, body = functions[0]
        arguments = {}
        for key, value in _PARAMETER.findall(body):
            value = value[1:] if value.startswith("\n") else value
            arguments[key.strip()] = value[:-1] if value.endswith("\n") else value
        return ToolCall(name.strip(), arguments)

    def render(self, call: ToolCall, thought: str = "") -> str:
        params = "".join(f"<parameter={k}>\n{v}\n</parameter>\n" for k, v in call.arguments.items())
        body = f"<tool_call>\n<function={call.name}>\n{params}</function>\n</tool_call>"
        return f"{thought}\n\n{body}" if thought else body


_BY_NAME = {f.name: f for f in (BashBlock(), Hermes(), Qwen3Coder())}


def template_renders_tools(tokenizer) -> bool:
    """Whether the chat template renders `tools=` at all (a template without tools ignores them)."""
    messages = [{"role": "user", "content": "x"}]
    try:
        with_tools = tokenizer.apply_chat_template(messages, tools=TOOLS, tokenize=False)
        return with_tools != tokenizer.apply_chat_template(messages, tokenize=False)
    except Exception:  # noqa: BLE001 -- a template that cannot take tools renders none
        return False


_PROBE = ToolCall(BASH, {"command": "ls -la 'a b' \"c\" && echo {}"})


def template_call(tokenizer) -> str | None:
    """The text the chat template writes for an assistant message calling `bash` (what a model trained on it
    produces), or None when it renders no tool calls."""
    user = [{"role": "user", "content": "x"}]
    call = {"role": "assistant", "content": "",
            "tool_calls": [{"type": "function", "function": {"name": _PROBE.name, "arguments": _PROBE.arguments}}]}
    try:
        before = tokenizer.apply_chat_template(user, tools=TOOLS, tokenize=False, add_generation_prompt=True)
        after = tokenizer.apply_chat_template(user + [call], tools=TOOLS, tokenize=False)
    except Exception:  # noqa: BLE001
        return None
    start = next((i for i, (a, b) in enumerate(zip(before, after)) if a != b), min(len(before), len(after)))
    return after[start:] if "<tool_call>" in after[start:] else None


def template_format(tokenizer) -> str | None:
    """The format whose parser reads back the template's own call (`template_call`), or None."""
    written = template_call(tokenizer)
    if written is None:
        return None
    for name in ("hermes", "qwen3-coder"):
        try:
            if _BY_NAME[name].parse(written) == _PROBE:
                return name
        except Malformed:
            continue
    return None


def resolve(name: str, tokenizer) -> BashBlock | Hermes | Qwen3Coder:
    """The format `name` names for this tokenizer (`auto`: the template's own, else bash-block); a templated format
    the template does not speak raises ValueError (one line)."""
    if name not in CHOICES:
        raise ValueError(f"--tool-format: {name!r} is not a tool-call format (expected one of {', '.join(CHOICES)})")
    if name == "bash-block":
        return _BY_NAME[name]
    spoken = template_format(tokenizer) if template_renders_tools(tokenizer) else None
    if name == "auto":
        return _BY_NAME[spoken or "bash-block"]
    if spoken != name:
        said = ("renders no tools" if not template_renders_tools(tokenizer) else
                f"writes tool calls as {spoken}" if spoken else "writes tool calls no parser here reads")
        raise ValueError(f"--tool-format {name}: the model's chat template {said} (expected {name}); use "
                         f"--tool-format {spoken or 'bash-block'} or auto")
    return _BY_NAME[name]


def by_name(name: str) -> BashBlock | Hermes | Qwen3Coder:
    """A format by its name, with no template to check it against (the scripted oracle's demonstrations)."""
    if name not in _BY_NAME:
        raise ValueError(f"--tool-format: {name!r} is not a tool-call format (expected one of {', '.join(FORMATS)})")
    return _BY_NAME[name]
