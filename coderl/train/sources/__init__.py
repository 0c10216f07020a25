"""Where an RL step's scored rollouts come from (`rollout_source.py`: local, sharded, asynchronous or a vLLM
engine), one round of them (`rounds.py`), the curriculum that draws the prompts and the off-policy correction:
the room under `rl/`, over `train/`'s shared modules (docs/architecture.md, "Inside train/")."""
