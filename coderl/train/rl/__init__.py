"""The RL loops (`policy_gradient.py`: REINFORCE, RLOO, GRPO, critic-free PPO; `ppo.py`: PPO with a value
head), what they share (`common.py`: run set-up, loss mask, reference pass, KL terms), their ledger
(`ledger.py`: tracker, evaluation and selection, checkpoints, resume) and the log-prob passes."""
