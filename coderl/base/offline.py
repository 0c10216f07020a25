"""The Hugging Face libraries held offline for a while: environment variables set to "1" and the module flags
a library reads only once at import set to True, all restored afterwards (`models/hub.offline` for models,
`tasks/hf` for datasets)."""

from __future__ import annotations

import contextlib
import os


@contextlib.contextmanager
def offline_flags(env_keys: tuple[str, ...], module, module_keys: tuple[str, ...]):
    """`env_keys` set to "1" and `module`'s `module_keys` to True inside; the previous values after."""
    saved_env = {key: os.environ.get(key) for key in env_keys}
    os.environ.update({key: "1" for key in env_keys})
    saved = {key: getattr(module, key, None) for key in module_keys}
    for key in saved:
        setattr(module, key, True)
    try:
        yield
    finally:
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        for key, value in saved.items():
            setattr(module, key, value)
