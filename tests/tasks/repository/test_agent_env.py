"""The agent's environment over repository tasks (`coderl.rollout.repository_env`, issue 98's environment half), on the
fixture's generated tasks in the real sandbox: a scripted oracle fixes a task through the tools and grades FULL;
malformed replies, the turn limit and long outputs end or shape the episode as documented, and whatever ends it, the
working copy is what is graded."""

import dataclasses

from coderl.rollout.repository_env import (
    AgentLimits,
    RepositoryEnvironment,
    oracle_replies,
    truncate,
)


def test_long_output_keeps_its_head_and_tail():
    text = "".join(f"{i:05d}\n" for i in range(5000))
    cut = truncate(text, 1000)
    assert cut.startswith(text[:500]) and cut.endswith(text[-500:]) and "characters left out" in cut
    assert truncate("short", 1000) == "short"


def test_the_oracle_fixes_a_task_through_the_tools(fixture_tasks, repo_sandbox):
    from coderl.tasks.repository.task import repository_of

    # a task whose issue shows a failing test (the oracle runs it first)
    task = next(t for t in fixture_tasks if set(repository_of(t).fail_to_pass) - set(repository_of(t).hidden))
    env = RepositoryEnvironment(repo_sandbox, task)
    first = env.reset()
    assert task.prompt.strip() in first and "```bash" in first
    observations = []
    for reply in oracle_replies(task):
        step = env.step(reply)
        observations.append(step.observation)
        if step.done:
            break
    assert step.done and step.reason == "submitted" and step.verdict["status"] == "FULL", step.observation
    assert "failed" in observations[0] and observations[0].startswith("exit code 1")  # the tests fail at first
    assert observations[-2].startswith("exit code 0")  # and pass after the fix


def test_the_working_copy_is_graded_whatever_ends_the_episode(fixture_tasks, repo_sandbox):
    task = fixture_tasks[1]
    # the fix applied, then the turns run out before a submit: the fix is graded
    replies = [r for r in oracle_replies(task) if "submit" not in r.splitlines()[-2:-1][0]]
    env = RepositoryEnvironment(repo_sandbox, task, AgentLimits(turns=len(replies)))
    env.reset()
    for reply in replies:
        step = env.step(reply)
    assert step.done and step.reason == "turns" and step.verdict["status"] == "FULL"
    # three malformed replies in a row: the untouched base is graded, NO
    env = RepositoryEnvironment(repo_sandbox, task, AgentLimits(malformed_in_a_row=3))
    env.reset()
    steps = [env.step("I will now think very hard.") for _ in range(3)]
    assert [s.done for s in steps] == [False, False, True] and steps[-1].reason == "malformed"
    assert "exactly one ```bash block" in steps[0].observation and steps[-1].verdict["status"] == "NO"


def test_a_command_s_output_and_limits_reach_the_agent_as_observations(fixture_tasks, repo_sandbox):
    task = fixture_tasks[0]
    env = RepositoryEnvironment(repo_sandbox, task, dataclasses.replace(AgentLimits(), output_chars=400,
                                                                       command_cpu_seconds=1.0))
    env.reset()
    long = env.step("```bash\nseq 1 20000\n```").observation
    assert long.startswith("exit code 0") and "characters left out" in long and len(long) < 600
    spin = env.step("```bash\nwhile :; do :; done\n```").observation
    assert "past its limit of 1 CPU seconds" in spin
    kept = env.step("```bash\necho note > mine.txt && cat mine.txt\n```").observation
    assert kept.endswith("note") and env.step("```bash\ncat mine.txt\n```").observation.endswith("note")
    assert env.step("```bash\nsubmit\n```").verdict["status"] == "NO"  # a note is no fix


def test_an_oracle_trajectory_is_sft_data(fixture_tasks, repo_sandbox, tmp_path):
    import json

    from coderl.rollout.repository_env import play
    from coderl.train.sft.conversations import load_conversations, tokenize_conversation
    from tests.models.tiny import tiny_tokenizer

    task = fixture_tasks[2]
    row = play(repo_sandbox, task, oracle_replies(task))
    assert row["verdict"]["status"] == "FULL" and row["reason"] == "submitted"
    roles = [m["role"] for m in row["messages"]]
    assert roles[0] == "user" and roles[-1] == "assistant"
    assert all(a != b for a, b in zip(roles, roles[1:]))  # user and assistant alternate
    path = tmp_path / "trajectories.jsonl"
    path.write_text(json.dumps(row) + "\n")
    (conversation,) = load_conversations(str(path))
    ids, labels = tokenize_conversation(conversation, tiny_tokenizer(), 2)
    assert sum(label != -100 for label in labels) < len(ids)  # the observations (test output) are masked


def test_the_same_replies_give_the_same_observations(fixture_tasks, repo_sandbox):
    """pytest's run summary carries its duration; the observation normalises it, so a replay sees what the first run
    saw (what a resumed training run relies on)."""
    from coderl.rollout.repository_env import normalise_timings, play

    task = fixture_tasks[0]
    first, second = (play(repo_sandbox, task, oracle_replies(task)) for _ in range(2))
    assert first["messages"] == second["messages"] and first["verdict"] == second["verdict"]
    assert any("in <time>" in m["content"] for m in first["messages"] if m["role"] == "user")
    assert normalise_timings("=== 3 failed, 1 passed, 2 warnings in 0.41s (0:00:00) ===") == \
        "=== 3 failed, 1 passed, 2 warnings in <time> ==="
    assert normalise_timings("real 0m0.41s in 3.0s") == "real 0m0.41s in 3.0s"  # not pytest's: left as it is


def test_the_oracle_cuts_outputs_as_the_agent_will_and_says_what_it_leaves_out(fixture_pool, tmp_path, monkeypatch):
    """`coderl tasks oracle --output-chars N`: the demonstrations show outputs cut as the agent's episodes cut them.
    Tasks are played `--workers` at once; the trajectories keep the tasks' order, and a task not resolved is a line
    naming it, never a silent gap."""
    import json

    import coderl.eval.oracle as oracle
    tasks = oracle.load_tasks(f"repo:{fixture_pool}@train").tasks
    real = oracle.oracle_agent
    monkeypatch.setattr(oracle, "oracle_agent",  # the first task: a submit and nothing else
                        lambda task, fmt: iter(["```bash\nsubmit\n```"]) if task is tasks[0] else real(task, fmt))
    monkeypatch.setattr(oracle, "load_tasks", lambda spec: type("Loaded", (), {"tasks": tasks}))
    out, said = tmp_path / "t.jsonl", []
    written, tried = oracle.write_oracle_trajectories(
        oracle.OracleConfig(tasks=f"repo:{fixture_pool}@train", out=str(out), output_chars=120), log=said.append)
    assert tried == len(tasks) > 1 and written == tried - 1
    assert said == [f"oracle: {tasks[0].task_id} not resolved (NO, the episode ended: submitted); left out"]
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [row["task_id"] for row in rows] == [t.task_id for t in tasks[1:]]
    observations = [m["content"] for row in rows for m in row["messages"][1:] if m["role"] == "user"]
    assert observations and all(len(o) <= 120 + 80 for o in observations)  # the cut's note and the exit line
    assert any("characters left out" in o for o in observations)
    # the oracle played on what it saw: the named tests ran at first (no `file or directory not found`: 4), and
    # every other task resolved (written)
    assert not [row["task_id"] for row in rows if row["messages"][2]["content"].startswith(("exit code 4",
                                                                                            "exit code 5"))]


def _with_tests(task, fail_to_pass, hidden=()):
    import dataclasses

    from coderl.tasks.repository.task import repository_of

    repo = dataclasses.replace(repository_of(task), fail_to_pass=tuple(fail_to_pass), hidden=tuple(hidden))
    return dataclasses.replace(task, metadata={**task.metadata, "repository": repo})


def _command(reply: str) -> str:
    return reply.split("```bash\n", 1)[1].split("\n```", 1)[0]


def test_the_oracle_runs_parametrized_tests_by_their_function_quoted_for_the_shell(fixture_tasks):
    """A parametrized id's values hold spaces and quotes (`test_x[de publicit\\xe9 - l'a]`): written bare in the
    command, bash split it and pytest answered `file or directory not found` (41 of 695 demonstrations).  The
    oracle runs the named tests' functions, once each, each one shell word."""
    import shlex

    task = _with_tests(fixture_tasks[0], ["tests/test a.py::test_x[de publicit\\xe9 - l'a]", "tests/test a.py::test_x[b]",
                                          "tests/test_b.py::T::test_y[1-2]", "tests/test_b.py::test_z"])
    first = _command(oracle_replies(task)[0])
    assert shlex.split(first) == ["pytest", "-q", "-x", "--tb=short", "tests/test a.py::test_x",
                                  "tests/test_b.py::T::test_y", "tests/test_b.py::test_z"]
    again = next(_command(r) for r in oracle_replies(task)[1:] if _command(r).startswith("pytest"))
    assert shlex.split(again)[2:] == shlex.split(first)[4:]


def test_the_oracle_reads_where_the_traceback_points(fixture_tasks):
    """The read follows the first test run's output: around the deepest frame in a file the fix changes, widened to
    the fix's lines; a frame far from the fix, or none, and it reads around the fix (hand-computed ranges)."""
    from coderl.rollout.repository_env import READ_MARGIN, _hunk_spans, oracle_agent

    task = fixture_tasks[0]
    path = next(line[6:] for line in task.reference_solution.splitlines() if line.startswith("+++ b/"))
    (lo, hi), *_ = _hunk_spans(task.reference_solution, path)

    def read_after(output):
        agent = oracle_agent(task)
        next(agent)
        return agent.send(output)

    near = hi + 3
    output = (f"tests/test_m.py:9: in test_m\n    f()\n{path}:{near + 40}: in caller\n    g()\n"
              f"{path}:{near}: in g\n    return 1 / 0\nE   ZeroDivisionError")
    read = read_after(output)
    assert f"line {near}: read around it" in read
    assert _command(read) == f"nl -ba {path} | sed -n '{max(1, min(near - READ_MARGIN, lo - 2))},{near + READ_MARGIN}p'"
    far = hi + 10 * READ_MARGIN
    for output in (f"{path}:{far}: in g\n    x\n", "tests/test_m.py:9: in test_m\nE   assert 1 == 2", None):
        read = read_after(output)
        assert "traceback" not in read
        assert _command(read) == f"nl -ba {path} | sed -n '{max(1, lo - READ_MARGIN)},{hi + READ_MARGIN}p'"

