#!/usr/bin/env bash
# Baseline numbers of the bundled model (RESULTS.md): greedy pass@1 and length on HumanEval (both
# formats, train and test splits), each synthetic level (held-out test compositions), and the easy set.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/baseline}
CODERL=${CODERL:-.venv/bin/coderl}
BS=${BS:-64}
for fmt in completion chat; do
  for split in train test; do
    $CODERL eval --tasks humaneval --split "$split" --format "$fmt" --batch-size "$BS" \
      --label "smollm2-135m-instruct" --method "base ($fmt)" --out "$OUT/humaneval-$split-$fmt"
  done
done
FMT=${FMT:-chat}
for level in 1 2 3; do
  $CODERL eval --tasks "synthetic:level=$level,n=50,split=test" --format "$FMT" --batch-size "$BS" \
    --label "smollm2-135m-instruct" --method "base ($FMT)" --out "$OUT/synthetic-L$level-$FMT"
done
$CODERL eval --tasks easy --format "$FMT" --batch-size "$BS" --label "smollm2-135m-instruct" \
  --method "base ($FMT)" --out "$OUT/easy-$FMT"
