"""The issue-78 tuning table from /work/notes/s13/eval/*/samples.jsonl: pass@1 over all 200 valid tasks and over the
100 level-2 ones (level1.txt excluded), greedy and sampled, and mean completion length."""
import json, sys, collections
D = "/work/notes/s14/gpu"
L1 = {l.strip() for l in open("/work/notes/s13/level1.txt") if l.strip() and not l.startswith("#")}
def stats(name, mode):
    per = collections.defaultdict(list); lens = []
    for line in open(f"{D}/eval/{name}-{mode}/samples.jsonl"):
        r = json.loads(line)
        per[r["task_id"]].append(bool(r.get("passed")))
        for k in ("gen_tokens", "num_tokens", "completion_tokens", "tokens"):
            if k in r: lens.append(r[k]); break
    allp = sum(sum(v) / len(v) for v in per.values()) / len(per)
    l2 = [sum(v) / len(v) for t, v in per.items() if t not in L1]
    return len(per), allp, sum(l2) / len(l2), (sum(lens) / len(lens) if lens else float("nan"))
for name in sys.argv[1:]:
    for mode in ("greedy", "sampled"):
        try:
            n, a, l2, ln = stats(name, mode)
            print(f"{name:8s} {mode:8s} tasks {n} all {a:.3f} level2 {l2:.3f} len {ln:.1f}")
        except FileNotFoundError:
            print(f"{name:8s} {mode:8s} missing")
