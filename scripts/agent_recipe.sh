#!/usr/bin/env bash
# Issue 98's agent recipe (docs/agents.md; RESULTS.md, "The agent recipe"): the scripted oracle's trajectories on the
# pool's train split, then `coderl pipeline --config configs/agent-cpu.yaml` -- base evaluation of agent episodes on the
# held-out test split, SFT on the trajectories, GRPO over agent episodes on the train split, every checkpoint
# evaluated, the report with paired intervals.  Every stage skips what is already there, so a rerun resumes.
#
#   scripts/agent_recipe.sh POOL          # POOL: a pool of repository tasks (`coderl tasks repos --out POOL`)
set -euo pipefail
cd "$(dirname "$0")/.."
POOL=${1:?usage: scripts/agent_recipe.sh POOL   (a pool written by coderl tasks repos --out POOL)}
CODERL=${CODERL:-.venv/bin/coderl}
[ -x "$CODERL" ] || make setup
[ -f "$POOL/tasks.jsonl" ] || { echo "agent_recipe.sh: $POOL/tasks.jsonl: no such file (expected a pool written by coderl tasks repos --out POOL)" >&2; exit 2; }
mkdir -p runs/agent
ln -sfn "$(cd "$POOL" && pwd)" runs/agent/pool
start=$SECONDS
if [ ! -f runs/agent/oracle-train.jsonl ]; then
  "$CODERL" tasks oracle --tasks repo:runs/agent/pool@train --out runs/agent/oracle-train.jsonl
fi
echo "agent_recipe.sh: oracle trajectories took $(( SECONDS - start )) s"
"$CODERL" pipeline --config configs/agent-cpu.yaml
echo "agent_recipe.sh: took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s in all"
