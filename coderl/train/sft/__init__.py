"""Supervised fine-tuning: the loop (`run.py`), its settings (`config.py`) and its examples (`data.py`)."""
