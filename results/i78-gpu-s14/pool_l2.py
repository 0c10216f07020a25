"""The pool's level-2 pass rate per step (sandbox/pass_rate/level_2, plain rows only), over steps 1-20 and 21-40, and
the steps' time, from each run's metrics.jsonl."""
import json, sys
D = sys.argv[1]
for name in sys.argv[2:]:
    rows = [json.loads(l) for l in open(f"{D}/runs/{name}/metrics.jsonl")]
    def mean(k, lo, hi):
        v = [r[k] for r in rows if lo <= r["step"] <= hi and k in r]
        return (sum(v) / len(v), len(v)) if v else (float("nan"), 0)
    a, na = mean("sandbox/pass_rate/level_2", 1, 20); b, nb = mean("sandbox/pass_rate/level_2", 21, 40)
    c, _ = mean("sandbox/pass_rate/level_1", 1, 20); d, _ = mean("sandbox/pass_rate/level_1", 21, 40)
    t = sum(r.get("time/step", 0) for r in rows)
    extra = ""
    if any("sdpo/rows" in r for r in rows):
        extra = f" sdpo rows/step {mean('sdpo/rows', 1, 40)[0]:.1f} gap {mean('sdpo/gap', 1, 40)[0]:+.3f}"
    if any("prefix/prompts" in r for r in rows):
        extra = f" prefixed {sum(r.get('prefix/prompts', 0) for r in rows):.0f} pass {mean('prefix/pass_rate', 1, 40)[0]:.2f}"
    print(f"{name:6s} L2 pool 1-20 {a:.3f} ({na} steps) 21-40 {b:.3f} ({nb}) | L1 {c:.3f} -> {d:.3f} | steps {len(rows)} time {t:.0f}s{extra}")
