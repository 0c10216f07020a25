"""Loading a large task set from parquet (issue 41): time and memory of `hf:` against reading the table whole.

    python bench/data_load.py                 # 100,000 rows
    python bench/data_load.py --rows 20000

A parquet file of N stdin/stdout problems in the APPS layout (a question, two input/output pairs as a JSON
string, a solution) is written once; then each way of loading it runs in its own process:
- **hf (streamed)**: `load_tasks("hf:FILE:preset=apps")`, rows turned into tasks as they are read;
- **table, then tasks**: `datasets.load_dataset("parquet", ...)` whole (the cache written first, as a user
  who calls it without `streaming=True` gets), `.to_list()`, then the same rows through coderl's loader:
  what a loader that materialises the table costs.
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


def write_file(path: str, rows: int) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    batch = 10_000
    writer = None
    for start in range(0, rows, batch):
        n = min(batch, rows - start)
        ids = list(range(start, start + n))
        table = pa.table({
            "problem_id": ids,
            "question": [f"Problem {i}: read two integers and print their sum plus {i}." for i in ids],
            "input_output": [json.dumps({"inputs": [f"{i} 1\n", "2 3\n"], "outputs": [f"{i + 1 + i}\n", f"{5 + i}\n"]})
                             for i in ids],
            "solutions": [json.dumps([f"a, b = map(int, input().split())\nprint(a + b + {i})\n"]) for i in ids],
            "difficulty": ["introductory"] * n,
        })
        if writer is None:
            writer = pq.ParquetWriter(path, table.schema)
        writer.write_table(table)
    writer.close()


def load(method: str, path: str, cache: str) -> list:
    from coderl.tasks import load_tasks

    if method == "hf":
        return load_tasks(f"hf:{path}:preset=apps").tasks
    import datasets

    from coderl.tasks.loaders.stdio import stdio_builder
    from coderl.tasks.rows import Rows

    rows = Rows(path, enumerate(datasets.load_dataset("parquet", data_files=path, split="train",
                                                      cache_dir=cache).to_list()), "row", "bench")
    return rows.collect(stdio_builder(rows))


def child(method: str, path: str, cache: str) -> dict:
    import tracemalloc

    import datasets

    from coderl.train.memory import status_bytes

    datasets.disable_progress_bars()
    load(method, os.path.join(os.path.dirname(path), "warm.parquet"), cache)  # imports and first-call costs
    tracemalloc.start()  # then what the load itself allocates
    t0 = time.perf_counter()
    tasks = load(method, path, cache)
    seconds = time.perf_counter() - t0
    final, peak = tracemalloc.get_traced_memory()
    return {"tasks": len(tasks), "seconds": seconds, "rss_peak": status_bytes("VmHWM"), "traced_peak": peak,
            "traced_final": final}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=int, default=100_000)
    ap.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(*args.child)))
        return 0
    from rl_step import machine

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "problems.parquet")
        t0 = time.perf_counter()
        write_file(path, args.rows)
        write_file(os.path.join(tmp, "warm.parquet"), 10)
        print(f"wrote {args.rows:,} rows ({os.path.getsize(path) / MB:.1f} MB parquet) in "
              f"{time.perf_counter() - t0:.1f} s", flush=True)
        results = {}
        for method in ("hf", "table"):
            out = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", method, path,
                                  os.path.join(tmp, "cache")], capture_output=True, text=True, check=True)
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
