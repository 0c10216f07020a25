"""An agent's environment in a repository task (issue 98, its environment half): the issue text first, then one
shell command per turn in the episode's working copy through the sandbox, until the agent submits or a limit ends it;
the grader's verdict is the reward.

    env = RepositoryEnvironment(sandbox, task, AgentLimits())
    observation = env.reset()                  # the issue and how to act
    step = env.step(model_text)                # its command's output, or why the reply was not a command
    ... until step.done; step.result / step.verdict: the grading run and FULL / PARTIAL / NO

How a reply calls a tool is its format (`rollout.tool_calls`: `bash-block`, a fenced ```bash block as mini-swe-agent's,
for a model without a tool template; `hermes` and `qwen3-coder`, the model's own template rendering the tools).
Whatever the format, a `bash` call's command runs as `bash -c` in a fresh process in the working copy (`/sandbox`), the
environment's `python` and `pytest` first on PATH (`/env/bin`), under the command's CPU limit, its output (stdout, then
stderr) cut to its first and last `output_chars / 2` characters; `submit` ends the episode and grades the working copy.
A reply that is not one valid call is malformed: its observation says why, and `malformed_in_a_row` malformed replies
in a row end the episode.

At every limit (turns, the episode's wall time) and after malformed replies, what is graded is the working copy as it
stands (an agent that fixed the code and ran out of turns is paid for the fix), and the end says why (`Step.reason`:
submitted, turns, wall_time, malformed).  Each command runs in the sandbox's episode (`ExecutionRequest.episode`): the
copy persists between commands, nothing else of a command does (its processes, its /tmp).  Observations carry no
timing of pytest's (its run summary's durations are replaced by `<time>`: the same commands give the same
observations, so a resumed run sees what the uninterrupted one saw; a clock a command reads itself, `date` or `time`,
is not normalised).
"""

from __future__ import annotations

import re
import shlex
import time
import uuid
from dataclasses import dataclass, field

from coderl.rollout.tool_calls import BASH, EDIT, SUBMIT, TOOLS, BashBlock, Malformed, ToolCall
from coderl.rollout.types import Sample
from coderl.rollout.types import Step as EpisodeStep
from coderl.sandbox.types import ExecutionRequest, ExecutionResult, Limits, Mode
from coderl.tasks.repository.grade import grading_request, submission_files, test_file, verdict
from coderl.tasks.repository.task import repository_of
from coderl.tasks.types import Task


@dataclass(frozen=True)
class AgentLimits:
    """What bounds an episode (each a setting a run may change)."""

    turns: int = 30  # replies the agent may give, the submit included
    command_cpu_seconds: float = 60.0  # one command's CPU limit (its wall backstop 3x + 1 s)
    output_chars: int = 10_000  # a command's output kept: its first and last half of this
    malformed_in_a_row: int = 3  # replies without exactly one bash block, in a row, that end the episode
    wall_seconds: float = 1800.0  # the whole episode's wall time (checked between turns)


@dataclass
class Step(EpisodeStep):  # reason: submitted, turns, wall_time, malformed (the collector's: context)
    result: ExecutionResult | None = None  # the grading run, once done
    verdict: dict = field(default_factory=dict)  # `grade.verdict`, once done


# pytest's run summary ("2 failed, 4 passed in 0.03s", "=== 5 passed in 1.20s (0:00:01) ===", "no tests ran in 0.01s")
_PYTEST_TIME = re.compile(r"(\b(?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|no tests ran)"
                          r"\b[^\n]*? in )\d+(?:\.\d+)?s(?: \(\d+:\d\d:\d\d\))?")


def normalise_timings(text: str) -> str:
    """`text` with the durations pytest prints in its run summary replaced by `<time>`, so the same commands give the
    same observations (a clock a command reads itself, `date` or `time`, is not normalised)."""
    return _PYTEST_TIME.sub(r"\1<time>", text)


def truncate(text: str, limit: int) -> str:
    """`text`, or its first and last `limit // 2` characters with how many were left out between them."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - 2 * half} characters left out ...]\n{text[-half:]}"


class RepositoryEnvironment:
    """One episode of an agent in one repository task (a sandbox episode of its own, closed at the end)."""

    def __init__(self, sandbox, task: Task, limits: AgentLimits | None = None, episode: str | None = None,
                 tool_format=None):
        if task.kind != "repository":
            raise ValueError(f"task {task.task_id}: an agent works on repository tasks (this one is {task.kind})")
        self.sandbox = sandbox
        self.task = task
        self.repo = repository_of(task)
        self.limits = limits or AgentLimits()
        self.format = tool_format or BashBlock()  # `rollout.tool_calls`: how a reply calls a tool
        self.tools = TOOLS if self.format.template_tools else None  # what the chat template renders, if anything
        self.observation_role = self.format.observation_role
        self.episode = episode or f"agent-{uuid.uuid4().hex}"
        self.turns = 0
        self.malformed = 0
        self.malformed_total = 0  # malformed replies in the whole episode (the tool-error rate's numerator)
        self.commands = 0  # commands run
        self.started = 0.0
        self.done = False
        self.group = 0  # its task's index in a collection (`rollout.agent`)
        self.reset_seconds = 0.0  # what making the working copy took (a group's members each make one)

    def first_message(self) -> str:
        """The first observation: the issue and how to act."""
        return f"{self.format.instructions()}\n\n<issue>\n{self.task.prompt.strip()}\n</issue>"

    def reset(self) -> str:
        """The episode's working copy made (the task's base), and the first observation."""
        overlay = {p: ({"delete": True} if t is None else t) for p, t in self.repo.overlay.items()}
        t0 = time.monotonic()
        made = self.sandbox.run(ExecutionRequest(Mode.COMMAND, argv=("true",), tree=self.repo.tree, files=overlay,
                                                 episode=self.episode, environment=self.repo.environment))
        if made.exit_code != 0:  # no working copy (the sandbox refused the episode): nothing may run in an empty one
            raise RuntimeError(f"task {self.task.task_id}: its working copy was not made "
                               f"({made.status.value}: {(made.message or made.stderr or '').strip()[:300]})")
        self.started = time.monotonic()
        self.reset_seconds = self.started - t0
        return self.first_message()

    # -- the episode collector's side (`rollout.episodes.Environment`)
    def prompt(self, tokenizer) -> tuple[list, str]:
        """The first chat messages and prompt text, the tools rendered by the template where the format has them
        (pure: nothing runs until `reset`)."""
        messages = [{"role": "user", "content": self.first_message()}]
        return messages, tokenizer.apply_chat_template(messages, tools=self.tools, tokenize=False,
                                                       add_generation_prompt=True)

    def stops(self) -> tuple[str, ...]:
        return ()  # a reply ends at the model's end of turn (a command may hold any text)

    def sample(self, tokenizer, prompt: str, row, stops) -> Sample:
        """A reply as a `Sample`: its text is what is acted on; `format_ok` when it holds one command."""
        del tokenizer, stops
        return Sample(task_id=self.task.task_id, group=self.group, prompt=prompt, raw_output=row.text,
                      completion=row.text, gen_tokens=tuple(row.ids), code_tokens=tuple(row.ids),
                      truncated=not row.ended, format_ok=self.call_of(row.text) is not None)

    def call_of(self, text: str) -> ToolCall | None:
        try:
            return self.format.parse(text)
        except Malformed:
            return None

    def step(self, text: str) -> Step:
        """The agent's reply: its command run (or the episode ended and graded)."""
        if self.done:
            raise RuntimeError("the episode has ended")
        self.turns += 1
        try:
            call = self.format.parse(text)
        except Malformed as exc:
            self.malformed += 1
            self.malformed_total += 1
            if self.malformed >= self.limits.malformed_in_a_row:
                return self._end("malformed")
            observation = str(exc)
        else:
            if call.name == SUBMIT:
                return self._end("submitted")
            self.malformed = 0
            self.commands += 1
            observation = self._edit(call.arguments) if call.name == EDIT else self._run(call.command)
        if self.turns >= self.limits.turns:
            return self._end("turns", observation)
        if time.monotonic() - self.started > self.limits.wall_seconds:
            return self._end("wall_time", observation)
        return Step(observation)

    def finish(self, reason: str = "stopped") -> Step:
        """End the episode now (the caller has no more replies): the working copy graded as it stands."""
        return self._end(reason)

    def _run(self, command: str) -> str:
        return self._observe(("bash", "-c", f"export PATH=/env/bin:$PATH; {command}"))

    def _edit(self, a: dict) -> str:
        """An `edit` call, made by a program in the working copy (the sandbox's, as a command's): its output is the
        edited lines, numbered, or why nothing was edited."""
        return self._observe(("bash", "-c", 'export PATH=/env/bin:$PATH; exec python -I -c "$@"', "edit",
                              EDIT_PROGRAM, a["path"], str(a["start"]), str(a["end"]), a["text"]))

    def _observe(self, argv: tuple) -> str:
        cpu = self.limits.command_cpu_seconds
        result = self.sandbox.run(ExecutionRequest(
            Mode.COMMAND, argv=argv, episode=self.episode, environment=self.repo.environment,
            limits=Limits(cpu_seconds=cpu, disk_bytes=512 * 2**20), compile_error=None))
        output = result.stdout + (("\n" if result.stdout and result.stderr else "") + result.stderr)
        if result.status.value == "timeout":
            head = f"the command ran past its limit of {cpu:g} CPU seconds and was stopped"
        elif result.signal is not None:
            head = f"the command was killed by signal {result.signal}"
        else:
            head = f"exit code {result.exit_code}"
        return f"{head}\n{truncate(normalise_timings(output), self.limits.output_chars)}".rstrip()

    def _end(self, reason: str, observation: str = "") -> Step:
        """The working copy graded as it stands (its diff from the base), the episode closed."""
        self.done = True
        try:
            files = submission_files(self.repo, self.sandbox.snapshot_episode(self.episode))
            result = self.sandbox.run(grading_request(self.repo, files=files))
        finally:
            self.sandbox.close_episode(self.episode)
        return Step(observation or f"episode ended: {reason}", True, reason, result, verdict(self.repo, result))


# the `edit` tool, run in the working copy: argv path, start, end, text; the lines start..end (1-based, both included;
# end = start - 1 inserts) replaced by the text's lines; a file's final newline, or its lack, is kept (an edit is
# about lines); prints the edited region numbered (3 lines each side)
EDIT_PROGRAM = r"""
import sys
path, start, end, text = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
try:
    with open(path, encoding="utf-8", newline="") as f:
        parts = f.read().split("\n")  # lines as nl numbers them (str.splitlines also splits at \f, \x1c, ...)
    lines = [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])
except FileNotFoundError:
    if (start, end) != (1, 0):
        sys.exit(f"nothing edited: {path}: no such file (`edit PATH 1 0` makes a new one)")
    lines = []
except (OSError, UnicodeDecodeError) as exc:
    sys.exit(f"nothing edited: {path}: {exc.strerror if isinstance(exc, OSError) else 'not UTF-8 text'}")
if not (1 <= start <= len(lines) + 1 and start - 1 <= end <= len(lines)):
    sys.exit(f"nothing edited: {path} has {len(lines)} lines; START must be 1 to {len(lines) + 1} and END from "
             f"START - 1 (an insertion) to {len(lines)} (asked: {start} {end})")
unended = bool(lines) and not lines[-1].endswith("\n")  # a file without a final newline is kept without one
if unended:
    lines[-1] += "\n"
new = [line + "\n" for line in text.split("\n")] if text else []
lines[start - 1:end] = new
if unended and lines:
    lines[-1] = lines[-1][:-1]
with open(path, "w", encoding="utf-8", newline="") as f:
    f.writelines(lines)
said = f"lines {start}-{end} replaced by" if end >= start else f"inserted before line {start}:"
print(f"{path}: {said} {len(new)} line(s)")
for i in range(max(1, start - 3), min(len(lines), start + len(new) + 2) + 1):
    print(f"{i:6d}\t{lines[i - 1].rstrip(chr(10))}")
"""

READ_MARGIN = 12  # lines the oracle reads on each side of the line a traceback points at (or of a hunk of the fix)
FRAME = re.compile(r"^(\S+?\.py):(\d+): in \S", re.M)  # a frame of pytest's --tb=short: `path:line: in name`


def oracle_agent(task: Task, tool_format=None):
    """A scripted agent that fixes the task through the same tools (a demonstration), as a generator: it yields a
    reply, is sent that reply's observation (`play` does), and yields the next.  It runs the tests the issue names
    (their test functions, at most three, quoted for the shell; where it names none, the file the hidden test came
    from) to the first failure, each traceback frame its file, line and source line (`--tb=short`).  It reads each
    file the fix changes, numbered: around the line that the traceback's deepest frame in that file points at
    where there is one (`READ_MARGIN` lines each side, widened to take in the lines the fix changes; a frame so far
    from them that the window would pass `6 * READ_MARGIN` lines is not followed), else around the fix's changes --
    so a demonstration's read follows from what the agent saw wherever the output shows it.  It makes the gold
    patch's changes with `edit` calls (one a change: the lines it replaces and their new text, the last change of a
    file first, so that every line number is the one read), runs the tests again and submits.  Its replies are
    written in `tool_format` (default bash-block).  Driven without observations (`oracle_replies`), it reads around
    the fix's changes."""
    fmt = tool_format or BashBlock()
    repo = repository_of(task)
    patch = task.reference_solution or ""
    shown = [t for t in repo.fail_to_pass if t not in repo.hidden]
    files = sorted({line[6:] for line in patch.splitlines() if line.startswith("+++ b/")})
    # the test functions the issue names (a parametrized id's values hold spaces and quotes a shell splits); an
    # issue that names none (every failing test hidden): the file the hidden test was taken from, whose other
    # tests pass -- where the behaviour is tested, not a failure to read
    named = list(dict.fromkeys(t.split("[", 1)[0] for t in shown))[:3]
    target = " ".join(shlex.quote(t) for t in (named or sorted({test_file(t) for t in repo.fail_to_pass})[:1]))
    first = ("First, run the tests the issue is about." if shown else
             "The issue names no test: first, run the tests of the file that covers this behaviour.")

    def bash(command: str, thought: str) -> str:
        return fmt.render(ToolCall(SUBMIT) if command == SUBMIT else ToolCall(BASH, {"command": command}), thought)

    output = yield bash(f"pytest -q -x --tb=short {target}".strip(), first)
    frames = [(m.group(1), int(m.group(2))) for m in FRAME.finditer(output or "")]
    for f in files[:2]:
        spans = _hunk_spans(patch, f)
        at = [line for path, line in frames if path == f]
        lo, hi = (at[-1] - READ_MARGIN, at[-1] + READ_MARGIN) if at else (0, 0)
        for a, b in spans:
            lo, hi = min(lo, a - 2), max(hi, b + 2)
        if at and hi - lo <= 6 * READ_MARGIN:  # a frame far from the fix (a caller's line): read the fix's place
            thought = f"The traceback's last frame in {f} is line {at[-1]}: read around it."
        else:
            lo = min(a for a, _ in spans) - READ_MARGIN if spans else 1
            hi = max(b for _, b in spans) + READ_MARGIN if spans else 200
            thought = f"Read {f} where the failing behaviour lives."
        yield bash(f"nl -ba {f} | sed -n '{max(1, lo)},{hi}p'", thought)
    for f, start, end, text in patch_edits(patch):
        span = f"line {start}" if end == start else f"lines {start}-{end}" if end > start else f"before line {start}"
        yield fmt.render(ToolCall(EDIT, {"path": f, "start": start, "end": end, "text": text}), f"Fix {f}, {span}.")
    yield bash(f"pytest -q {target}".strip(), "Run the tests again.")
    yield bash(SUBMIT, "The tests pass: submit.")


def oracle_replies(task: Task, tool_format=None) -> list[str]:
    """The oracle's replies with no observation sent back (its reads around the fix's changes): a fixed script."""
    return list(oracle_agent(task, tool_format))


def _hunks(patch: str):
    """Each hunk of the unified diff `patch`: (path, the header's base line, its base line count, the base's lines,
    the new lines).  A hunk is read by its header's counts (a removed line may start with `--`, an added one `++`)."""
    path, lines, i = None, patch.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if line.startswith("+++ "):
            path = line[6:] if line.startswith("+++ b/") else line[4:]
            continue
        hunk = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,(\d+))? @@", line)
        if not hunk or path is None:
            continue
        start, count, new_left = int(hunk.group(1)), int(hunk.group(2) or 1), int(hunk.group(3) or 1)
        old_left, old, new = count, [], []
        while (old_left or new_left) and i < len(lines):
            body = lines[i]
            i += 1
            kind, text = (body[:1] or " "), body[1:]  # an empty line: context whose space an editor stripped
            if kind == "\\":  # "\ No newline at end of file"
                continue
            if kind in " -":
                old.append(text)
                old_left -= 1
            if kind in " +":
                new.append(text)
                new_left -= 1
        yield path, start, count, old, new


def patch_edits(patch: str) -> list[tuple[str, int, int, str]]:
    """The unified diff `patch` as `edit` calls (path, start, end, text): each hunk's changed lines (its context
    trimmed) with their base line numbers, a file's last change first, so that applied in order every number is the
    base's."""
    edits = []
    for path, base, count, old, new in _hunks(patch):
        base += count == 0  # "@@ -5,0" adds after line 5
        same = 0
        while same < min(len(old), len(new)) and old[same] == new[same]:
            same += 1
        tail = 0
        while tail < min(len(old), len(new)) - same and old[-1 - tail] == new[-1 - tail]:
            tail += 1
        if len(old) - same - tail or len(new) - same - tail:
            start = base + same
            edits.append((path, start, start + len(old) - same - tail - 1, "\n".join(new[same:len(new) - tail])))
    order = {p: k for k, p in enumerate(dict.fromkeys(e[0] for e in edits))}
    return sorted(edits, key=lambda e: (order[e[0]], -e[1]))


def _hunk_spans(patch: str, path: str) -> list[tuple[int, int]]:
    """(first, last) line of the base that each hunk of `path` in the unified diff `patch` covers."""
    return [(start, start + max(count, 1) - 1) for p, start, count, _, _ in _hunks(patch) if p == path]


def play(sandbox, task: Task, replies, limits: AgentLimits | None = None, tool_format=None) -> dict:
    """An episode played from scripted replies -- a list, or a generator sent each reply's observation
    (`oracle_agent`): {"task_id", "messages" (the issue, then each reply and its observation; the last message the
    reply that ended it), "reason", "verdict", and "tools" where the format's template renders them}."""
    env = RepositoryEnvironment(sandbox, task, limits, tool_format=tool_format)
    messages = [{"role": "user", "content": env.reset()}]
    step = Step("")
    agent = replies if hasattr(replies, "send") else iter(replies)
    observation = None  # a generator is sent None first
    while True:
        try:
            reply = agent.send(observation) if hasattr(agent, "send") else next(agent)
        except StopIteration:
            break
        messages.append({"role": "assistant", "content": reply})
        step = env.step(reply)
        if step.done:
            break
        observation = step.observation
        messages.append({"role": env.observation_role, "content": observation})
    if not step.done:  # the replies ran out first: the working copy graded as it stands
        step = env.finish("replies")
    return {"task_id": task.task_id, "messages": messages, "reason": step.reason, "verdict": step.verdict,
            **({"tools": env.tools} if env.tools else {})}
