"""Reading a skill's Markdown: frontmatter, fenced blocks, inline code spans, links and tables.

Only what the validator and the truth tests need, with line numbers for their messages. A fenced
block's info string is `language word ... key=value ...` (shell quoting), so a block can carry
claims: ```` ```python wrong ```` or ```` ```mlir from="<command>" ````.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path

import yaml

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SPAN = re.compile(r"(~~)?(`+)(.+?)\2(~~)?")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_HEADING = re.compile(r"^(#{1,6}) +(.*)$")


class MarkdownError(ValueError):
    """A file the skill tools cannot read; the message names the file and the line."""


@dataclass(frozen=True)
class Fence:
    language: str
    words: tuple[str, ...]  # info-string words after the language, e.g. ("wrong",)
    attrs: dict[str, str]  # info-string key=value pairs, e.g. {"from": "..."}
    text: str
    line: int  # 1-based line of the opening fence


@dataclass(frozen=True)
class Span:
    text: str
    line: int
    struck: bool  # written ~~`like this`~~: named as something that must not exist


@dataclass(frozen=True)
class Document:
    path: Path
    frontmatter: dict | None  # None when the file has no frontmatter
    body: str
    body_start: int  # 1-based file line of the body's first line
    fences: list[Fence] = field(default_factory=list)
    spans: list[Span] = field(default_factory=list)
    links: list[tuple[str, int]] = field(default_factory=list)
    headings: list[tuple[int, str, int]] = field(default_factory=list)  # (level, title, offset)

    @property
    def body_lines(self) -> int:
        return len(self.body.splitlines())


def read_document(path: Path) -> Document:
    text = path.read_text(encoding="utf-8")
    frontmatter, body, start = _split_frontmatter(path, text)
    document = Document(path, frontmatter, body, start)
    _scan(document)
    return document


def _split_frontmatter(path: Path, text: str) -> tuple[dict | None, str, int]:
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        return None, text, 1
    for end in range(1, len(lines)):
        if lines[end].rstrip() == "---":
            break
    else:
        raise MarkdownError(f"{path}:1: frontmatter opened with --- is never closed")
    try:
        data = yaml.safe_load("".join(lines[1:end]))
    except yaml.YAMLError as error:
        raise MarkdownError(f"{path}: frontmatter is not valid YAML: {error}") from None
    if not isinstance(data, dict):
        raise MarkdownError(f"{path}:1: frontmatter must be a YAML mapping")
    return data, "".join(lines[end + 1 :]), end + 2


def _scan(document: Document) -> None:
    open_fence: tuple[str, str, int, list[str]] | None = None  # (marker, info, line, lines)
    for offset, line in enumerate(document.body.splitlines()):
        number = document.body_start + offset
        match = _FENCE.match(line)
        if open_fence is not None:
            marker, info, start, lines = open_fence
            if match and match[1].startswith(marker) and not match[2].strip():
                document.fences.append(_fence(document.path, info, "\n".join(lines), start))
                open_fence = None
            else:
                lines.append(line)
            continue
        if match:
            open_fence = (match[1], match[2].strip(), number, [])
            continue
        heading = _HEADING.match(line)
        if heading:
            document.headings.append((len(heading[1]), heading[2].strip(), offset))
        for span in _SPAN.finditer(line):
            struck = bool(span[1] and span[4])
            document.spans.append(Span(span[3].strip(), number, struck))
        document.links.extend((target, number) for target in _LINK.findall(line))
    if open_fence is not None:
        raise MarkdownError(f"{document.path}:{open_fence[2]}: fenced block is never closed")


def _fence(path: Path, info: str, text: str, line: int) -> Fence:
    try:
        tokens = shlex.split(info)
    except ValueError as error:
        raise MarkdownError(
            f"{path}:{line}: cannot read the info string {info!r}: {error}"
        ) from None
    language, rest = (tokens[0], tokens[1:]) if tokens else ("", [])
    attrs = dict(token.split("=", 1) for token in rest if "=" in token)
    words = tuple(token for token in rest if "=" not in token)
    return Fence(language, words, attrs, text, line)


def section(document: Document, heading: str) -> str:
    """The text under the first heading that starts with the words `heading` (case-insensitive:
    "Procedure" finds "Procedure: adding a pass"), up to the next heading of the same or a higher
    level; empty when there is no such heading."""
    lines = document.body.splitlines()
    starts = re.compile(rf"{re.escape(heading)}\b", re.I)
    for index, (level, title, offset) in enumerate(document.headings):
        if starts.match(title):
            later = (o for lv, _, o in document.headings[index + 1 :] if lv <= level)
            return "\n".join(lines[offset + 1 : next(later, len(lines))])
    return ""


def table(document: Document, heading: str) -> list[dict[str, str]]:
    """The rows of the first table in the section `heading`, keyed by the header cells.

    A cell that is one inline code span is read as the span's text (`` `make test` `` -> make test).
    """
    rows: list[list[str]] = []
    for line in section(document, heading).splitlines():
        if line.lstrip().startswith("|"):
            rows.append([_cell(cell) for cell in line.strip().strip("|").split("|")])
        elif rows:
            break
    if len(rows) < 2:
        return []
    header, body = rows[0], rows[2:]  # rows[1] is the |---| rule
    return [dict(zip(header, row, strict=False)) for row in body]


def _cell(text: str) -> str:
    text = text.strip()
    match = re.fullmatch(r"`([^`]+)`", text)
    return match[1] if match else text
