"""The bottom layer: what every other package of coderl may import, and which imports nothing of coderl.

    base.config   dataclass configs: `option`/`section` fields, flags from fields, one YAML loader with
                  type coercion, one-line `ConfigError`s naming the field, value and what was expected

A test (`tests/test_layers.py`) keeps it at the bottom.
"""
