"""Loading a large task set from parquet (issue 41): time and memory of `hf:` against reading the table whole.

    python bench/data_load.py                 # 100,000 rows
    python bench/data_load.py --rows 20000
    python bench/data_load.py --layout nemotron --rows 300 --row-kb 330    # seed 002's rows (issue 77)

A parquet file of N stdin/stdout problems in the APPS layout (a question, two input/output pairs as a JSON
string, a solution) is written once; then each way of loading it runs in its own process:
- **hf (streamed)**: `load_tasks("hf:FILE:preset=apps")`, rows turned into tasks as they are read;
- **table, then tasks**: `datasets.load_dataset("parquet", ...)` whole (the cache written first, as a user
  who calls it without `streaming=True` gets), `.to_list()`, then the same rows through coderl's loader:
  what a loader that materialises the table costs.
`--layout nemotron` writes NeMo Gym rows instead (nvidia/Nemotron-RL-coding-competitive_coding: a chat
`responses_create_params`, `verifier_metadata.unit_tests`, `hash_id`, `dataset`, `source`), each about `--row-kb`
KB, nearly all of it tests (the card: 5.28 GB over 16,083 rows, about 330 KB a row), read with `preset=nemotron-rl`.
Each process first loads a 10-row file the same way (imports and first-call costs), then the N rows.
Columns: wall time, peak RSS (VmHWM, the whole process), peak Python-traced memory during the load
(tracemalloc: Python objects, not Arrow's buffers), the traced memory the final task list keeps, and
their ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

MB = 1 << 20


def write_file(path: str, rows: int, layout: str = "apps", row_kb: int = 330) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    batch = 10_000 if layout == "apps" else 50
    writer = None
    for start in range(0, rows, batch):
        n = min(batch, rows - start)
        ids = list(range(start, start + n))
        table = pa.table(_apps_columns(ids, n) if layout == "apps" else _nemotron_columns(ids, row_kb))
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def _apps_columns(ids: list[int], n: int) -> dict:
    return {
        "problem_id": ids,
        "question": [f"Problem {i}: read two integers and print their sum plus {i}." for i in ids],
        "input_output": [json.dumps({"inputs": [f"{i} 1\n", "2 3\n"], "outputs": [f"{i + 1 + i}\n", f"{5 + i}\n"]})
                         for i in ids],
        "solutions": [json.dumps([f"a, b = map(int, input().split())\nprint(a + b + {i})\n"]) for i in ids],
        "difficulty": ["introductory"] * n,
    }


def _nemotron_columns(ids: list[int], row_kb: int) -> dict:
    """NeMo Gym rows of about `row_kb` KB: a 3 KB statement and 100 tests of numbers (distinct per row, so the
    parquet file compresses them no better than real tests)."""
    import random

    tests = 100
    per_test = max(1, (row_kb * 1024 - 3072) // tests)
    rows = []
    for i in ids:
        rng = random.Random(i)
        inputs, outputs = [], []
        for t in range(tests):
            numbers = " ".join(str(rng.randrange(10 ** 9)) for _ in range(per_test * 3 // 4 // 10))
            inputs.append(f"{t}\n{numbers}\n")
            outputs.append(" ".join(str(rng.randrange(10 ** 9)) for _ in range(per_test // 4 // 10)) + "\n")
        rows.append({"input": [{"role": "user", "content": f"Problem {i}. " + "Read the numbers. " * 170}],
                     "unit_tests": {"inputs": inputs, "outputs": outputs}})
    return {"responses_create_params": [{"input": r["input"]} for r in rows],
            "verifier_metadata": [{"unit_tests": r["unit_tests"]} for r in rows],
            "hash_id": [f"{i:032x}" for i in ids], "dataset": ["code_contests"] * len(ids),
            "source": ["codeforces"] * len(ids)}


def load(method: str, path: str, cache: str, preset: str = "apps") -> list:
    from coderl.tasks import load_tasks

    if method == "hf":
        return load_tasks(f"hf:{path}:preset={preset}").tasks
    import datasets

    from coderl.tasks.loaders.stdio import stdio_builder
    from coderl.tasks.rows import Rows

    rows = Rows(path, enumerate(datasets.load_dataset("parquet", data_files=path, split="train",
                                                      cache_dir=cache).to_list()), "row", "bench")
    return rows.collect(stdio_builder(rows))


def child(method: str, path: str, cache: str, preset: str) -> dict:
    import tracemalloc

    import datasets

    from coderl.train.memory import status_bytes

    datasets.disable_progress_bars()
    load(method, os.path.join(os.path.dirname(path), "warm.parquet"), cache, preset)  # imports, first-call costs
    tracemalloc.start()  # then what the load itself allocates
    t0 = time.perf_counter()
    tasks = load(method, path, cache, preset)
    seconds = time.perf_counter() - t0
    final, peak = tracemalloc.get_traced_memory()
    return {"tasks": len(tasks), "seconds": seconds, "rss_peak": status_bytes("VmHWM"), "traced_peak": peak,
            "traced_final": final}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--layout", choices=("apps", "nemotron"), default="apps",
                    help="the rows: APPS problems of two small tests, or NeMo Gym rows of --row-kb KB (seed 002's)")
    ap.add_argument("--row-kb", type=int, default=330, help="the size of a nemotron row (default 330 KB)")
    ap.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    from rl_step import machine

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "problems.parquet")
        t0 = time.perf_counter()
        write_file(path, args.rows, args.layout, args.row_kb)
        write_file(os.path.join(tmp, "warm.parquet"), 10, args.layout, args.row_kb)
        print(f"wrote {args.rows:,} rows ({os.path.getsize(path) / MB:.1f} MB parquet) in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        results = {}
        for method in ("hf", "table"):
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", method, path,
                                  os.path.join(tmp, "cache"), "apps" if args.layout == "apps" else "nemotron-rl"],
                                 capture_output=True, text=True, check=True)
            results[method] = json.loads(out.stdout.strip().splitlines()[-1])
    print(machine(1, "cpu"))
    print("| load | tasks | wall | peak RSS | peak traced | final task list (traced) | peak / final |")
    print("|---|---|---|---|---|---|---|")
    names = {"hf": "`hf:` (streamed)", "table": "whole table, `.to_list()`, then tasks"}
    for method, r in results.items():
        print(f"| {names[method]} | {r['tasks']:,} | {r['seconds']:.1f} s | {r['rss_peak'] / MB:.0f} MB | "
              f"{r['traced_peak'] / MB:.0f} MB | {r['traced_final'] / MB:.0f} MB | "
              f"{r['traced_peak'] / r['traced_final']:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
