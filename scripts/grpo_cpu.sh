#!/usr/bin/env bash
# The CPU learning run of RESULTS.md (issue 6): GRPO on synthetic level-1 training compositions with the
# bundled model (<= 20 minutes on 2 cores), then evaluation of the base model and of the last checkpoint
# on the synthetic level-1 valid split (the only split settings were tuned on), the held-out level-1
# test compositions and the hand-written easy set -- greedy, and n = 8 samples at the training
# temperature -- and the paired before/after report with the curves.
#
#   scripts/grpo_cpu.sh                       # OUT=runs/grpo-cpu; STEPS, LR, EVAL_SAMPLES overridable
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-runs/grpo-cpu}
BASE=${BASE:-runs/grpo-cpu-base}            # base-model evaluations, shared by reruns
CODERL=${CODERL:-.venv/bin/coderl}
PY=${PY:-.venv/bin/python}
STEPS=${STEPS:-18}
LR=${LR:-3e-4}
TEMP=${TEMP:-0.8}

EVAL_SAMPLES=${EVAL_SAMPLES:-8}
COMMON=(--format chat --dtype bfloat16 --batch-size 64)

if [ ! -f "$OUT/checkpoints/step-$STEPS/adapter_model.safetensors" ]; then
start=$SECONDS
$CODERL train --algo grpo --out "$OUT" --tasks "synthetic:level=1,n=200,split=train" --dtype bfloat16 \
  --steps "$STEPS" --prompts-per-step 4 --samples-per-prompt 8 --generation-batch-size 32 --max-new-tokens 96 \
  --temperature "$TEMP" --learning-rate "$LR" --log-kl --reward pass --eval-tasks none --save-steps 8 --no-progress --resume
echo "grpo_cpu: training took $(( (SECONDS - start) / 60 )) min $(( (SECONDS - start) % 60 )) s"
fi

# Held-out sets: the synthetic valid split (the only one settings were tuned on), the held-out test
# compositions, the hand-written easy set.  Greedy on all three; n = EVAL_SAMPLES samples at the training
# temperature (max 128 new tokens: a batch runs until its longest row stops) on SAMPLED_SETS.
SETS=(valid:"synthetic:level=1,n=50,split=valid" test:"synthetic:level=1,n=50,split=test" easy:easy)
SAMPLED_SETS=${SAMPLED_SETS:-"test easy"}
evaluate() {  # evaluate MODEL LABEL METHOD DIR (skips finished runs)
  local model=$1 label=$2 method=$3 dir=$4 entry key spec
  for entry in "${SETS[@]}"; do
    key=${entry%%:*}; spec=${entry#*:}
    [ -f "$dir/greedy-$key/summary.json" ] || $CODERL eval --model "$model" --tasks "$spec" "${COMMON[@]}" \
      --max-new-tokens 256 --label "$label" --method "$method" --out "$dir/greedy-$key"
    if [[ " $SAMPLED_SETS " == *" $key "* ]] && [ ! -f "$dir/n$EVAL_SAMPLES-$key/summary.json" ]; then
      $CODERL eval --model "$model" --tasks "$spec" "${COMMON[@]}" --max-new-tokens 128 --samples "$EVAL_SAMPLES" \
        --temperature "$TEMP" --label "$label" --method "$method" --out "$dir/n$EVAL_SAMPLES-$key"
    fi
  done
}
evaluate smollm2-135m-instruct base base "$BASE"
evaluate "$OUT/checkpoints/step-$STEPS" "grpo step $STEPS" GRPO "$OUT/eval"

pairs=()
for entry in "${SETS[@]}"; do
  key=${entry%%:*}
  pairs+=(--pair "$BASE/greedy-$key" "$OUT/eval/greedy-$key")
  [[ " $SAMPLED_SETS " == *" $key "* ]] && pairs+=(--pair "$BASE/n$EVAL_SAMPLES-$key" "$OUT/eval/n$EVAL_SAMPLES-$key")
done
$PY scripts/learning_report.py "$OUT" "${pairs[@]}" --png "$OUT/curves.png"
