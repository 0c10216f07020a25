#!/usr/bin/env bash
# RESULTS.md "Multi-turn repair" (issue 19): the bundled model's pass@1 after 1 and 3 turns on the easy set
# and on synthetic tasks, before and after a short multi-turn GRPO run, with paired intervals.
# About 40 minutes on 2 CPU cores.  Outputs: results/repair/ (summaries) and runs/repair/ (everything).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
OUT=${OUT:-runs/repair}
EVAL="--turns 3 --dtype bfloat16 --batch-size 64 --max-new-tokens 256 --workers 2"
evaluate() {  # label model
  $BIN/coderl eval --model "$2" --tasks easy --out "$OUT/$1-easy" --label "$1" $EVAL
  $BIN/coderl eval --model "$2" --tasks synthetic:level=1 --split test --limit 60 --out "$OUT/$1-synthetic" \
    --label "$1" $EVAL
}
evaluate base smollm2-135m-instruct
# GRPO with 3-turn episodes on synthetic level-1 training tasks (the same generator as the test set, other
# tasks).  Minibatches of 4 rows: a 16-row batch of 3-turn rows (~850 tokens, 49k vocabulary) needs over
# 20 GB for its logits in one forward/backward pass.
$BIN/coderl train --out "$OUT/grpo-synthetic" --tasks "synthetic:level=1@train" --algo grpo --turns 3 \
  --credit improvement --steps 6 --prompts-per-step 4 --samples-per-prompt 4 --generation-batch-size 16 \
  --max-new-tokens 128 --minibatch-size 4 --temperature 0.8 --learning-rate 2e-4 --reward pass --dtype bfloat16 \
  --save-steps 6 --workers 2 --no-progress
evaluate grpo-synthetic "$OUT/grpo-synthetic/checkpoints/step-6"
mkdir -p results/repair
for run in base-easy base-synthetic grpo-synthetic-easy grpo-synthetic-synthetic; do
  cp "$OUT/$run/summary.json" "results/repair/$run.summary.json"
done
gzip -n -9 -c "$OUT/grpo-synthetic/metrics.jsonl" >results/repair/grpo-synthetic-metrics.jsonl.gz  # results/README.md
$BIN/python scripts/repair_table.py "easy=$OUT/base-easy,$OUT/grpo-synthetic-easy" \
  "synthetic=$OUT/base-synthetic,$OUT/grpo-synthetic-synthetic" | tee results/repair/table.md
