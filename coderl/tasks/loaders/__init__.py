"""Task loaders: files and datasets read into `Task`s (HumanEval, MBPP, stdio, coderl's own rows, Hugging
Face datasets with their layouts, the bundled easy and other-language sets), each through `tasks/rows.py`'s `Rows`."""
