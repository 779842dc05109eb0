"""`[tool.lowering-audit]` in pyproject.toml: what to scan and how, for any project.

[tool.lowering-audit]
paths = ["compiler"]                       # files or folders to scan
exclude = ["compiler/suite"]               # prefixes or globs left out
registry = "compiler.ir.registry:OPS"      # the closed op registry (module:attribute)
ir-dialects = ["arith", "math", ...]       # dialect prefixes of the IR's op names
backends = ["triton", "cuda", ...]         # names that shared code must not branch on
shared-paths = ["compiler/passes", ...]    # where LWA006 applies (default: everywhere)
extend-vocabulary = ["fft"]                # or `vocabulary = [...]` to replace the default
allow-words = ["rope"]                     # vocabulary words this project does not flag
enable = ["LWA001", ...]                   # default: every rule
disable = []
baseline = "lowering-audit-baseline.toml"  # accepted findings, each with a reason

[[tool.lowering-audit.overrides]]
paths = ["compiler/backends/cuda"]
disable = ["LWA006"]                       # also: allow-words, extend-vocabulary, shared
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from audits.vocabulary import DEFAULT_BACKEND_WORDS, DEFAULT_OPERATOR_WORDS, Vocabulary

DEFAULT_IR_DIALECTS = (
    "arith", "math", "reduce", "scan", "linalg", "scf", "select", "tensor", "mem", "index", "tile",
)  # fmt: skip

# Dotted names under these roots belong to libraries, not to the IR (`torch.matmul`, `tl.dot`).
DEFAULT_FOREIGN_PREFIXES = (
    "torch", "triton", "tl", "ntl", "ninetoothed", "numpy", "np", "tvm", "tilelang", "T", "te",
    "jax", "jnp", "F", "nn", "os", "sys", "self", "cls", "typing",
)  # fmt: skip

DEFAULT_BASELINE = "lowering-audit-baseline.toml"

# Backend names shorter than this (`c`, `nv`) match only a whole name: as one word of an
# identifier they are mostly something else (`C_coords`, `pragma_import_c`).
SHORT_BACKEND_NAME = 3

_TOP_KEYS = {
    "paths", "exclude", "registry", "ir-dialects", "foreign-prefixes", "backends", "shared-paths",
    "vocabulary", "extend-vocabulary", "allow-words", "enable", "disable", "baseline", "overrides",
}  # fmt: skip
_OVERRIDE_KEYS = {"paths", "enable", "disable", "allow-words", "extend-vocabulary", "shared"}


class ConfigError(ValueError):
    """The configuration cannot be used; the message says which key and why."""


@dataclass(frozen=True)
class Override:
    paths: tuple[str, ...]
    enable: tuple[str, ...] = ()
    disable: tuple[str, ...] = ()
    allow_words: tuple[str, ...] = ()
    extend_vocabulary: tuple[str, ...] = ()
    shared: bool | None = None


@dataclass(frozen=True)
class FileSettings:
    """The configuration as it applies to one file, after the per-path overrides."""

    enabled: frozenset[str]
    vocabulary: Vocabulary
    backend_words: Vocabulary
    shared: bool


@dataclass(frozen=True)
class AuditConfig:
    root: Path
    paths: tuple[str, ...] = (".",)
    exclude: tuple[str, ...] = ()
    registry: str | None = None
    ir_dialects: tuple[str, ...] = DEFAULT_IR_DIALECTS
    foreign_prefixes: tuple[str, ...] = DEFAULT_FOREIGN_PREFIXES
    backends: tuple[str, ...] = DEFAULT_BACKEND_WORDS
    shared_paths: tuple[str, ...] | None = None
    vocabulary: tuple[str, ...] = DEFAULT_OPERATOR_WORDS
    allow_words: tuple[str, ...] = ()
    enable: tuple[str, ...] | None = None
    disable: tuple[str, ...] = ()
    baseline: str = DEFAULT_BASELINE
    overrides: tuple[Override, ...] = ()
    _settings_cache: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def registry_path(self) -> str | None:
        """The registry module's file, relative to the root (`compiler/ir/registry.py`)."""
        if not self.registry:
            return None
        module = self.registry.split(":", 1)[0].replace(".", "/")
        package = self.root / module / "__init__.py"
        return f"{module}/__init__.py" if package.is_file() else f"{module}.py"

    def is_excluded(self, relative: str) -> bool:
        return any(path_matches(relative, pattern) for pattern in self.exclude)

    def settings_for(self, relative: str, all_codes: frozenset[str]) -> FileSettings:
        matching = tuple(
            o for o in self.overrides if any(path_matches(relative, p) for p in o.paths)
        )
        shared = self.shared_paths is None or any(
            path_matches(relative, p) for p in self.shared_paths
        )
        key = (matching, shared)
        if key not in self._settings_cache:
            self._settings_cache[key] = self._settings(matching, shared, all_codes)
        return self._settings_cache[key]

    def _settings(self, overrides, shared: bool, all_codes: frozenset[str]) -> FileSettings:
        named = {*(self.enable or ()), *self.disable}
        named.update(code for o in overrides for code in (*o.enable, *o.disable))
        if named - all_codes:
            raise ConfigError(f"unknown rule code(s) {sorted(named - all_codes)}")
        enabled = set(self.enable) if self.enable is not None else set(all_codes)
        enabled -= set(self.disable)
        words = list(self.vocabulary)
        allowed = set(self.allow_words)
        for override in overrides:
            enabled = (enabled | set(override.enable)) - set(override.disable)
            words += override.extend_vocabulary
            allowed |= set(override.allow_words)
            shared = shared if override.shared is None else override.shared
        return FileSettings(
            enabled=frozenset(enabled),
            vocabulary=Vocabulary(words).without(allowed),
            backend_words=Vocabulary(self.backends, glue=(), whole_below=SHORT_BACKEND_NAME),
            shared=shared,
        )


def path_matches(relative: str, pattern: str) -> bool:
    """A pattern is a path prefix (`compiler/ir`) or a glob (`compiler/backends/*/emit.py`)."""
    pattern = pattern.strip("/")
    if pattern in ("", "."):
        return True
    return (
        relative == pattern
        or relative.startswith(pattern + "/")
        or fnmatch.fnmatchcase(relative, pattern)
    )


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml with a [tool.lowering-audit] table, else the nearest one."""
    nearest = None
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            nearest = nearest or candidate
            if "lowering-audit" in _read_toml(candidate).get("tool", {}):
                return candidate
    return nearest


def has_audit_table(pyproject: Path) -> bool:
    return pyproject.is_file() and "lowering-audit" in _read_toml(pyproject).get("tool", {})


def load_config(pyproject: Path | None = None, start: Path | None = None) -> AuditConfig:
    """Read the configuration; without a pyproject.toml the defaults apply at `start`."""
    start = (start or Path.cwd()).resolve()
    pyproject = pyproject or find_pyproject(start)
    if pyproject is None:
        return AuditConfig(root=start)
    pyproject = pyproject.resolve()
    table = _read_toml(pyproject).get("tool", {}).get("lowering-audit", {})
    return config_from_table(table, root=pyproject.parent)


def config_from_table(table: dict, root: Path) -> AuditConfig:
    _check_keys(table, _TOP_KEYS, "[tool.lowering-audit]")
    vocabulary = _strings(table, "vocabulary", DEFAULT_OPERATOR_WORDS)
    shared = table.get("shared-paths")
    enable = table.get("enable")
    return AuditConfig(
        root=root,
        paths=_strings(table, "paths", (".",)),
        exclude=_strings(table, "exclude", ()),
        registry=_optional_string(table, "registry"),
        ir_dialects=_strings(table, "ir-dialects", DEFAULT_IR_DIALECTS),
        foreign_prefixes=_strings(table, "foreign-prefixes", DEFAULT_FOREIGN_PREFIXES),
        backends=_strings(table, "backends", DEFAULT_BACKEND_WORDS),
        shared_paths=None if shared is None else _strings(table, "shared-paths", ()),
        vocabulary=vocabulary + _strings(table, "extend-vocabulary", ()),
        allow_words=_strings(table, "allow-words", ()),
        enable=None if enable is None else _strings(table, "enable", ()),
        disable=_strings(table, "disable", ()),
        baseline=_optional_string(table, "baseline") or DEFAULT_BASELINE,
        overrides=tuple(_override(entry, index) for index, entry in enumerate(_overrides(table))),
    )


def _overrides(table: dict) -> list[dict]:
    overrides = table.get("overrides", [])
    if not isinstance(overrides, list) or not all(isinstance(o, dict) for o in overrides):
        raise ConfigError("[tool.lowering-audit] overrides must be an array of tables")
    return overrides


def _override(entry: dict, index: int) -> Override:
    where = f"[[tool.lowering-audit.overrides]] #{index + 1}"
    _check_keys(entry, _OVERRIDE_KEYS, where)
    if not entry.get("paths"):
        raise ConfigError(f"{where} needs `paths`")
    shared = entry.get("shared")
    if shared is not None and not isinstance(shared, bool):
        raise ConfigError(f"{where} `shared` must be true or false")
    return Override(
        paths=_strings(entry, "paths", ()),
        enable=_strings(entry, "enable", ()),
        disable=_strings(entry, "disable", ()),
        allow_words=_strings(entry, "allow-words", ()),
        extend_vocabulary=_strings(entry, "extend-vocabulary", ()),
        shared=shared,
    )


def _check_keys(table: dict, known: set[str], where: str) -> None:
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(unknown)}; known: {sorted(known)}")


def _strings(table: dict, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    value = table.get(key, default)
    if isinstance(value, str) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"[tool.lowering-audit] `{key}` must be a list of strings")
    return tuple(value)


def _optional_string(table: dict, key: str) -> str | None:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"[tool.lowering-audit] `{key}` must be a string")
    return value


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ConfigError(f"cannot read {path}: {error}") from error
