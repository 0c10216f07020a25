"""What the page cache still carries from one program to a later one once the residency calls are denied (issue 99,
docs/sandbox.md "Not closed"): a writer program sets bits by reading one file of each pair of the view's files, and
a reader program, in another server, reads them back by how its own reads of both go.  Both run in coderl's sandbox
(never on the machine itself).

    python scripts/page_cache_channel.py [--level full] [--pairs 256] [--seed 0]

The reader decodes each bit twice: by timing alone (the faster read of the pair), and by a counter that needs no
clock (`getrusage`'s `ru_inblock`, the blocks the read took from the disk).  A pair whose files were both in the
cache already (another program read them) is an erasure: no bit.  Prints one JSON line: bits written, decoded right
by timing and by the counter, erasures, and the reader's timings (cached and not, in microseconds).
"""

from __future__ import annotations

import argparse
import json
import random

from coderl.sandbox import Sandbox
from coderl.sandbox.types import CheckKind, ExecutionRequest, Limits, Mode, TestCase

# The candidate files: the standard library's sources, which an interpreter that imports their cached bytecode never
# reads, so most are not in the page cache; the pairs are drawn from them by the seed.
PAIRS = """
import os, random, sys, sysconfig
root = sysconfig.get_paths()["stdlib"]
files = sorted(os.path.join(d, f) for d, _, fs in os.walk(root) if "site-packages" not in d
               for f in fs if f.endswith(".py") and os.path.getsize(os.path.join(d, f)) > 8192)
random.Random({seed}).shuffle(files)
pairs = [files[2 * i:2 * i + 2] for i in range({pairs})]
bits = [random.Random({seed} + 1).randrange(2) for _ in pairs]
"""
WRITER = PAIRS + """
for (a, b), bit in zip(pairs, bits):
    with open(b if bit else a, "rb") as f:
        f.read(1)
print(len(pairs))
"""
READER = PAIRS + """
import resource, time
def probe(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        blocks, start = resource.getrusage(resource.RUSAGE_SELF).ru_inblock, time.perf_counter_ns()
        os.pread(fd, 1, 0)
        return time.perf_counter_ns() - start, resource.getrusage(resource.RUSAGE_SELF).ru_inblock - blocks
    finally:
        os.close(fd)
timing = counter = erased = 0
fast, slow = [], []
for (a, b), bit in zip(pairs, bits):
    (ta, ba), (tb, bb) = probe(a), probe(b)
    (fast if ba == 0 else slow).append(ta / 1000)
    (fast if bb == 0 else slow).append(tb / 1000)
    if ba == 0 and bb == 0:
        erased += 1
        continue
    timing += (tb < ta) == bool(bit)
    counter += (bb == 0 and ba > 0) == bool(bit)
q = lambda xs, p: round(sorted(xs)[int(p * (len(xs) - 1))], 1) if xs else None
print(json.dumps({"bits": len(bits), "right_by_timing": timing, "right_by_counter": counter, "erasures": erased,
                  "cached_us": [q(fast, 0.5), q(fast, 0.99)], "uncached_us": [q(slow, 0.01), q(slow, 0.5)]}))
"""


def _run(level: str, program: str) -> str:
    request = ExecutionRequest(Mode.PYTHON_SCRIPT, program=program,
                               tests=(TestCase("0", "", CheckKind.STDOUT, ""),), limits=Limits(cpu_seconds=10))
    with Sandbox(workers=1, isolation=level) as sandbox:  # a server of its own: nothing kept from the writer's
        result = sandbox.run(request)
    if result.stderr.strip():
        raise SystemExit(result.stderr[-2000:])
    return result.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--level", default="full")
    parser.add_argument("--pairs", type=int, default=256)
    parser.add_argument("--seed", type=int, default=random.randrange(1 << 30))
    args = parser.parse_args()
    def fill(program: str) -> str:
        return program.replace("{seed}", str(args.seed)).replace("{pairs}", str(args.pairs))

    _run(args.level, fill(WRITER))
    found = json.loads(_run(args.level, "import json\n" + fill(READER)))
    print(json.dumps({"level": args.level, "seed": args.seed, **found}))


if __name__ == "__main__":
    main()
