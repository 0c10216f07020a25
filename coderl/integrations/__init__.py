"""Adapters that let other training frameworks use coderl's verifier as their reward: TRL (`trl.py`)."""
