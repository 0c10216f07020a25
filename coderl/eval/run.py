"""`coderl eval`: generate completions for tasks, check them in the sandbox, report pass@k and length.

Model-agnostic (a base model, a GGUF, an adapter checkpoint: anything `coderl.models.load_model`
takes).  Generation runs chunk by chunk while the sandbox (its own process) checks the previous
chunk, so generation and execution overlap.  Every sample is stored with its exact rendered prompt,
and `coderl check --tasks SPEC --completions RUN_DIR/samples.jsonl` reproduces every verdict.

RUN_DIR gets:
  samples.jsonl   task_id, sample, prompt, raw_output, completion, gen_tokens, code_tokens, truncated,
                  format_ok + `coderl check`'s result fields
  summary.json    model, method, tasks (spec/split/seed), pass@k with a 95% bootstrap interval over
                  clusters of tasks (a synthetic task's composition, else the task: `clusters`,
                  `task_clusters`), greedy pass@1, average generated tokens, statuses, tamper, timings, config
  results.md      the summary as a Markdown table, then one row per task

While it runs, each finished chunk of tasks is appended to samples.jsonl.partial; `--resume` keeps those
chunks and generates the rest as the uninterrupted run would (`eval/chunks.py`).  The partial file goes
once the finished outputs are written.

`--turns N` (N > 1) runs repair episodes instead (`coderl.rollout.repair`, docs/repair.md): pass@k is
then the last answer's on the hidden tests, summary.json gains a `repair` block (pass@1 after each
turn, with its interval; turns used; feedback tokens; tasks without hidden tests, left out), and each
sample row a `turns` list (every answer, both verdicts, the feedback that followed).

`--agent` runs agent episodes on repository tasks instead (`coderl.eval.agent`, docs/agents.md): pass@k is the
resolved rate, summary.json gains an `agent` block (resolved and PARTIAL rates, turns, tokens, tool errors, each with
its interval; unseen repositories and unseen functions apart) and each sample row an `agent` record.

Over 400 lines: one evaluation's settings and the cross-checks between them, its flow, and the three outputs that
every kind of run (single answers, repair episodes, agent episodes) shares are one file; what only one kind adds
(`eval/turns.py`, `eval/agent.py`, `eval/groups.py`) lives in its own.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import dataclass

from coderl.base.config import DEVICES, ConfigError, flatten, option, require, section
from coderl.base.outputs import finished, leave_nothing, refuse_existing, refuse_inputs, writable
from coderl.eval.chunks import PARTIAL, collect_chunks, read_chunks, read_partial
from coderl.eval.groups import group_lines, group_summary, group_table
from coderl.eval.passk import pass_at_k, summarize
from coderl.eval.render import infra_text, md_table, over
from coderl.eval.stats import bootstrap_ci
from coderl.eval.turns import format_turns
from coderl.models.spec import resolve_spec
from coderl.rollout.collect import AgentConfig, Generation, RepairConfig
from coderl.rollout.engine import ENGINE_LOG, ENGINES
from coderl.rollout.formats import FORMATS
from coderl.sandbox.batches import INFRA_RETRIES
from coderl.sandbox.config import SandboxConfig
from coderl.sandbox.types import Status, is_judge_observed
from coderl.tasks import load_tasks
from coderl.tasks.spec import open_sandbox, task_files

OUTPUTS = ("samples.jsonl", "summary.json", "results.md")  # a finished run's files
DEFAULT_FORMAT = "chat"  # measured on HumanEval's 131 training tasks with the bundled model: RESULTS.md


@dataclass
class EvalConfig:
    """Evaluate a model on tasks: pass@k (unbiased, with a bootstrap interval over tasks, or over compositions
    for synthetic tasks) and length."""

    out: str | None = option(None, "run directory to write samples.jsonl, summary.json, results.md (required)")
    overwrite: bool = option(False, "replace the outputs of an earlier evaluation in --out (refused without it)")
    resume: bool = option(False, "continue the interrupted evaluation in --out (its samples.jsonl.partial): finished "
                          "chunks are kept, the rest generated as the uninterrupted run would")
    model: str = option("smollm2-135m-instruct", "built-in alias, HF folder, .gguf file, adapter folder or hub id")
    tasks: str = option("humaneval", "task spec (see `coderl check --help`)")
    split: str = option("all", "which tasks: all, train or test; valid for synthetic, math and corpus specs",
                        choices=["all", "train", "valid", "test"])
    seed: int = option(0, "seed of the split and of sampling (same seed, same numbers)")
    limit: int | None = option(None, "evaluate only the first N tasks of the split")
    samples: int = option(1, "samples per task (n); pass@k is reported for every standard k <= n")
    temperature: float = option(0.0, "sampling temperature; 0 = greedy")
    top_p: float = option(1.0, "nucleus sampling threshold (1 = off)")
    format: str = option(DEFAULT_FORMAT, "prompt format", choices=sorted(FORMATS))
    max_new_tokens: int = option(256, "generation budget per completion (seed 001: 256)")
    batch_size: int | None = option(None, "sequences generated together (default: 16 on CPU; on a GPU every row up to "
                                    "256 that fits in half its free memory)")
    label: str | None = option(None, "name shown in tables (default: the model spec)")
    method: str = option("base", "method shown in tables (base, SFT, GRPO, ...)")
    dtype: str = option("float32", "model dtype", choices=["float32", "bfloat16", "float16"])
    trust_remote_code: bool = option(False, "allow model code from the model folder / hub")
    qlora: bool = option(False, "load the base in 4-bit NF4 (bitsandbytes, bfloat16 compute; an adapter on top as "
                         "trained); needs a CUDA GPU")
    device: str = option("auto", "where the model runs: auto (CUDA if present), cpu or cuda", choices=list(DEVICES))
    engine: str = option("hf", "what generates: hf (transformers generate, in this process) or vllm (vLLM in a "
                         "process of its own: make setup-vllm; docs/engines.md)", choices=list(ENGINES))
    sandbox: SandboxConfig = section(SandboxConfig)
    repair: RepairConfig = section(RepairConfig)
    agent: AgentConfig = section(AgentConfig)
    REMOVED = RepairConfig.REMOVED  # removed settings: `coderl.base.config.flat_values`

    def __post_init__(self):
        require(self.out is not None, "--out", self.out, "a run directory")
        require(not (self.resume and self.overwrite), "--overwrite", True, "not both --resume and --overwrite")
        require(not (self.resume and self.repair.on), "--resume", True, "an evaluation with --turns 1 (repair "
                "episodes are not kept chunk by chunk)")
        require(self.samples >= 1, "--samples", self.samples, "an integer >= 1")
        require(self.temperature >= 0, "--temperature", self.temperature, "a number >= 0")
        require(self.samples == 1 or self.temperature > 0, "--samples", self.samples,
                "1 with --temperature 0 (greedy samples are identical); set a temperature for n > 1")
        require(0 < self.top_p <= 1, "--top-p", self.top_p, "a number in (0, 1]")
        require(self.max_new_tokens >= 1, "--max-new-tokens", self.max_new_tokens, "an integer >= 1")
        require(self.batch_size is None or self.batch_size >= 1, "--batch-size", self.batch_size, "an integer >= 1")
        require(self.limit is None or self.limit >= 1, "--limit", self.limit, "an integer >= 1")
        require(not self.repair.on or self.format != "completion", "--format", self.format,
                "a chat format (chat or reasoning) with --turns > 1: feedback is a user message")
        if self.agent.on:
            require(not self.repair.on, "--turns", self.repair.turns, "1 with --agent (an agent's turns are "
                    "--agent-turns)")
            require(not self.resume, "--resume", True, "an evaluation without --agent (agent episodes are not "
                    "kept chunk by chunk)")
            require(self.sandbox.isolation in ("auto", "full"), "--isolation", self.sandbox.isolation,
                    "full (or auto) with --agent: an episode's working copy is the full sandbox's")
        require(self.engine == "hf" or not self.qlora, "--engine", self.engine, "hf with --qlora (vLLM serves the "
                "base in its own precision)")


def task_clusters(tasks) -> dict[str, str]:
    """Task id -> its cluster for the intervals: a synthetic task's composition (`metadata["composition"]`,
    written "a+b"); a task without one is its own cluster (`coderl.eval.stats`)."""
    return {t.task_id: "+".join(t.metadata["composition"]) if t.metadata.get("composition") else t.task_id
            for t in tasks}


def _summarize_passk(counts: dict[str, tuple[int, int]], clusters: dict[str, str], seed: int,
                     planned: int | None = None) -> dict:
    s = summarize(counts, planned=planned)
    out = s.to_dict()
    out["clusters"] = len(set(clusters.values()))
    grouped = {t: c for t, c in clusters.items() if c != t}
    if grouped:  # the tasks that share a cluster (the rest are their own)
        out["task_clusters"] = grouped
    out["pass_at_k_ci95"] = {}
    for k in s.pass_at_k:
        scored = [t for t, (n, _) in counts.items() if n >= k]  # a task short of k samples is incomplete, not scored
        per_task = [pass_at_k(*counts[t], k) for t in scored]
        lo, hi = bootstrap_ci(per_task, clusters=[clusters[t] for t in scored], seed=seed)
        out["pass_at_k_ci95"][f"pass@{k}"] = [lo, hi]
    return out




def run_eval(cfg: EvalConfig, *, loaded=None, log=print) -> dict:
    """Evaluate; `loaded` (a `LoadedModel`) skips loading, for callers that hold the model already."""
    written = [os.path.join(cfg.out, name) for name in (*OUTPUTS, PARTIAL)]
    partial = written[-1]
    refuse_inputs({"--out": written}, [("--tasks", path) for path in task_files(cfg.tasks)])
    resumed = read_partial(cfg, partial) if cfg.resume else None
    if cfg.resume:
        writable("--out", cfg.out, "folder")
    else:
        refuse_existing("--out", cfg.out, [os.path.basename(p) for p in written if os.path.exists(p)],
                        overwrite=cfg.overwrite, kind="folder",  # --resume continues an interrupted run only
                        resumable=not cfg.repair.on and not cfg.agent.on and os.path.exists(partial))
    if cfg.qlora and loaded is None:
        from coderl.models.quantized import require_cuda_for_qlora

        require_cuda_for_qlora()  # before anything is loaded or written
    if loaded is None:
        resolve_spec(cfg.model)  # a --model that names nothing loadable: one line before any work
    if cfg.engine == "vllm":
        from coderl.rollout.vllm_engine import engine_python

        engine_python()  # no vLLM here: one line before the model loads
    taskset = load_tasks(cfg.tasks, split=cfg.split, seed=cfg.seed)
    tasks = taskset.tasks[: cfg.limit] if cfg.limit else taskset.tasks
    if cfg.repair.on:  # no task a repair episode could be scored on: one line before the model loads
        from coderl.tasks.visibility import split_tests

        if not any(split_tests(t).has_hidden for t in tasks):
            raise cfg.repair.no_hidden_test(cfg.tasks, tasks)
    if cfg.agent.on and any(t.kind != "repository" for t in tasks):
        kinds = ", ".join(sorted({t.kind for t in tasks} - {"repository"}))
        raise ConfigError(f"--agent: --tasks {cfg.tasks} holds {kinds} tasks; an agent works on repository tasks "
                          "only (repo:POOL, swebench:FILE)")
    # a failure leaves nothing it made but the engine's log of it and the finished chunks (for --resume)
    with leave_nothing(cfg.out, keep=lambda d: os.path.exists(os.path.join(d, ENGINE_LOG)) or _resumable(partial)):
        summary = _load_and_evaluate(cfg, taskset, tasks, loaded, resumed, log)
    if os.path.exists(partial):
        os.remove(partial)
    return summary


def _resumable(partial: str) -> bool:
    """Whether an evaluation that failed left finished chunks in `partial` (kept for --resume)."""
    try:
        return os.path.exists(partial) and bool(read_chunks(partial)[1])
    except ConfigError:
        return False


def _load_and_evaluate(cfg, taskset, tasks, loaded, resumed, log) -> dict:
    from coderl.models import load_model, resolve_device

    start = time.perf_counter()
    if loaded is None and cfg.qlora:
        from coderl.models.quantized import load_quantized

        loaded = load_quantized(cfg.model, trainable=False)
    elif loaded is None:  # an engine of its own reads the weights itself: here only the tokenizer and configs
        loaded = load_model(cfg.model, dtype=cfg.dtype, trust_remote_code=cfg.trust_remote_code,
                            device=resolve_device(cfg.device), weights=cfg.engine == "hf")
    engine = None
    if cfg.engine == "vllm":
        from coderl.rollout.vllm_engine import engine_for

        # an agent's conversation grows to its budget (--context-tokens, else the model's positions): the engine
        # holds what the HF model would, so both play the same episodes (else the engine's default length)
        room = (cfg.agent.context_tokens or getattr(loaded.model.config, "max_position_embeddings", None)
                if cfg.agent.on else None)
        engine = engine_for(loaded.model, loaded.path, loaded.spec, dtype=cfg.dtype, seed=cfg.seed, log=log,
                            max_model_len=room, log_file=os.path.join(cfg.out, ENGINE_LOG))
        if loaded.adapter_path is not None:
            engine.set_adapter(loaded.adapter_path)
    load_seconds = time.perf_counter() - start
    try:
        return _evaluate(cfg, taskset, tasks, loaded, engine or loaded.model, start, load_seconds, resumed, log)
    finally:
        if engine is not None:
            engine.close()


def _evaluate(cfg, taskset, tasks, loaded, model, start: float, load_seconds: float, resumed, log) -> dict:
    """Generate (`model`: the HF model or an engine), score and write the run."""
    gen = Generation(format=cfg.format, samples_per_prompt=cfg.samples, max_new_tokens=cfg.max_new_tokens,
                     temperature=cfg.temperature, top_p=cfg.top_p, seed=cfg.seed, batch_size=cfg.batch_size,
                     # the whole evaluation's work, a resumed one's too: one compile decision, the same chunks
                     planned_tokens=cfg.samples * len(tasks) * cfg.max_new_tokens
                     * (cfg.agent.agent_turns if cfg.agent.on else cfg.repair.turns))
    if cfg.agent.on:
        from coderl.eval.agent import evaluate_agent

        return evaluate_agent(cfg, taskset, tasks, loaded, model, gen, start, load_seconds, log, _write_run)
    repair = None
    with open_sandbox(cfg.sandbox, cfg.tasks) as sandbox:
        isolation = sandbox.isolation
        got, rows, gen_seconds = collect_chunks(cfg, model, loaded.tokenizer, tasks, sandbox, gen, resumed, log)
    if cfg.repair.on:
        from coderl.eval.turns import repair_summary
        if got.batch is None:
            raise cfg.repair.no_hidden_test(cfg.tasks, tasks)
        left_out = set(got.no_hidden) | set(got.skipped)
        tasks = [t for t in tasks if t.task_id not in left_out]  # scored on hidden tests: only tasks that have some
        repair = repair_summary(got.episodes, [t.task_id for t in tasks], cfg.repair.turns, got.no_hidden,
                                {t.task_id: got.split_rules[t.task_id] for t in tasks}, cfg.seed, task_clusters(tasks))
    gen_token_total = got.gen_tokens if cfg.repair.on else sum(r["gen_tokens"] for r in rows)
    # a resumed run's kept chunks were generated before it started: their seconds count in the total too
    total_seconds = time.perf_counter() - start + sum(chunk["seconds"] for chunk in (resumed or ({}, []))[1])
    return _write_run(cfg, taskset, tasks, rows, isolation,
                      {"load": load_seconds, "generation": gen_seconds, "total": total_seconds},
                      gen_token_total, loaded, repair=repair)


def _write_run(cfg, taskset, tasks, rows: list[dict], isolation, seconds, gen_token_total, loaded, *,
               repair=None, agent=None) -> dict:
    counts: dict[str, list[int]] = {t.task_id: [0, 0] for t in tasks}
    clean: dict[str, int] = {t.task_id: 0 for t in tasks}  # passed and not caught by the judge tampering
    caught = 0
    tokens: dict[str, list[int]] = {t.task_id: [] for t in tasks}
    statuses: Counter = Counter()
    tamper: Counter = Counter()
    infra: Counter = Counter()  # task -> samples that were infrastructure failures (after the sandbox's retries)
    for row in rows:
        if row["status"] == Status.SANDBOX_ERROR.value:  # no verdict on the program: reported apart, never scored
            infra[row["task_id"]] += 1
            statuses[row["status"]] += 1
            continue
        task_id, passed, judged = row["task_id"], row["passed"], any(map(is_judge_observed, row["tamper"]))
        counts[task_id][0] += 1
        counts[task_id][1] += passed
        clean[task_id] += passed and not judged
        caught += judged
        tokens[task_id].append(row["gen_tokens"])
        statuses[row["status"]] += 1
        tamper.update(row["tamper"])
    n_samples = len(rows)
    passed_tasks = sum(1 for n, c in counts.values() if c == n and n > 0)
    summary = {
        "model": cfg.model,
        "label": cfg.label or cfg.model,
        "method": cfg.method,
        "model_kind": getattr(loaded, "kind", None),
        "tasks": {**taskset.describe(), "evaluated": len(tasks), "limit": cfg.limit},
        "samples_per_task": cfg.samples,
        "temperature": cfg.temperature,
        "greedy": cfg.temperature == 0,
        "format": cfg.format,
        **_summarize_passk({t: (n, c) for t, (n, c) in counts.items()}, task_clusters(tasks), cfg.seed,
                           planned=cfg.samples if infra else None),
        "infra_failures": {"samples": sum(infra.values()), "retries": INFRA_RETRIES, "by_task": dict(infra)},
        # judge-observed tamper (docs/sandbox.md) counted as failure: what training's tamper cap pays
        "pass_at_1_without_tamper": _mean([clean[t] / n for t, (n, _) in counts.items() if n]) or 0.0,
        "samples_caught": caught,
        "tasks_all_passed": passed_tasks,
        "samples_passed": sum(c for _, c in counts.values()),
        "mean_fraction_passed": _mean([r["fraction_passed"] for r in rows
                                       if r["status"] != Status.SANDBOX_ERROR.value]),
        "num_samples": n_samples,
        "avg_gen_tokens": gen_token_total / n_samples if n_samples else 0.0,
        "avg_gen_tokens_passed": _mean([r["gen_tokens"] for r in rows if r["passed"]]),
        "truncated_rate": sum(r["truncated"] for r in rows) / n_samples if n_samples else 0.0,
        "statuses": dict(statuses),
        "tamper": dict(tamper),
        "isolation": isolation,
        "seconds": {k: round(v, 2) for k, v in seconds.items()},
        "tokens_per_second": gen_token_total / seconds["generation"] if seconds["generation"] else None,
        "config": flatten(cfg),
    }
    if cfg.samples > 1:
        summary["difficulty"] = difficulty_map(counts)
    if repair is not None:
        summary["repair"] = repair
    if agent is not None:
        summary["agent"] = agent
    by_group = None if repair is not None or agent is not None else group_summary(  # EvalPlus's base and plus
        tasks, rows, task_clusters(tasks), cfg.seed, planned=cfg.samples if infra else None,
        skip=lambda row: row["status"] == Status.SANDBOX_ERROR.value)
    if by_group:
        summary["by_group"] = by_group
    families = by_family(tasks, counts)
    if families:
        summary["by_family"] = families
    texts = {"samples.jsonl": "".join(json.dumps(row) + "\n" for row in rows),
             "results.md": format_markdown(summary, counts, tokens), "summary.json": json.dumps(summary, indent=2)}
    # all three or (a failure) none; summary.json renamed last: a run with it is finished
    with finished(*(os.path.join(cfg.out, name) for name in texts)) as tmps:
        for tmp, text in zip(tmps, texts.values()):
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(text)
    return summary


def difficulty_map(counts: dict[str, list[int]]) -> dict[str, float]:
    """With n > 1 samples per task: the fraction of tasks no sample passed (`never`), some but not all passed
    (`sometimes`: where a group-relative RL update has a signal) and all passed (`always`)."""
    rows = [(n, c) for n, c in counts.values() if n]
    if not rows:
        return {"never": 0.0, "sometimes": 0.0, "always": 0.0}
    return {"never": round(sum(c == 0 for _, c in rows) / len(rows), 4),
            "sometimes": round(sum(0 < c < n for n, c in rows) / len(rows), 4),
            "always": round(sum(c == n for n, c in rows) / len(rows), 4)}


def _difficulty_text(summary: dict) -> str:
    d = summary["difficulty"]
    return (f"{summary['samples_per_task']} samples a task; never passed {d['never']:.1%} of the tasks, "
            f"sometimes {d['sometimes']:.1%}, always {d['always']:.1%}")


def by_family(tasks, counts: dict[str, list[int]]) -> dict[str, dict]:
    """Per task family (`metadata["family"]`, the corpus's): tasks, mean pass rate, tasks all passed."""
    groups: dict[str, list[tuple[int, int]]] = {}
    for t in tasks:
        if "family" in t.metadata:
            groups.setdefault(t.metadata["family"], []).append(tuple(counts[t.task_id]))
    return {name: {"tasks": len(rows), "pass_rate": round(sum(c / n for n, c in rows if n) / len(rows), 4),
                   "tasks_passed": sum(1 for n, c in rows if n and c == n)}
            for name, rows in sorted(groups.items())}


def _mean(values):
    return sum(values) / len(values) if values else None


def format_markdown(summary: dict, counts: dict, tokens: dict) -> str:
    ks, ci = summary["pass_at_k"], summary["pass_at_k_ci95"]
    cells = [f"{value:.3f} [{ci[name][0]:.3f}, {ci[name][1]:.3f}]" for name, value in ks.items()]
    lines = [f"# {summary['label']} on {summary['tasks']['spec']} ({summary['tasks']['split']})", "",
             *md_table(["model", "method", "format", "n", *ks, "pass@1 without tamper", "tasks passed", "avg tokens"],
                       [[summary["label"], summary["method"], summary["format"], summary["samples_per_task"], *cells,
                         f"{summary['pass_at_1_without_tamper']:.3f}",
                         f"{summary['tasks_all_passed']}/{summary['num_tasks']}", f"{summary['avg_gen_tokens']:.1f}"]])]
    lines += ["", f"Brackets: 95% bootstrap interval over {over(summary)}. Without tamper: a sample the judge caught "
              f"tampering counts as failed ({summary['samples_caught']} caught)."]
    if summary.get("by_group"):
        lines += ["", "By test group (a sample passes a column when every test of its groups passes):", "",
                  *md_table(*group_table(summary["by_group"]))]
    if summary.get("repair"):
        lines += ["", f"Repair episodes (--turns {summary['repair']['turns']}): pass@k above is the last answer's, "
                  "on the hidden tests only.", "", *format_turns(summary["repair"]).splitlines()]
    if summary.get("agent"):
        from coderl.eval.agent import format_agent

        lines += ["", "Agent episodes (--agent): pass@k above is the resolved rate (graded FULL); each measure with "
                  "its 95% interval over tasks.", "", *format_agent(summary["agent"]).splitlines()]
    if summary.get("infra_failures", {}).get("samples"):
        lines += ["", infra_text(summary) + "."]
    if summary.get("difficulty"):
        lines += ["", f"Difficulty map: {_difficulty_text(summary)}."]
    if summary.get("by_family"):
        lines += ["", *md_table(["family", "tasks", "pass rate", "tasks passed"],
                                [[name, row["tasks"], f"{row['pass_rate']:.3f}", row["tasks_passed"]]
                                 for name, row in summary["by_family"].items()])]
    lines += ["", *md_table(["task", "passed/n", "avg tokens"],
                            [[task_id, f"{c}/{n}", f"{sum(tokens[task_id]) / len(tokens[task_id]):.1f}"]
                             if tokens[task_id] else [task_id, "0/0", "-"] for task_id, (n, c) in counts.items()])]
    return "\n".join(lines) + "\n"


def format_summary(summary: dict) -> str:
    parts = [f"{summary['label']} ({summary['method']}, {summary['format']}) on {summary['tasks']['spec']} "
             f"split {summary['tasks']['split']}: {summary['num_tasks']} tasks x {summary['samples_per_task']} samples"]
    for name, value in summary["pass_at_k"].items():
        lo, hi = summary["pass_at_k_ci95"][name]
        parts.append(f"{name}: {value:.4f}  (95% CI over {over(summary)} [{lo:.3f}, {hi:.3f}])")
    parts += group_lines(summary.get("by_group") or {})
    parts.append(f"pass@1 without tamper: {summary['pass_at_1_without_tamper']:.4f}  ({summary['samples_caught']} "
                 "sample(s) the judge caught tampering counted as failed)")
    parts.append(f"tasks passed: {summary['tasks_all_passed']}/{summary['num_tasks']}, "
                 f"avg generated tokens: {summary['avg_gen_tokens']:.1f}, truncated: {summary['truncated_rate']:.1%}")
    if summary.get("difficulty"):
        parts.append(f"difficulty: {_difficulty_text(summary)}")
    parts.append("statuses: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["statuses"].items())))
    if summary.get("infra_failures", {}).get("samples"):
        parts.append(infra_text(summary))
    if summary["tamper"]:
        parts.append("tamper: " + ", ".join(f"{k}={v}" for k, v in sorted(summary["tamper"].items())))
    if summary.get("repair"):
        parts.append(format_turns(summary["repair"]))
    if summary.get("agent"):
        from coderl.eval.agent import format_agent

        parts.append(format_agent(summary["agent"]))
    sec = summary["seconds"]
    parts.append(f"time: load {sec['load']} s, generation {sec['generation']} s, total {sec['total']} s "
                 f"({summary['tokens_per_second'] or 0:.0f} tokens/s), isolation {summary['isolation']}")
    return "\n".join(parts)
