#!/bin/bash
# paired comparisons of the fourteenth session's GPU tuning evaluations (valid), all 200 tasks and level 2 alone
cd /work/notes/s14
C=/work/main/.venv/bin/coderl
for base in grpo sft; do for cand in grpo1 pw3 sd05 sd10 grpo; do [ $cand = $base ] && continue
for m in greedy sampled; do for ex in all l2; do
  X=""; [ $ex = l2 ] && X="--exclude /work/notes/s13/level1.txt"
  $C compare gpu/eval/$base-$m gpu/eval/$cand-$m $X --no-plot --out cmp/$cand-vs-$base-$m-$ex --overwrite >/dev/null 2>&1
  printf "%-6s vs %-5s %-8s %-4s " $cand $base $m $ex; grep "^| $cand vs" cmp/$cand-vs-$base-$m-$ex.md | cut -d'|' -f4,5,8
done; done; done; done
