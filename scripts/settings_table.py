"""Write `coderl train`'s settings table into docs/training.md (between its `settings-table` markers), from
`TrainConfig` itself: `python scripts/settings_table.py` after changing a setting (tests/test_config.py fails
while the doc and the code differ)."""

import dataclasses
import os
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(REPO, "docs", "training.md")
BEGIN, END = "<!-- settings-table: begin (scripts/settings_table.py writes it) -->", "<!-- settings-table: end -->"


def settings_table(cls: type) -> str:
    """Every setting of config `cls` as a Markdown table: flag (or YAML key), section, default, help."""
    from coderl.base.config import LazyHelp, leaves, setting_name

    rows = ["| setting | section | default | what it does |", "|---|---|---|---|"]
    for name, (path, f, _) in leaves(cls).items():
        help_text = f.metadata.get("help", "")
        if isinstance(help_text, LazyHelp):
            help_text = help_text.fn() + help_text.suffix
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        shown = "" if default is None or default is dataclasses.MISSING else \
            str(default).lower() if isinstance(default, bool) else str(default)
        key = f"`{setting_name(cls, name)}`" + ("" if f.metadata.get("cli", True) else " (YAML)")
        cells = [key, "/".join(path[:-1]), f"`{shown}`" if shown else "", help_text]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows) + "\n"


def with_table(text: str) -> str:
    """`text` (docs/training.md) with the table between the markers replaced by TrainConfig's."""
    from coderl.train.config import TrainConfig

    head, rest = text.split(BEGIN)
    return head + BEGIN + "\n" + settings_table(TrainConfig) + END + rest.split(END)[1]


if __name__ == "__main__":
    sys.path.insert(0, REPO)
    with open(DOC, encoding="utf-8") as f:
        text = f.read()
    with open(DOC, "w", encoding="utf-8") as f:
        f.write(with_table(text))
