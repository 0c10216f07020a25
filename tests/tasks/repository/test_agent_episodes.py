"""Agent episodes through the one episode collector (`coderl.rollout.agent` over `rollout.episodes`), on the fixture
repository's generated tasks in the real sandbox: scripted replies (the episode's logic and its row layout: replies
trained, command outputs attended only, each turn's prompt extending the last) and a tiny random model (the exact ids:
the training forward pass recomputes the sampling log-probs; observations get zero gradient under every aggregation,
hand-computed)."""

import pytest

torch = pytest.importorskip("torch")

from coderl.algorithms.aggregation import AGGREGATIONS  # noqa: E402
from coderl.algorithms.losses import POLICY_LOSSES  # noqa: E402
from coderl.rollout.agent import AgentConfig, agent_metrics, collect_agent  # noqa: E402
from coderl.rollout.collect import Generation  # noqa: E402
from coderl.rollout.repository_env import oracle_replies  # noqa: E402
from coderl.tasks.repository.task import repository_of  # noqa: E402
from tests.models.tiny import tiny_model  # noqa: E402
from tests.rollout.scripted import script_engine  # noqa: E402


@pytest.fixture(scope="module")
def tiny():
    return tiny_model(seed=0)


def _shown_task(tasks):
    return next(t for t in tasks if set(repository_of(t).fail_to_pass) - set(repository_of(t).hidden))


def test_scripted_oracle_episodes_resolve_and_lay_out_their_rows(tiny, fixture_tasks, repo_sandbox, monkeypatch):
    model, tok = tiny
    task = _shown_task(fixture_tasks)
    replies = oracle_replies(task)
    calls = script_engine(monkeypatch, replies)
    gen = Generation(format="chat", samples_per_prompt=2, max_new_tokens=8)
    got = collect_agent(model, tok, [task], repo_sandbox, gen, AgentConfig(agent=True), max_sequence_tokens=1 << 16)
    assert [e.status for e in got.episodes] == ["FULL", "FULL"]
    assert [e.reason for e in got.episodes] == ["submitted", "submitted"]
    assert all(e.turns == len(replies) and e.commands == len(replies) - 1 and e.malformed == 0 for e in got.episodes)
    assert all(r.passed for r in got.results)
    # each turn's prompt is the last one, its reply's ids and the observation's glue: it extends it
    assert len(calls) == len(replies)
    for before, after in zip(calls, calls[1:]):
        for a, b in zip(before, after):
            assert b[:len(a)] == a and len(b) > len(a)
    batch = got.batch
    reply_ids = [tok(r, add_special_tokens=False)["input_ids"] for r in replies]
    assert int(batch.mask[0].sum()) == sum(len(i) for i in reply_ids)  # the replies, and only they, are trained
    assert int(batch.attention_mask[0].sum()) == len(calls[-1][0]) - int(batch.prompt_lengths[0]) + len(reply_ids[-1])
    policy = batch.turns[0][batch.mask[0] > 0].tolist()
    assert policy == [k for k, ids in enumerate(reply_ids) for _ in ids]
    assert bool((batch.turns[0][(batch.attention_mask[0] > 0) & (batch.mask[0] == 0)] == -1).all())
    # the observations the model saw are the command outputs
    (episode, _) = got.episodes
    assert episode.observations[0].startswith("exit code 1") and episode.observations[-1].startswith("exit code 0")
    metrics = agent_metrics(got.episodes)
    assert metrics["agent/resolved"] == 1.0 and metrics["agent/tool_error_rate"] == 0.0
    assert metrics["agent/ended_submitted"] == 1.0 and metrics["agent/limit_episodes"] == 0.0


def test_an_episode_out_of_context_is_graded_as_it_stands_and_counted_as_a_limit(tiny, fixture_tasks, repo_sandbox,
                                                                                   monkeypatch):
    model, tok = tiny
    task = _shown_task(fixture_tasks)
    calls = script_engine(monkeypatch, oracle_replies(task))
    gen = Generation(format="chat", max_new_tokens=8)
    got = collect_agent(model, tok, [task], repo_sandbox, gen, AgentConfig(agent=True), max_sequence_tokens=900)
    (episode,) = got.episodes
    assert episode.reason == "context" and episode.at_limit and episode.status == "NO"  # the base, untouched
    assert len(calls) == episode.turns < len(oracle_replies(task))
    assert agent_metrics(got.episodes)["agent/ended_context"] == 1.0


def test_a_tiny_model_s_episodes_keep_the_exact_ids(tiny, fixture_tasks, repo_sandbox):
    """Sampled replies (malformed: no command) get the malformed observation until the episode ends; the training
    forward pass over each row sees exactly what generation saw."""
    from coderl.train.logprobs import build_sequences, token_logprobs

    model, tok = tiny
    gen = Generation(format="chat", samples_per_prompt=2, max_new_tokens=6, temperature=1.0, seed=5)
    cfg = AgentConfig(agent=True, agent_turns=4, malformed_in_a_row=2)
    got = collect_agent(model, tok, fixture_tasks[:1], repo_sandbox, gen, cfg, max_sequence_tokens=4096)
    assert [e.reason for e in got.episodes] == ["malformed", "malformed"]
    assert all(e.turns == 2 and e.malformed == 2 and e.status == "NO" for e in got.episodes)
    batch = got.batch
    assert bool((batch.attention_mask > batch.mask).any())  # observations are in the rows
    with torch.no_grad():
        recomputed = token_logprobs(model, build_sequences(batch), 1.0)
    assert torch.allclose(recomputed * batch.mask, batch.logprobs, atol=1e-4)


@pytest.mark.parametrize("loss", ["pg", "ppo_clip"])
@pytest.mark.parametrize("aggregation", AGGREGATIONS)
def test_observations_get_zero_gradient_under_every_aggregation(aggregation, loss):
    """Two episode rows: policy tokens (mask 1) and observation tokens between them (attended, mask 0).  At ratio 1
    the gradient of the loss on each token's log-prob is hand-computed per mode; on an observation token it is 0."""
    mask = torch.tensor([[1, 1, 0, 0, 0, 1, 0], [1, 0, 0, 1, 1, 1, 1]], dtype=torch.float32)
    logprobs = torch.tensor([[-1.0, -2.0, -0.5, -0.1, -3.0, -0.7, 0.0], [-0.3, -0.9, -1.1, -0.2, -0.4, -2.2, -0.6]],
                            requires_grad=True)
    advantages = torch.tensor([[1.5], [-0.5]])
    max_tokens = 10
    value, _ = POLICY_LOSSES[loss](logprobs, logprobs.detach().clone(), advantages, mask, aggregation=aggregation,
                                   max_tokens=max_tokens)
    value.backward()
    lengths = mask.sum(1, keepdim=True)  # 3 and 5 policy tokens
    scale = {"token_mean": torch.full_like(mask, 1 / 8), "sequence_mean": (1 / (2 * lengths)).expand_as(mask),
             "token_sum": torch.full_like(mask, 1 / 2), "token_sum_const": torch.full_like(mask, 1 / (2 * max_tokens))}
    expected = -advantages * scale[aggregation] * mask
    assert torch.allclose(logprobs.grad, expected, atol=1e-6)
    assert bool((logprobs.grad[mask == 0] == 0).all())


def test_more_episodes_than_the_sandbox_keeps_open_run_in_waves(tiny, fixture_tasks, repo_sandbox, monkeypatch):
    """The sandbox keeps `episode_capacity` working copies open (the server refuses more): a collection over more
    episodes runs in waves of whole groups and gives, greedily, the episodes one wave gives; a working copy the sandbox
    did not make is an error naming the task, never an episode in an empty copy."""
    import ast
    from pathlib import Path

    import coderl.sandbox.client as client
    from coderl.base.config import ConfigError

    server = Path(client.__file__).parent / "server" / "loop.py"
    (constant,) = [n.value.value for n in ast.parse(server.read_text()).body if isinstance(n, ast.Assign)
                   and getattr(n.targets[0], "id", "") == "MAX_EPISODES_PER_WORKER"]
    assert client.EPISODES_PER_WORKER == constant and repo_sandbox.episode_capacity == constant * repo_sandbox.workers
    model, tok = tiny
    tasks = fixture_tasks[:3]
    gen = Generation(format="chat", samples_per_prompt=2, max_new_tokens=6, batch_size=8)
    one = collect_agent(model, tok, tasks, repo_sandbox, gen, AgentConfig(agent=True, agent_turns=2),
                        max_sequence_tokens=1 << 16)
    monkeypatch.setattr(repo_sandbox, "episode_capacity", 3)  # waves of one group (2 episodes) each
    waves = collect_agent(model, tok, tasks, repo_sandbox, gen, AgentConfig(agent=True, agent_turns=2),
                          max_sequence_tokens=1 << 16)
    assert [(e.task_id, e.replies, e.observations, e.status) for e in waves.episodes] == \
        [(e.task_id, e.replies, e.observations, e.status) for e in one.episodes]
    assert waves.batch.group_ids.tolist() == one.batch.group_ids.tolist() == [0, 0, 1, 1, 2, 2]
    assert [s.gen_tokens for s in waves.batch.samples] == [s.gen_tokens for s in one.batch.samples]
    monkeypatch.setattr(repo_sandbox, "episode_capacity", 1)
    with pytest.raises(ConfigError, match="keeps at most 1 working copies open"):
        collect_agent(model, tok, tasks, repo_sandbox, gen, AgentConfig(agent=True))

    from coderl.rollout.repository_env import RepositoryEnvironment
    from coderl.sandbox.types import ExecutionResult, Status

    env = RepositoryEnvironment(repo_sandbox, tasks[0])
    monkeypatch.setattr(repo_sandbox, "run", lambda request: ExecutionResult(
        status=Status.SANDBOX_ERROR, exit_code=None, message="over 16 episodes open at once"))
    with pytest.raises(RuntimeError, match=f"task {tasks[0].task_id}: its working copy was not made .*over 16"):
        env.reset()
