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
    real = oracle.oracle_replies
    monkeypatch.setattr(oracle, "oracle_replies",  # the first task: a submit and nothing else
                        lambda task, fmt: ["```bash\nsubmit\n```"] if task is tasks[0] else real(task, fmt))
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
