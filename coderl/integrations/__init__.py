"""Adapters that let other training frameworks use coderl's verifier as their reward: TRL's GRPOTrainer
(`trl.py`) and verl's reward managers (`verl.py`).  docs/integrations.md."""
