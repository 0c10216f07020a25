"""`coderl eval --agent`: agent episodes on repository tasks (issue 98, item 6).  pass@k is the resolved rate (a sample
passes when the grader says FULL); summary.json gains an `agent` block -- resolved and PARTIAL rates, turns, tokens
and the tool-error rate per episode, each with a 95% bootstrap interval over tasks, overall and for each kind of
held-out task apart (`held_out`: unseen repository, unseen function; `seen` for the others) -- and each sample row an
`agent` record (why the episode ended, the verdict, every reply and the observation after it).

    rows, block = agent_rows(got, tasks, seed)      # after `rollout.agent.collect_agent`
"""

from __future__ import annotations

from collections import Counter

from coderl.base.config import ConfigError
from coderl.eval.stats import bootstrap_ci

MEASURES = {  # name -> (per-episode value, what it is)
    "resolved": (lambda e: float(e.status == "FULL"), "graded FULL"),
    "partial": (lambda e: float(e.status == "PARTIAL"), "graded PARTIAL"),
    "turns": (lambda e: float(e.turns), "replies per episode"),
    "policy_tokens": (lambda e: float(e.policy_tokens), "tokens generated per episode"),
    "observation_tokens": (lambda e: float(e.observation_tokens), "observation tokens per episode"),
    "tool_error_rate": (lambda e: e.malformed / max(e.turns, 1), "malformed replies per reply"),
    "at_limit": (lambda e: float(e.at_limit), "ended at a limit (turns, context, wall time, malformed)"),
}


def held_out_kind(task) -> str:
    """`repository` (an unseen repository), `function` (an unseen function of a seen one) or `seen`."""
    return (task.metadata or {}).get("held_out") or "seen"


def agent_block(episodes, tasks, seed: int) -> dict:
    """The `agent` block of summary.json: each measure's mean and 95% interval (episodes clustered by task), overall
    and per held-out kind; the ends by reason."""
    kind = {t.task_id: held_out_kind(t) for t in tasks}

    def measures(chosen) -> dict:
        out = {"episodes": len(chosen), "tasks": len({e.task_id for e in chosen})}
        clusters = [e.task_id for e in chosen]
        for name, (value, _) in MEASURES.items():
            values = [value(e) for e in chosen]
            out[name] = sum(values) / len(values) if values else 0.0
            out[f"{name}_ci95"] = list(bootstrap_ci(values, clusters=clusters, seed=seed)) if values else [0.0, 0.0]
        return out

    block = {"all": measures(list(episodes)),
             "by_held_out": {k: measures([e for e in episodes if kind.get(e.task_id) == k])
                             for k in sorted(set(kind.values()))},
             "ended": dict(Counter(e.reason for e in episodes)),
             "reset_seconds": sum(e.reset_seconds for e in episodes) / max(len(episodes), 1)}
    return block


def agent_rows(got, tasks, seed: int) -> tuple[list[dict], dict]:
    """samples.jsonl rows of the episodes (a row passes when FULL) and the summary's `agent` block."""
    from coderl.eval.chunks import sample_rows

    rows = sample_rows(got.samples, got.results)
    for row, episode in zip(rows, got.episodes):
        row["passed"] = episode.status == "FULL"
        row["agent"] = {"reason": episode.reason, "verdict": episode.verdict, "turns": episode.turns,
                        "malformed": episode.malformed, "replies": episode.replies,
                        "observations": episode.observations}
    return rows, agent_block(got.episodes, tasks, seed)


def format_agent(block: dict) -> str:
    """The block's lines for the terminal and results.md."""
    lines = []
    for label, m in [("all", block["all"]), *((f"held out: {k}", v) for k, v in block["by_held_out"].items())]:
        parts = [f"{name} {m[name]:.3f} [{m[name + '_ci95'][0]:.3f}, {m[name + '_ci95'][1]:.3f}]"
                 for name in MEASURES]
        lines.append(f"{label} ({m['episodes']} episodes, {m['tasks']} tasks): " + "; ".join(parts))
    lines.append("ended: " + ", ".join(f"{k} {v}" for k, v in sorted(block["ended"].items()))
                 + (f"; tool-call format {block['tool_format']}" if "tool_format" in block else ""))
    return "\n".join(lines)


def evaluate_agent(cfg, taskset, tasks, loaded, model, gen, start: float, load_seconds: float, log, write) -> dict:
    """Agent episodes (`--agent`): one per sample, in working copies of their own; `write`: `eval.run`'s writer of
    the run's three outputs."""
    import time

    from coderl.rollout.agent import collect_agent
    from coderl.tasks.spec import open_sandbox

    with open_sandbox(cfg.sandbox, cfg.tasks) as sandbox:
        isolation = sandbox.isolation
        got = collect_agent(model, loaded.tokenizer, tasks, sandbox, gen, cfg.agent, log=log)
    if got.skipped:
        log(f"left out: {len(got.skipped)} tasks whose prompt does not fit the model: {', '.join(got.skipped[:5])}")
        tasks = [t for t in tasks if t.task_id not in set(got.skipped)]
        if not tasks:
            raise ConfigError(f"--agent: no task's first prompt leaves room for a reply of --max-new-tokens "
                              f"{gen.max_new_tokens} in what an episode may hold (--context-tokens "
                              f"{cfg.agent.context_tokens}, the model's positions, an engine's length): none evaluated")
    rows, block = agent_rows(got, tasks, cfg.seed)
    block["tool_format"] = got.tool_format
    seconds = {"load": load_seconds, "generation": got.gen_seconds, "total": time.perf_counter() - start}
    return write(cfg, taskset, tasks, rows, isolation, seconds, got.gen_tokens, loaded, agent=block)
