"""`coderl eval --turns N`: pass@1 after each turn of the repair episodes, and what the episodes cost.

pass@1 after turn t is the mean over tasks of the fraction of a task's episodes whose answer standing
after turn t (an episode that ended earlier keeps its last answer) passes the task's *hidden* tests,
with a 95% bootstrap interval over clusters of tasks (`coderl.eval.stats`: a synthetic task's composition, else
the task).  Tasks without hidden tests are left out and named.
"""

from __future__ import annotations

from collections import Counter

from coderl.eval.stats import bootstrap_ci


def per_task_after(episodes, task_ids: list[str], turns: int) -> dict[int, dict[str, float]]:
    """turn t -> task id -> fraction of the task's episodes passing after turn t."""
    by_task: dict[str, list] = {t: [] for t in task_ids}
    for e in episodes:
        by_task.setdefault(e.task_id, []).append(e)
    return {t: {task: sum(e.passed_after(t) for e in eps) / len(eps) for task, eps in by_task.items() if eps}
            for t in range(1, turns + 1)}


def repair_summary(episodes, task_ids: list[str], turns: int, no_hidden: list[str], splits: dict[str, str],
                   seed: int, clusters: dict[str, str]) -> dict:
    """The `repair` block of summary.json; `clusters`: task id -> cluster (`coderl.eval.run.task_clusters`)."""
    after = per_task_after(episodes, task_ids, turns)
    pass_after, ci = {}, {}
    for t, rates in after.items():
        values = list(rates.values())
        pass_after[str(t)] = sum(values) / len(values) if values else 0.0
        groups = [clusters.get(task, task) for task in rates]
        ci[str(t)] = list(bootstrap_ci(values, clusters=groups, seed=seed)) if values else [0.0, 0.0]
    scored = after[1] if after else {}
    n = max(len(episodes), 1)
    return {
        "turns": turns,
        "pass_at_1_after_turn": pass_after,
        "pass_at_1_after_turn_ci95": ci,
        "tasks": len(scored), "clusters": len({clusters.get(task, task) for task in scored}),
        "per_task_after_turn": {str(t): rates for t, rates in after.items()},
        "turns_used": sum(len(e.turns) for e in episodes) / n,
        "feedback_tokens": sum(e.feedback_tokens for e in episodes) / n,
        "policy_tokens": sum(len(x.sample.gen_tokens) for e in episodes for x in e.turns) / n,
        "out_of_room": sum(e.out_of_room for e in episodes),
        "no_hidden_tasks": list(no_hidden),
        "split_rules": dict(Counter(splits.values())),
    }


def turn_records(episode) -> list[dict]:
    """Every turn of one episode, for samples.jsonl: the answer, both verdicts, the feedback that followed."""
    return [{"completion": t.sample.completion, "gen_tokens": len(t.sample.gen_tokens),
             "visible_passed": None if t.visible is None else t.visible.passed,
             "hidden_passed": t.hidden.passed, "hidden_fraction_passed": t.hidden.fraction_passed,
             "feedback": t.feedback, "feedback_tokens": t.added_tokens} for t in episode.turns]


def format_turns(repair: dict) -> str:
    """One line per turn for the terminal and results.md."""
    over = f"{repair['clusters']} clusters of {repair['tasks']} tasks" if "clusters" in repair else "tasks"
    parts = [f"pass@1 after turn {t}: {v:.4f}  (95% CI over {over} [{repair['pass_at_1_after_turn_ci95'][t][0]:.3f}, "
             f"{repair['pass_at_1_after_turn_ci95'][t][1]:.3f}])" for t, v in repair["pass_at_1_after_turn"].items()]
    parts.append(f"turns used {repair['turns_used']:.2f}, feedback tokens {repair['feedback_tokens']:.1f} and policy "
                 f"tokens {repair['policy_tokens']:.1f} per episode; tasks without hidden tests: "
                 f"{len(repair['no_hidden_tasks'])}")
    return "\n".join(parts)
