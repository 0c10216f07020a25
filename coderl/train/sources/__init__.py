"""Where an RL step's scored rollouts come from (`rollout_source.py`): generated here, sharded across ranks,
by an asynchronous generation worker (`async_rollouts.py`, `async_worker.py`) or by a vLLM engine
(`engine_source.py`); one round of them (`rounds.py`, `refill.py`), the curriculum that draws the prompts
(`curriculum.py`, `pass_rates.py`) and the off-policy correction of rows another policy sampled."""
