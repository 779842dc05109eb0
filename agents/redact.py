"""Redaction of credentials from everything a transcript stores.

Three nets, because a key can surface anywhere (an error body echoing a header, a file the model
reads, a URL with a password): the literal values of secret environment variables and of the
configured API key; values under header-like keys (`Authorization`, `api_key`, ...); and the
shapes keys usually have (`Bearer ...`, `sk-...`, `user:password@` in URLs).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping

MARK = "<redacted>"
SECRET_NAME = re.compile(r"API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD", re.IGNORECASE)
SENSITIVE_KEYS = frozenset(
    {"authorization", "proxy-authorization", "api_key", "api-key", "x-api-key", "cookie"}
)
SHAPES = (
    (
        re.compile(
            r"(?i)((?:api[_-]?key|authorization)[\"']?\s*[:=]\s*[\"']?)"
            r"(?:(?:bearer|basic)\s+)?[^\s\"',}]+"
        ),
        rf"\1{MARK}",
    ),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{6,}"), rf"\1 {MARK}"),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{8,}"), MARK),
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@"), rf"\1{MARK}@"),
)
MIN_SECRET_LENGTH = 6  # shorter values ("1", "yes") would blank out ordinary text


class Redactor:
    def __init__(self, secrets: Iterable[str] = ()):
        wanted = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        self.secrets = sorted(wanted, key=len, reverse=True)

    @classmethod
    def from_environment(cls, extra: Iterable[str] = (), env: Mapping[str, str] | None = None):
        env = os.environ if env is None else env
        return cls([*extra, *(value for name, value in env.items() if SECRET_NAME.search(name))])

    def text(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MARK)
        for pattern, replacement in SHAPES:
            text = pattern.sub(replacement, text)
        return text

    def value(self, value: object) -> object:
        """`value` (JSON-like) with every secret replaced by the mark."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, Mapping):
            return {
                key: MARK if str(key).lower() in SENSITIVE_KEYS else self.value(item)
                for key, item in value.items()
            }
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        return value
