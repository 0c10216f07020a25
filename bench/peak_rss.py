"""Peak resident memory of a whole command (issue 40): the process and every descendant, summed, polled.

    python bench/peak_rss.py [--kill-above 20G] [--label NAME] -- coderl train --out runs/x ...

Prints one JSON line: the label, the peak of the process tree's summed RSS (sandbox workers and
generation workers included), the peak of the largest single process, wall time, the exit code (or
"stopped" above --kill-above), and when the command has `--out DIR` with a `metrics.jsonl`, the steps
logged with their mean `time/step` and `time/optimisation` and the last step's `memory/*_rows`.
The kernel's own high-water mark is no use here: the memory budget's probes reset it
(/proc/self/clear_refs), so this script polls VmRSS every 50 ms instead.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

GB = 1 << 30


def tree_rss(root: int) -> tuple[int, int]:
    """(summed VmRSS of `root` and its descendants, the largest one's), in bytes."""
    from coderl.train.memory import status_bytes

    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                parent = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry))
    total = largest = 0
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            rss = status_bytes("VmRSS", pid)
        except OSError:
            continue
        total += rss
        largest = max(largest, rss)
        todo.extend(children.get(pid, []))
    return total, largest


def metrics_of(command: list[str]) -> dict:
    if "--out" not in command or command.index("--out") + 1 >= len(command):
        return {}
    path = os.path.join(command[command.index("--out") + 1], "metrics.jsonl")
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    rows = [r for r in rows if "time/step" in r]
    if not rows:
        return {}
    mean = lambda key: round(sum(r.get(key, 0.0) for r in rows) / len(rows), 1)  # noqa: E731
    out = {"steps": len(rows), "step_s": mean("time/step"), "optimisation_s": mean("time/optimisation"),
           "generation_s": mean("time/generation")}
    out.update({k: v for k, v in rows[-1].items() if k.startswith("memory/")})
    return out


def main() -> int:
    from coderl.train.memory import parse_size

    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kill-above", default="none", help="stop the command when its tree passes this (e.g. 20G)")
    ap.add_argument("--label", default="")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("expected a command after --")
    limit = parse_size(args.kill_above, "--kill-above")
    start = time.perf_counter()
    proc = subprocess.Popen(command, start_new_session=True)  # its own process group: stopped whole
    peak = largest = 0
    stopped = False
    while proc.poll() is None:
        total, big = tree_rss(proc.pid)
        peak, largest = max(peak, total), max(largest, big)
        if limit is not None and total > limit:
            stopped = True
            os.killpg(proc.pid, signal.SIGKILL)
            break
        time.sleep(0.05)
    code = proc.wait()
    result = {"label": args.label, "peak_tree_gb": round(peak / GB, 2), "peak_process_gb": round(largest / GB, 2),
              "wall_s": round(time.perf_counter() - start, 1), "exit": "stopped" if stopped else code}
    result.update(metrics_of(command))
    print(json.dumps(result), flush=True)
    return 0 if code == 0 and not stopped else 1


if __name__ == "__main__":
    sys.exit(main())
