#!/usr/bin/env bash
# RESULTS.md "Math" (issue 20): the bundled model on the generated math set before and after a short GRPO
# run on its train split, with paired intervals.  The pipeline evaluates on the test split (held-out
# templates); the same two models are then evaluated on the valid split (the training templates, other
# draws).  About 30 minutes on 2 CPU cores (measured: 26 + 3 min).  Outputs: results/math-cpu/ (summaries, samples, table) and
# runs/pipeline/math-cpu/ (everything).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
OUT=runs/pipeline/math-cpu
$BIN/coderl pipeline --config configs/math-cpu.yaml
EVAL="--tasks math:split=valid --max-new-tokens 256 --batch-size 50 --workers 2"
[ -f "$OUT/valid-base/summary.json" ] || $BIN/coderl eval --model smollm2-135m-instruct --out "$OUT/valid-base" \
  --label base $EVAL
[ -f "$OUT/valid-grpo/summary.json" ] || $BIN/coderl eval --model "$OUT/rl/grpo/checkpoints/step-8" \
  --out "$OUT/valid-grpo" --label grpo --method GRPO $EVAL
mkdir -p results/math-cpu
for run in base-eval eval/grpo valid-base valid-grpo; do  # samples and metrics gzip-compressed: results/README.md
  mkdir -p "results/math-cpu/$run"
  cp "$OUT/$run/summary.json" "results/math-cpu/$run/"
  gzip -n -9 -c "$OUT/$run/samples.jsonl" >"results/math-cpu/$run/samples.jsonl.gz"
done
gzip -n -9 -c "$OUT/rl/grpo/metrics.jsonl" >results/math-cpu/grpo-metrics.jsonl.gz
mkdir -p results/math-cpu/report
cp "$OUT"/report/report.{md,json} "$OUT"/report/*.png results/math-cpu/report/
$BIN/python scripts/math_table.py "math@test=$OUT/base-eval,$OUT/eval/grpo" \
  "math@valid=$OUT/valid-base,$OUT/valid-grpo" | tee results/math-cpu/table.md
