"""`ninetoothed.auto_tuner.AutoTuner`: call whichever of several equivalent functions is fastest
for the arguments given, timing each once per argument key and remembering the timings on disk.

Two kinds of cache file sit in `generation.CACHE_DIR/auto_tuner/`: one per function (its key's
timings, by argument key), shared by every tuner that has the function; and one per tuner (every
function's timings, by argument key). An argument key is what the arguments are, tensors by their
dtype and shape (not their values), so a later call with like arguments reuses the choice. Torch
and the runtime are imported on the first call, so `import ninetoothed` stays quick.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from compiler.dsl import generation


class AutoTuner:
    def __init__(self, funcs: Sequence[Callable], keys: Sequence[str]):
        if len(funcs) != len(keys) or not funcs:
            raise ValueError(
                f"AutoTuner takes one key per function and at least one function; got "
                f"{len(funcs)} functions and {len(keys)} keys"
            )
        self._funcs = tuple(funcs)
        self._keys = tuple(str(key) for key in keys)
        self._folder = generation.CACHE_DIR / "auto_tuner"
        self._cache_path = self._folder / f"{_digest(repr(self._keys))}.json"
        self._best_func: dict[str, Callable] = {}

    def __call__(self, *args, **kwargs):
        key = self._make_arg_key(args, kwargs)
        if key not in self._best_func:
            timings = self._timings(key, args, kwargs)
            self._best_func[key] = self._funcs[timings.index(min(timings))]
        return self._best_func[key](*args, **kwargs)

    @staticmethod
    def _make_arg_key(args: tuple, kwargs: dict) -> str:
        described = [_describe(a) for a in args]
        described += [f"{name}={_describe(value)}" for name, value in sorted(kwargs.items())]
        return f"({', '.join(described)})"

    def _get_func_cache_path(self, func: Callable) -> Path:
        return self._folder / f"{_digest(self._keys[self._funcs.index(func)])}.json"

    def _timings(self, key: str, args: tuple, kwargs: dict) -> list[float]:
        table = _read(self._cache_path)
        if key not in table:
            table[key] = [self._timing(func, key, args, kwargs) for func in self._funcs]
            _write(self._cache_path, table)
        return table[key]

    def _timing(self, func: Callable, key: str, args: tuple, kwargs: dict) -> float:
        path = self._get_func_cache_path(func)
        table = _read(path)
        if key not in table:
            import torch

            from compiler.runtime.timing import time_call

            device = "cuda" if torch.cuda.is_available() else "cpu"
            table[key] = time_call(lambda: func(*args, **kwargs), device)
            _write(path, table)
        return table[key]


def _describe(value: object) -> str:
    if type(value).__module__ == "torch" and hasattr(value, "dtype"):  # a tensor, by its type
        return f"tensor({value.dtype}, {tuple(value.shape)})"
    return repr(value)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _read(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _write(path: Path, table: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(table, indent=1))
