"""The RL loops (`policy_gradient.py`, `ppo.py`), what they share (`common.py`) and their ledger (`ledger.py`:
tracker, evaluation and selection, checkpoints, resume): the top room of `train/`, over `sources/` and the shared
modules (docs/architecture.md, "Inside train/")."""
