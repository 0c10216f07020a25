#!/usr/bin/env bash
# Issue 78's tuning on valid, on one GPU (fourteenth session).  From the float32 86a70e8 demo's SFT adapter
# (sft-adapter/, the adapter the thirteenth session's CPU runs started from), the demo's GRPO stage (grpo-config.yaml:
# 40 steps of 4 prompts x 8 samples, 128 tokens, T 0.8, lr 2e-4, pass reward, curriculum floor 0.1, overlong filter)
# in float32 on CUDA, uncompiled, every run at once on the one GPU:
#   grpo   the baseline on this device (seed 0), grpo1 the same with seed 1 (the baseline's own seed spread)
#   sd05   SDPO --self-distill 0.5          sd10   SDPO --self-distill 1.0
#   pw3    PrefixRL --prefix-below 0.3 --prefix-cut words --prefix-fraction 0.9 --curriculum-floor 1.0
# then each run's last checkpoint and the SFT adapter evaluated on synthetic:level=1-2,n=200,split=valid (greedy, and
# 4 samples at T 0.8; 128 tokens; eval seed 0; float32).  What came out is packed into OUT/tune78.tar.gz (metrics,
# configs, evaluations, logs) and OUT/adapters-{1,2}.tar (the last checkpoints).
#   on the GPU machine:  CARRY_EXTRA=/tmp CODERL_CACHE=/tmp/gpucache BUDGET_S=560 OUT=$OUT bash .tune78/tune_gpu.sh
#   second lease:        ... BUDGET_S=320 RUNS="sds05 sds02" SKIP_SFT=1 EVAL_RESERVE=40 ... (SDPO, solution context)
#   dry run here:        DEVICE=cpu STEPS=2 LIMIT=4 RUNS="grpo sd05 pw3" BUDGET_S=900 \
#                        EXTRA="--prompts-per-step 2 --samples-per-prompt 2 --max-new-tokens 32" bash .tune78/tune_gpu.sh
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
T=$ROOT/.tune78
DEVICE=${DEVICE:-cuda}
BUDGET_S=${BUDGET_S:-560}
STEPS=${STEPS:-40}
RUNS=${RUNS:-grpo sd05 sd10 pw3 grpo1}
OUT=${OUT:-runs/tune78}
W=${WORK:-/tmp/tune78}
PY=${PYTHON:-python3}
V="synthetic:level=1-2,n=200,split=valid"
rm -rf "$W"; mkdir -p "$W/runs" "$W/eval" "$OUT"
OUT=$(cd "$OUT" && pwd)
START=$SECONDS
LOG=$W/tune.log
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TOKENIZERS_PARALLELISM=false CODERL_COMPILE_MIN_TOKENS=1000000000000
say() { echo "[$((SECONDS - START))s] $*" | tee -a "$LOG"; }
left() { echo $((BUDGET_S - (SECONDS - START))); }
say "tune78: DEVICE=$DEVICE BUDGET_S=$BUDGET_S STEPS=$STEPS RUNS=$RUNS $(date -u +%FT%TZ) $(git rev-parse --short HEAD 2>/dev/null)"
if [ "$DEVICE" = cuda ]; then
    $PY -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target "$W/site" \
        .gpu-carry/b/wheels/*.whl >>"$LOG" 2>&1 || say "wheels did not all install (tune.log)"
    export PYTHONPATH=$W/site:$ROOT CODERL_CACHE=${CODERL_CACHE:-/tmp/gpucache}
    R=$($PY scripts/gpu_check.py assemble .gpu-carry "$W" 2>>"$LOG" | tail -1)
    say "model: $R"
    case $R in *'"status": "ok"'*) ;; *) say "no real model: stopping"; tar czf "$OUT/tune78.tar.gz" -C "$W" tune.log; exit 1 ;; esac
    nvidia-smi -L >>"$LOG" 2>&1
    C="$PY -m coderl"; WORKERS=3; DTYPE=float32; LIMIT=""
else
    C="${CODERL:-$ROOT/.venv/bin/coderl}"; WORKERS=1; DTYPE=float32; LIMIT="--limit ${LIMIT:-4}"
fi
say "setup done"

flags() {
    case $1 in
        grpo) echo "--seed 0" ;;
        grpo1) echo "--seed 1" ;;
        sd05) echo "--seed 0 --self-distill 0.5" ;;
        sd10) echo "--seed 0 --self-distill 1.0" ;;
        pw3) echo "--seed 0 --prefix-below 0.3 --prefix-cut words --prefix-fraction 0.9 --curriculum-floor 1.0" ;;
        sds02) echo "--seed 0 --self-distill 0.2 --self-distill-context solution" ;;
        sds05) echo "--seed 0 --self-distill 0.5 --self-distill-context solution" ;;
        *) echo "unknown run $1" >&2; return 1 ;;
    esac
}
# evaluate NAME MODEL DEADLINE_S: greedy, then sampled, each under the time left
evaluate() {
    local name=$1 model=$2 end=$3 mode t
    for mode in ${MODES:-greedy sampled}; do
        t=$((end - (SECONDS - START)))
        [ "$t" -lt 20 ] && { say "$name $mode: not evaluated (${t}s left)"; continue; }
        local more=""; [ $mode = sampled ] && more="--samples 4 --temperature 0.8"
        local s=$SECONDS
        timeout -k 5 "$t" $C eval --model "$model" --tasks "$V" $LIMIT --format chat --dtype $DTYPE --device "$DEVICE" \
            --seed 0 --workers $WORKERS --max-new-tokens 128 --batch-size 128 --label "$name" $more \
            --out "$W/eval/$name-$mode" --overwrite >"$W/eval-$name-$mode.log" 2>&1
        say "$name $mode: exit $? after $((SECONDS - s))s; $(grep -m1 'pass@1' "$W/eval-$name-$mode.log" | tr -s ' ' | cut -c1-120)"
    done
}
# one run: train under the time that leaves EVAL_RESERVE s (110) for its evaluations, then evaluate its last checkpoint
run() {
    local name=$1 s=$SECONDS f; f=$(flags "$name") || return 1
    # shellcheck disable=SC2086
    timeout -k 5 $(( $(left) - ${EVAL_RESERVE:-110} )) $C train --config "$T/grpo-config.yaml" --model "$T/sft-adapter" --device "$DEVICE" \
        --dtype $DTYPE --workers $WORKERS --steps "$STEPS" --save-steps 10 --out "$W/runs/$name" --overwrite $f ${EXTRA:-} \
        >"$W/train-$name.log" 2>&1
    local rc=$? last
    last=$(ls -d "$W/runs/$name"/checkpoints/step-* 2>/dev/null | sort -t- -k2 -n | tail -1)
    say "$name: train exit $rc after $((SECONDS - s))s, $(grep -c . "$W/runs/$name/metrics.jsonl" 2>/dev/null) steps logged, last checkpoint ${last##*/}"
    [ -n "$last" ] && evaluate "$name" "$last" $((BUDGET_S - 15))
}
[ -n "${SKIP_SFT:-}" ] || evaluate sft "$T/sft-adapter" $((BUDGET_S - 15)) &
for r in $RUNS; do run "$r" & done
while [ -n "$(jobs -r)" ] && [ "$(left)" -gt 10 ]; do sleep 2; done
kill $(jobs -p) 2>/dev/null
say "done: $(ls "$W/eval" | tr '\n' ' ')"
nvidia-smi --query-gpu=memory.used,utilization.gpu --format=csv >>"$LOG" 2>&1
cp "$T/tune_gpu.sh" "$T/grpo-config.yaml" "$W/"
( cd "$W" && tar czf "$OUT/tune78.tar.gz" tune.log ./*.log tune_gpu.sh grpo-config.yaml runs/*/metrics.jsonl runs/*/config.yaml \
    eval/*/summary.json eval/*/samples.jsonl 2>/dev/null )
i=0
for r in $RUNS; do  # the last checkpoints, two or three to a file (each file at most 16 MiB back)
    last=$(ls -d "$W/runs/$r"/checkpoints/step-* 2>/dev/null | sort -t- -k2 -n | tail -1)
    [ -n "$last" ] || continue
    i=$((i + 1)); tar rf "$OUT/adapters-$(( (i + 2) / 3 )).tar" --exclude=trainer_state.pt -C "$W" "${last#"$W"/}"
done
ls -l "$OUT" | tee -a "$LOG"
say "tune78: finished in $((SECONDS - START))s"
