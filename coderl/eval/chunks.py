"""An evaluation's samples kept chunk by chunk, so that `coderl eval --resume` continues an interrupted one.

While `coderl eval` runs, each finished chunk of tasks (`rollout.collect`'s chunks: its rows generated with seed
+ the chunk's first task index, then checked) is appended as one line to RUN/samples.jsonl.partial, after a
first line with the run's settings and the chunks' batch size:

    {"config": {...}, "batch_size": 16}
    {"start": 0, "end": 16, "seconds": 12.3, "rows": [samples.jsonl's rows of tasks 0-15]}
    ...

`--resume` refuses changed settings (`base/outputs.resume_conflicts`, the rule of `train --resume`), keeps the
finished chunks (a line a kill cut short is dropped) and collects the tasks after them with the same batch size
and seeds: greedy chunking from the first task gives the later chunks the rows they had, so a resumed
evaluation equals the uninterrupted one sample for sample.  Once the finished outputs are written the partial
file goes (`eval/run.py`).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import replace

from coderl.base.config import ConfigError, flatten
from coderl.base.outputs import atomic, resume_conflicts
from coderl.eval.turns import turn_records
from coderl.rollout.collect import Generation, chunk_batch_size

PARTIAL = "samples.jsonl.partial"


def read_partial(cfg, path: str) -> tuple[dict, list[dict]]:
    """--resume: (the settings line, the finished chunks) of the interrupted evaluation at `path`, refused in
    one line when there is none or its settings differ from `cfg`'s in what they generate or score."""
    if not os.path.isfile(path):
        finished = os.path.exists(os.path.join(cfg.out, "summary.json"))
        raise ConfigError(f"--resume: --out {cfg.out} holds no interrupted evaluation (no {PARTIAL}"
                          + ("; its evaluation is finished: --overwrite to run it again)" if finished else
                             "); drop --resume to start one, or check --out"))
    head, chunks = read_chunks(path)
    conflicts = resume_conflicts(head.get("config", {}), flatten(cfg))
    if conflicts:
        raise ConfigError(f"--resume: {', '.join(conflicts)} (changed since {path}: they change what the "
                          "evaluation generates or scores); resume with its own settings, or --overwrite")
    return head, chunks


def read_chunks(path: str) -> tuple[dict, list[dict]]:
    """(settings line, finished chunks) of a partial evaluation; a line cut short (a kill while it was written)
    and anything after it are left out."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")[:-1]  # what follows the last newline was cut short
    try:
        head, *chunks = [json.loads(line) for line in lines]
    except ValueError:  # no settings line, or a line that is not JSON
        raise ConfigError(f"--resume: {path} is not an interrupted evaluation's record; --overwrite to start "
                          "again") from None
    kept = []
    for chunk in chunks:
        if chunk["start"] != (kept[-1]["end"] if kept else 0):
            break
        kept.append(chunk)
    return head, kept


def collect_chunks(cfg, model, tokenizer, tasks, sandbox, gen: Generation, resumed, log) -> tuple:
    """`collect_episodes` with every finished chunk appended to PARTIAL (after the settings line, which holds
    the chunks' batch size); a resumed run keeps its finished chunks and collects the tasks after them.
    (what was collected now or None, the rows, the seconds generating them); repair episodes (`--turns`) are
    collected whole (`--resume` refuses them)."""
    from coderl.rollout.generation import engine_of  # torch: only when collecting (parsing stays light)
    from coderl.rollout.repair import collect_episodes

    if cfg.repair.on:
        got = collect_episodes(model, tokenizer, tasks, sandbox, gen, cfg.sandbox.limits(), cfg.repair, log=log)
        return got, sample_rows(got.samples, got.results, got.episodes), got.gen_seconds
    path = os.path.join(cfg.out, PARTIAL)
    head, chunks = resumed or ({"config": flatten(cfg), "batch_size": chunk_batch_size(
        engine_of(model), gen, cfg.samples * len(tasks))}, [])
    done = chunks[-1]["end"] if chunks else 0
    for chunk in chunks:  # the same tasks as the interrupted run (a task file may have changed since)
        expected = {t.task_id for t in tasks[chunk["start"]: chunk["end"]]}
        if {r["task_id"] for r in chunk["rows"]} != expected:
            raise ConfigError(f"--resume: the tasks of --tasks {cfg.tasks} are not those of the interrupted "
                              f"evaluation (tasks {chunk['start']}-{chunk['end'] - 1} differ); --overwrite to start "
                              "again")
    if resumed:
        log(f"--resume: {done}/{len(tasks)} tasks kept from {path}")
    with atomic(path) as f:  # the settings and the chunks kept (without a line a kill cut short)
        f.writelines(json.dumps(x) + "\n" for x in [head, *chunks])

    with open(path, "a", encoding="utf-8") as f:
        def keep(start: int, end: int, batch, results, seconds: float) -> None:
            chunks.append({"start": done + start, "end": done + end, "seconds": round(seconds, 3),
                           "rows": sample_rows(batch.samples, results)})
            f.write(json.dumps(chunks[-1]) + "\n")
            f.flush()

        got = None
        if done < len(tasks):  # the chunks after `done` start where the uninterrupted run's do, with its seeds
            got = collect_episodes(model, tokenizer, tasks[done:], sandbox,
                                   replace(gen, seed=gen.seed + done, batch_size=head["batch_size"]),
                                   cfg.sandbox.limits(), cfg.repair, log=log, on_chunk=keep)
    return got, [r for chunk in chunks for r in chunk["rows"]], sum(chunk["seconds"] for chunk in chunks)


def sample_rows(samples, results, episodes=None) -> list[dict]:
    """The rows of samples.jsonl: each sample, numbered within its task, with its result (and its turns)."""
    index: Counter = Counter()
    rows = []
    for i, (sample, result) in enumerate(zip(samples, results)):
        rows.append({
            "task_id": sample.task_id,
            "sample": index[sample.task_id],
            "prompt": sample.prompt,
            "raw_output": sample.raw_output,
            "completion": sample.completion,
            "gen_tokens": len(sample.gen_tokens),
            "code_tokens": len(sample.code_tokens),
            "truncated": sample.truncated,
            "format_ok": sample.format_ok,
            **result.to_dict(),
            **({"turns": turn_records(episodes[i])} if episodes is not None else {}),
        })
        index[sample.task_id] += 1
    return rows
