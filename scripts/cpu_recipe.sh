#!/usr/bin/env bash
# Issue 17's longer CPU recipe (RESULTS.md): `coderl pipeline --config configs/cpu-recipe.yaml` (base eval ->
# SFT on the corpus -> GRPO on its warm-ups, selected on corpus@valid -> greedy eval of every checkpoint on
# the easy set -> report; about an hour on 2 cores: RESULTS.md), then HumanEval's test split (33 tasks) with n = 8 samples
# at T 0.8 for the base, the SFT adapter and the kept RL checkpoint (bf16, chat, batch 64, 256 new tokens),
# and the paired differences of those.  Every step skips what is already there, so a rerun resumes.
#
# Issue 39's recipe (the RL signal) is the same script on configs/cpu-rl-signal.yaml with VALID=1: corpus@valid too,
# greedy, and the run's signal (steps with a non-zero update, zero-variance groups per step).
#
#   scripts/cpu_recipe.sh                 # OUT=runs/pipeline/cpu-recipe; HUMANEVAL_SAMPLES=0 skips HumanEval
#   CONFIG=configs/cpu-rl-signal.yaml VALID=1 scripts/cpu_recipe.sh     # issue 39 (OUT=runs/pipeline/cpu-rl-signal)
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${CONFIG:-configs/cpu-recipe.yaml}
OUT=${OUT:-runs/pipeline/$(basename "$CONFIG" .yaml)}
RUN=${RUN:-grpo}               # the RL run of the config that is compared
VALID=${VALID:-0}              # 1: also corpus@valid, greedy, for the three checkpoints (issue 39's recipe)
CODERL=${CODERL:-.venv/bin/coderl}
PY=${PY:-.venv/bin/python}
SAMPLES=${HUMANEVAL_SAMPLES:-8}

start=$SECONDS
$CODERL pipeline --config "$CONFIG" --out "$OUT"
echo "cpu_recipe: pipeline took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s (issue 17's budget: 60 min)"
[ "$SAMPLES" -gt 0 ] || exit 0

start=$SECONDS
models=(base:smollm2-135m-instruct sft:"$OUT/sft/adapter" "$RUN":"$OUT/rl/$RUN/best/adapter")
for entry in "${models[@]}"; do
  key=${entry%%:*}; model=${entry#*:}
  dir="$OUT/humaneval-test-n$SAMPLES/$key"
  [ -f "$dir/summary.json" ] || $CODERL eval --model "$model" --tasks humaneval --split test --format chat \
    --dtype bfloat16 --batch-size 64 --max-new-tokens 256 --samples "$SAMPLES" --temperature 0.8 \
    --label "$key" --method "$key" --out "$dir"
done
echo "cpu_recipe: HumanEval test x $SAMPLES took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
H="$OUT/humaneval-test-n$SAMPLES"
pairs=(--pair "$H/base" "$H/sft" --pair "$H/base" "$H/$RUN" --pair "$H/sft" "$H/$RUN")
if [ "$VALID" = 1 ]; then
  start=$SECONDS
  for entry in "${models[@]}"; do
    key=${entry%%:*}; model=${entry#*:}
    dir="$OUT/corpus-valid/$key"
    [ -f "$dir/summary.json" ] || $CODERL eval --model "$model" --tasks corpus@valid --format chat \
      --dtype bfloat16 --batch-size 64 --max-new-tokens 256 --label "$key" --method "$key" --out "$dir"
  done
  echo "cpu_recipe: corpus@valid took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
  V="$OUT/corpus-valid"
  pairs+=(--pair "$V/base" "$V/sft" --pair "$V/sft" "$V/$RUN")
fi
E="$OUT/base-eval"
pairs+=(--pair "$E" "$OUT/eval/sft" --pair "$OUT/eval/sft" "$OUT/eval/$RUN")
$PY scripts/learning_report.py "$OUT/rl/$RUN" "${pairs[@]}" --png "$H/curves-$RUN.png"
