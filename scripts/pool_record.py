"""Write the RL pool's decontamination record (coderl/tasks/data/pool_leaks.json) from a `coderl decontaminate
--out` run of the pool against its evaluation sets (`coderl.tasks.pool`'s docstring gives both commands)."""

import sys

from coderl.tasks.pool import RECORD, write_record

if len(sys.argv) != 2:
    sys.exit("usage: python scripts/pool_record.py RUN.json   (the .json of `coderl decontaminate --out RUN`)")
made = write_record(sys.argv[1])
print(f"{RECORD}: {len(made['leaked'])} of the pool's tasks leak ({made['leaked_pairs']} pairs of {made['pairs']}); "
      f"{len(made['solved'])} evaluation tasks solved by them; {made['timeouts']} pairs timed out (counted as failing)")
