"""The bottom layer: what every other package of coderl may import, and which imports nothing of coderl.

    base.config   dataclass configs: `option`/`section` fields, flags from fields, one YAML loader with
                  type coercion, one-line `ConfigError`s naming the field, value and what was expected
    base.outputs  what a command writes: atomic files, `.partial` streams, the refusal of an output that is an
                  input, the one overwrite policy (--overwrite), no debris from a failed command

A test (`tests/test_layers.py`) keeps it at the bottom.
"""
