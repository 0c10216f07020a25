"""The RL loops (`policy_gradient.py`, `ppo.py`), what they share (`common.py`), their ledger (`ledger.py`:
tracker, evaluation and selection, checkpoints, resume) and the log-prob passes (`logprobs.py`)."""
