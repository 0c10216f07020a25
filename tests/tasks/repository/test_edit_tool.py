"""The agent's `edit` tool (issue 98: a fix written as the lines it changes): every format reads back the edits it
writes; the oracle's edits, read from a unified diff, turn each base into the patched file exactly as `git apply`
would -- checked against diffs real git writes over generated files (context 0, 1 and 3; files without a final newline;
lines that start with `--` or `++`); and in an episode a bad edit is an observation that says why."""

import contextlib
import io
import random
import subprocess
import sys

import pytest

from coderl.rollout.repository_env import EDIT_PROGRAM, patch_edits
from coderl.rollout.tool_calls import EDIT, TOOLS, Malformed, ToolCall, by_name


def _texts(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    pieces = ["    return x", "", "\tif a:", "x = '```'", "# edit a.py 1 2", "--flag", "++i", "é", "  ", "\\n", "}"]
    return ["\n".join(rng.choice(pieces) for _ in range(rng.randint(0, 5))) for _ in range(n)]


@pytest.mark.parametrize("name", ["bash-block", "hermes", "qwen3-coder"])
def test_every_format_reads_back_the_edits_it_writes(name):
    fmt = by_name(name)
    for i, text in enumerate(_texts(120)):
        if name == "bash-block" and "```" in text:
            continue  # a fenced block cannot carry its own fence
        call = ToolCall(EDIT, {"path": f"pkg/m{i}.py", "start": i + 1, "end": i + i % 3, "text": text})
        for thought in ("", "Fix pkg/m.py, line 3."):
            assert fmt.parse(fmt.render(call, thought)) == call, (name, text)


def test_edit_arguments_are_checked_by_the_schema():
    assert "edit" in [t["function"]["name"] for t in TOOLS]
    qwen = by_name("qwen3-coder")  # XML carries every value as text: an integer's digits are read as the integer
    call = qwen.parse("<tool_call><function=edit><parameter=path>a.py</parameter><parameter=start>3</parameter>"
                      "<parameter=end>4</parameter><parameter=text>  x = 1</parameter></function></tool_call>")
    assert call == ToolCall(EDIT, {"path": "a.py", "start": 3, "end": 4, "text": "  x = 1"})
    hermes = by_name("hermes")
    for arguments, why in [('{"path": "a.py", "start": "three", "end": 4, "text": ""}', "'start' must be an integer"),
                           ('{"path": "a.py", "start": true, "end": 4, "text": ""}', "'start' must be an integer"),
                           ('{"path": "a.py", "start": 3, "text": ""}', "needs the argument 'end'")]:
        with pytest.raises(Malformed, match=why):
            hermes.parse(f'<tool_call>{{"name": "edit", "arguments": {arguments}}}</tool_call>')
    # in the plain format a block is an edit only when its first line is `edit PATH START END`
    block = by_name("bash-block")
    assert block.parse("```bash\nedit a.py 3 4\n    return x\n```").arguments["text"] == "    return x"
    for wrong in ("edit a.py three 4", "edit a.py 13", "edit FILE"):  # an edit missing its form: told the form
        with pytest.raises(Malformed, match="starts with the line `edit FILE START END`"):
            block.parse(f"```bash\n{wrong}\n    x = 1\n```")
    assert block.parse("```bash\neditor a.py\n```").name == "bash"  # another command


def _apply(path, edits) -> list[str]:
    """Each edit made by the tool's own program (run in-process, as the sandbox runs it in the working copy)."""
    said = []
    for _, start, end, text in edits:
        out, argv = io.StringIO(), sys.argv
        sys.argv = ["-c", str(path), str(start), str(end), text]
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(EDIT_PROGRAM, "edit", "exec"), {"__name__": "__main__"})
        except SystemExit as exc:
            said.append(str(exc.code))
        finally:
            sys.argv = argv
        said.append(out.getvalue())
    return said


def _mutate(rng, lines: list[str]) -> list[str]:
    lines = list(lines)
    for _ in range(rng.randint(1, 4)):
        at = rng.randint(0, len(lines))
        op = rng.choice(["insert", "delete", "replace", "replace"])
        new = [rng.choice(["-- sql", "++x", "    y = 2", "", "z"]) + str(rng.randint(0, 9))
               for _ in range(rng.randint(1, 3))]
        if op == "insert" or not lines:
            lines[at:at] = new
        else:
            lines[at:at + rng.randint(1, 3)] = [] if op == "delete" else new
    return lines


def test_the_oracle_s_edits_make_git_s_diff_exactly(tmp_path):
    """A generated base and its changed copy, diffed by real git (`git diff --no-index -U{0,1,3}`): the diff read as
    edits (`patch_edits`) and made by the edit program turns the base into the changed file, byte for byte."""
    rng = random.Random(0)
    checked = 0
    for case in range(150):
        base = [rng.choice(["a", "b", "    return x", "", "-- c", "++d", "def f():"]) + str(i)
                for i in range(rng.randint(0, 40))]
        changed = _mutate(rng, base)
        # a final newline or not (an edit keeps the file's: it is about lines; lines written to an empty file end
        # with one)
        end = rng.random() < 0.8 or not base
        texts = ["\n".join(lines) + ("\n" if end and lines else "") for lines in (base, changed)]
        if texts[0] == texts[1]:
            continue
        a, b = tmp_path / "a" / "m.py", tmp_path / "b" / "m.py"
        for path, text in zip((a, b), texts):
            path.parent.mkdir(exist_ok=True)
            path.write_bytes(text.encode())
        diff = subprocess.run(["git", "diff", "--no-index", f"-U{rng.choice([0, 1, 3])}", "a/m.py", "b/m.py"],
                              cwd=tmp_path, capture_output=True, text=True).stdout
        edits = patch_edits(diff)
        assert edits and all(e[0] == "b/m.py" for e in edits)  # git names the new side b/ + b/m.py
        said = _apply(a, edits)
        assert a.read_bytes() == texts[1].encode(), (case, diff, edits, said)
        checked += 1
    assert checked > 120


def test_a_bad_edit_changes_nothing_and_says_why(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("a\nb\n")
    (said,) = _apply(path, [("m.py", 5, 5, "x")])[:1]
    assert said.startswith("nothing edited") and "has 2 lines" in said and path.read_text() == "a\nb\n"
    assert _apply(tmp_path / "none.py", [("none.py", 2, 2, "x")])[0].endswith("no such file (`edit PATH 1 0` "
                                                                                 "makes a new one)")
    _apply(tmp_path / "new.py", [("new.py", 1, 0, "made")])
    assert (tmp_path / "new.py").read_text() == "made\n"


def test_an_edit_in_an_episode(fixture_tasks, repo_sandbox):
    from coderl.rollout.repository_env import RepositoryEnvironment

    env = RepositoryEnvironment(repo_sandbox, fixture_tasks[0])
    env.reset()
    bad = env.step("```bash\nedit minilib/nowhere.py 3 3\nx\n```")
    assert not bad.done and bad.observation.startswith("exit code 1\nnothing edited: minilib/nowhere.py")
    env.step("```bash\nprintf 'one\\ntwo\\nthree\\n' > notes.txt\n```")
    made = env.step("```bash\nedit notes.txt 2 2\n  TWO\n```").observation
    assert made.startswith("exit code 0\nnotes.txt: lines 2-2 replaced by 1 line(s)") and "     2\t  TWO" in made
    assert env.step("```bash\ncat notes.txt\n```").observation == "exit code 0\none\n  TWO\nthree"
    assert env.malformed_total == 0 and env.commands == 4
    env.finish()


def test_the_edit_tool_cannot_hack_the_grade_or_leave_the_working_copy(fixture_tasks, repo_sandbox):
    """As a policy would: a conftest made by `edit` that skips every test, the shown tests' file emptied by `edit`,
    and an edit aimed outside the working copy -- the episode grades NO and nothing lands on the host."""
    import os
    import uuid

    from coderl.rollout.repository_env import RepositoryEnvironment
    from coderl.tasks.repository.grade import test_file
    from coderl.tasks.repository.task import repository_of

    task = fixture_tasks[0]
    shown = sorted({test_file(t) for t in repository_of(task).pass_to_pass + repository_of(task).fail_to_pass})[0]
    planted = f"/tmp/coderl-edit-planted-{uuid.uuid4().hex}.py"
    env = RepositoryEnvironment(repo_sandbox, task)
    env.reset()
    skip_all = "import pytest\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n" \
               "        item.add_marker(pytest.mark.skip)"
    assert env.step(f"```bash\nedit conftest.py 1 0\n{skip_all}\n```").observation.startswith("exit code 0")
    lines = int(env.step(f"```bash\nwc -l < {shown}\n```").observation.split()[-1])
    assert env.step(f"```bash\nedit {shown} 1 {lines}\n\n```").observation.startswith("exit code 0")
    env.step(f"```bash\nedit {planted} 1 0\nraise SystemExit('planted')\n```")
    env.step(f"```bash\nedit ../../../..{planted} 1 0\nraise SystemExit('planted')\n```")
    end = env.step("```bash\nsubmit\n```")
    assert end.done and end.verdict["status"] == "NO", end.observation
    assert not os.path.exists(planted)
