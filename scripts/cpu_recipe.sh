#!/usr/bin/env bash
# Issue 17's longer CPU recipe (RESULTS.md): `coderl pipeline --config configs/cpu-recipe.yaml` (base eval ->
# SFT on the corpus -> GRPO on its warm-ups, selected on corpus@valid -> greedy eval of every checkpoint on
# the easy set -> report; about an hour on 2 cores: RESULTS.md), then HumanEval's test split (33 tasks) with n = 8 samples
# at T 0.8 for the base, the SFT adapter and the kept RL checkpoint (bf16, chat, batch 64, 256 new tokens),
# and the paired differences of those.  Every step skips what is already there, so a rerun resumes.
#
#   scripts/cpu_recipe.sh                 # OUT=runs/pipeline/cpu-recipe; HUMANEVAL_SAMPLES=0 skips HumanEval
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/pipeline/cpu-recipe}
CODERL=${CODERL:-.venv/bin/coderl}
PY=${PY:-.venv/bin/python}
SAMPLES=${HUMANEVAL_SAMPLES:-8}

start=$SECONDS
$CODERL pipeline --config configs/cpu-recipe.yaml --out "$OUT"
echo "cpu_recipe: pipeline took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s (issue 17's budget: 60 min)"
[ "$SAMPLES" -gt 0 ] || exit 0

start=$SECONDS
models=(base:smollm2-135m-instruct sft:"$OUT/sft/adapter" grpo:"$OUT/rl/grpo/best/adapter")
for entry in "${models[@]}"; do
  key=${entry%%:*}; model=${entry#*:}
  dir="$OUT/humaneval-test-n$SAMPLES/$key"
  [ -f "$dir/summary.json" ] || $CODERL eval --model "$model" --tasks humaneval --split test --format chat \
    --dtype bfloat16 --batch-size 64 --max-new-tokens 256 --samples "$SAMPLES" --temperature 0.8 \
    --label "$key" --method "$key" --out "$dir"
done
echo "cpu_recipe: HumanEval test x $SAMPLES took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
H="$OUT/humaneval-test-n$SAMPLES"
$PY scripts/learning_report.py "$OUT/rl/grpo" --pair "$H/base" "$H/sft" --pair "$H/base" "$H/grpo" \
  --pair "$H/sft" "$H/grpo" --png "$H/curves-grpo.png"
