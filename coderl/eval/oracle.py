"""`coderl tasks oracle`: demonstrations for an agent (issue 98, item 5).  A scripted agent resolves repository
tasks through the agent's own tools (`coderl.rollout.repository_env`: it runs the tests the issue names, reads the
lines the fix changes, makes the gold patch's changes with `edit` calls, runs the tests again, submits), `--workers`
tasks at once, and each trajectory it resolves (graded FULL) is written as chat messages -- the issue, each reply and
the observation it got, in the format `--tool-format` names, with the tools its template renders -- for `coderl sft
--data FILE`, which trains on the replies only (`coderl.train.sft.conversations`).  A task it does not resolve is said
on stderr, one line each (its verdict and what ended the episode), with a progress line every 30 s."""

from __future__ import annotations

import json
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from coderl.base.config import option, require
from coderl.base.outputs import refuse_existing
from coderl.base.progress import on_stderr, to_stderr
from coderl.rollout.repository_env import AgentLimits, oracle_agent, play
from coderl.rollout.tool_calls import FORMATS, by_name
from coderl.sandbox import Sandbox
from coderl.tasks import load_tasks
from coderl.tasks.spec import task_files


@dataclass
class OracleConfig:
    """Write a scripted agent's trajectories on repository tasks, for SFT (the replies trained, observations
    masked)."""

    tasks: str = option(help="repository tasks: repo:POOL (e.g. repo:POOL@train)")
    out: str = option(help="the JSONL file to write (one trajectory a line: task_id, messages, reason, verdict)")
    workers: int = option(2, "tasks played at once (each its own sandbox episode)")
    tool_format: str = option("bash-block", "how the replies call the tools (docs/agents.md): bash-block, hermes or "
                              "qwen3-coder (the format the model to train speaks: `--tool-format auto` resolves it)",
                              choices=list(FORMATS))
    output_chars: int = option(AgentLimits.output_chars, "a command's output kept (its first and last half): give the "
                               "agent's own --output-chars, so the demonstrations show what its episodes will")
    command_cpu_seconds: float = option(AgentLimits.command_cpu_seconds, "one command's CPU limit (as the agent's)")
    overwrite: bool = option(False, "replace an existing --out")

    def __post_init__(self):
        require(self.output_chars >= 100, "--output-chars", self.output_chars, "an integer >= 100")
        require(self.command_cpu_seconds > 0, "--command-cpu-seconds", self.command_cpu_seconds, "a number > 0")


def write_oracle_trajectories(cfg: OracleConfig, log=to_stderr) -> tuple[int, int]:
    """(trajectories written, tasks tried); only resolved ones are written, in the tasks' order, under the final name
    once complete; each task left out is said through `log`."""
    refuse_existing("--out", cfg.out, [cfg.out] if os.path.exists(cfg.out) else [], overwrite=cfg.overwrite)
    tasks = load_tasks(cfg.tasks).tasks
    tool_format = by_name(cfg.tool_format)
    limits = AgentLimits(output_chars=cfg.output_chars, command_cpu_seconds=cfg.command_cpu_seconds)
    progress = on_stderr("oracle", len(tasks))
    with Sandbox(workers=cfg.workers, isolation="full", hide=task_files(cfg.tasks)) as sandbox, \
            ThreadPoolExecutor(max(1, cfg.workers)) as pool:

        def one(task):
            return play(sandbox, task, oracle_agent(task, tool_format), limits, tool_format=tool_format)

        rows = []
        for done, row in enumerate(pool.map(one, tasks), 1):
            if row["verdict"].get("status") == "FULL":
                rows.append(row)
            else:
                log(f"oracle: {row['task_id']} not resolved ({row['verdict'].get('status')}, the episode ended: "
                    f"{row['reason']}); left out")
            progress.update(done, f"resolved {len(rows)}")
    progress.close()
    partial = f"{cfg.out}.partial"
    with open(partial, "w", encoding="utf-8") as f:
        for row in rows:
            f.write(json.dumps(row) + "\n")
    os.replace(partial, cfg.out)
    return len(rows), len(tasks)
