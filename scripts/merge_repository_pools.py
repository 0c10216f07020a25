"""Merge pools of repository tasks written by several `coderl tasks repos` runs into one (issue 97: the generator
was run in pieces, a run per group of repositories or per seed).

    python scripts/merge_repository_pools.py --out POOL POOL_A POOL_B ...

Each repository's tree is copied once (the same name is the same pinned source distribution); rows are kept in the
order given, a task id seen before is left out (the same mutant drawn twice), and every row is checked again against
the generator's rule that the base must not hold a second copy of the fixed code (`generate.fix_readable`: rows
written before the rule existed).  tasks.jsonl and stats.json (per repository: rows kept, duplicates, rows refused,
splits) are written under their final names only once complete.  Exit 2 with one line on bad input."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from coderl.tasks.repository.generate import fix_needles, fix_readable  # noqa: E402


def merge(pools: list[Path], out: Path) -> dict:
    (out / "repos").mkdir(parents=True, exist_ok=True)
    rows, seen, stats = [], set(), {}
    for pool in pools:
        for line in (pool / "tasks.jsonl").read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            repo = stats.setdefault(row["repository"], {"tasks": 0, "duplicates": 0, "fix_readable": 0, "splits": {}})
            if row["task_id"] in seen:
                repo["duplicates"] += 1
                continue
            seen.add(row["task_id"])
            tree = out / row["tree"]
            if not tree.exists():
                shutil.copytree(pool / row["tree"], tree, symlinks=True)
            m = row["mutation"]
            original = (tree / m["path"]).read_text(encoding="utf-8")
            needles = fix_needles(original, m["lines"][0], m["lines"][1], row["gold_patch"])
            if fix_readable(tree, {m["path"]: row["overlay"][m["path"]]}, needles):
                repo["fix_readable"] += 1
                continue
            repo["tasks"] += 1
            key = row["split"] + (f"/{row['held_out']}" if row.get("held_out") else "")
            repo["splits"][key] = repo["splits"].get(key, 0) + 1
            rows.append(row)
    for name, text in (("tasks.jsonl", "".join(json.dumps(r, sort_keys=True) + "\n" for r in rows)),
                       ("stats.json", json.dumps({"pools": [str(p) for p in pools], "repositories": stats,
                                                  "total": len(rows)}, indent=2, sort_keys=True) + "\n")):
        partial = out / f".{name}.partial"
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, out / name)
    return stats


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the merged pool folder (must not exist)")
    parser.add_argument("pools", nargs="+", help="pool folders written by coderl tasks repos")
    args = parser.parse_args(argv)
    out = Path(args.out)
    if out.exists():
        print(f"merge_repository_pools.py: --out {out}: exists (expected a folder to create)", file=sys.stderr)
        return 2
    pools = [Path(p) for p in args.pools]
    for pool in pools:
        if not (pool / "tasks.jsonl").is_file():
            print(f"merge_repository_pools.py: {pool}: no tasks.jsonl (expected a pool written by coderl tasks repos)",
                  file=sys.stderr)
            return 2
    stats = merge(pools, out)
    total = sum(r["tasks"] for r in stats.values())
    print(f"{out}: {total} tasks over {sum(1 for r in stats.values() if r['tasks'])} repositories "
          f"({sum(r['duplicates'] for r in stats.values())} duplicates, "
          f"{sum(r['fix_readable'] for r in stats.values())} giving their fix away, left out)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
