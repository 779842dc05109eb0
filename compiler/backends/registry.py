"""The backends by name and device. A backend is a package `compiler/backends/<name>/` exporting
`TARGETS`, its Target record per device ("cpu", "cuda"); every such package is found here, so adding
a backend adds a folder, not a branch."""

from __future__ import annotations

import importlib
import pkgutil

from compiler.backends.target import Target


def _discover() -> dict[tuple[str, str], Target]:
    package = importlib.import_module("compiler.backends")
    targets = {}
    for module in pkgutil.iter_modules(package.__path__):
        if module.ispkg:
            backend = importlib.import_module(f"{package.__name__}.{module.name}")
            for device, target in backend.TARGETS.items():
                if target.device != device:
                    raise ValueError(
                        f"compiler/backends/{module.name}: TARGETS[{device!r}] is for device "
                        f"{target.device!r}; key each record by its own device"
                    )
                targets[target.name, device] = target
    return targets


DEVICE_TARGETS: dict[tuple[str, str], Target] = _discover()
# The records for this machine's CPU: what the test suite and the audits run.
TARGETS: dict[str, Target] = {
    name: t for (name, device), t in DEVICE_TARGETS.items() if device == "cpu"
}


def get_target(name: str, device: str = "cpu") -> Target:
    try:
        return DEVICE_TARGETS[name, device]
    except KeyError:
        devices = sorted(d for n, d in DEVICE_TARGETS if n == name)
        known = ", ".join(sorted(TARGETS))
        problem = f"has targets for {devices} only" if devices else f"is unknown (known: {known})"
        raise KeyError(f"backend {name!r} for device {device!r}: the backend {problem}") from None


def wide_index_advice(device: str) -> str:
    """What a refusal past a 32-bit index width suggests: the backends that index in 64 bits."""
    wide = sorted(
        backend
        for (backend, on), target in DEVICE_TARGETS.items()
        if on == device and target.widened() is not None
    )
    return f"use a backend that indexes in 64 bits ({', '.join(wide) or 'none for this device'})"
