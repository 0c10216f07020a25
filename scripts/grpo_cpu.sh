#!/usr/bin/env bash
# The CPU learning run of RESULTS.md: GRPO on synthetic level-1 training compositions with the bundled
# model (~20 minutes on 2 cores), then greedy evaluation of its last checkpoint on the held-out
# level-1 test compositions and on the hand-written easy set, with the same settings as the baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/grpo-cpu}
CODERL=${CODERL:-.venv/bin/coderl}
STEPS=${STEPS:-20}
$CODERL train --algo grpo --out "$OUT" --tasks "synthetic:level=1,n=200,split=train" \
  --steps "$STEPS" --prompts-per-step 4 --samples-per-prompt 4 --max-new-tokens 96 --temperature 1.0 \
  --learning-rate 1e-4 --reward seed001 --length-alpha 0.01 --save-steps 5 --no-progress
for spec in "synthetic:level=1,n=50,split=test" easy; do
  name=$(echo "$spec" | sed 's/[:=,]/-/g')
  $CODERL eval --model "$OUT/checkpoints/step-$STEPS" --tasks "$spec" --format chat --batch-size 64 \
    --label "grpo step $STEPS" --method GRPO --out "$OUT/eval-$name"
done
