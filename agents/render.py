"""A transcript as Markdown a person can read: `transcript.md` next to `transcript.jsonl`.

Long texts (file contents, tool results) are folded and cut; the JSONL holds them in full.
"""

from __future__ import annotations

import json
from pathlib import Path

from agents.transcript import read_events

SHOWN_LINES = 60
MARKDOWN = "transcript.md"


def render_transcript(path: Path) -> Path:
    events = read_events(path)
    lines: list[str] = []
    for event in events:
        lines += RENDERERS.get(event["type"], _other)(event)
        lines.append("")
    target = Path(path).parent / MARKDOWN if Path(path).is_file() else Path(path) / MARKDOWN
    target.write_text("\n".join(lines), encoding="utf-8")
    return target


def _header(event: dict) -> list[str]:
    replay = f"\n- **replay of** `{event['replay_of']}`" if event.get("replay_of") else ""
    return [
        f"# Transcript {event['run_id']}: task {event['task']}",
        "",
        f"- **provider**: {event['provider']}; **model**: {event['model']}{replay}",
        f"- **params**: {event['params'] or 'none'}; **base commit**: `{event['commit']}`",
        f"- **budget**: {event['budget']}; **approve**: {event['approve']}",
    ]


def _request(event: dict) -> list[str]:
    """Only what is new for the model: the system prompt and user messages after its last reply
    (tool results are shown with their tool calls)."""
    if event["attempt"] > 1:
        return [f"*call {event['call'] + 1}, attempt {event['attempt']}: the same request again*"]
    messages = event["request"]["messages"]
    last = max((i for i, m in enumerate(messages) if m["role"] == "assistant"), default=-1)
    lines = []
    for message in messages[last + 1 :]:
        if message["role"] in ("system", "user"):
            lines += [f"## {message['role'].capitalize()}", "", *_block(message["content"] or "")]
    return lines


def _response(event: dict) -> list[str]:
    message = event["message"]
    tokens = event["usage"]
    lines = [
        f"## Model, call {event['call'] + 1} ({tokens['prompt_tokens']} + "
        f"{tokens['completion_tokens']} tokens{', estimated' if event['estimated'] else ''})",
        "",
    ]
    if message.get("content"):
        lines += [message["content"], ""]
    for call in message.get("tool_calls") or []:
        lines.append(f"- `{call['function']['name']}` {_arguments(call['function']['arguments'])}")
    return lines


def _tool(event: dict) -> list[str]:
    shown = _arguments(event["arguments"]).split("\n")[0]  # the short arguments only
    return [
        f"**{event['name']}** {shown} → {event['status']}",
        "",
        *_block(event["result"]),
    ]


def _gates(event: dict) -> list[str]:
    when = "after finish" if event["after_finish"] else "run_checks"
    lines = [
        f"### Gates ({when})",
        "",
        "| gate | result | findings | ran |",
        "| --- | --- | --- | --- |",
    ]
    for result in event["results"]:
        verdict = "passed" if result["passed"] else "FAILED"
        if result.get("time_limit"):  # older transcripts have no time limits apart
            verdict = "STOPPED by its time limit"
        ran = result.get("ran", "")  # transcripts recorded before gates said what they ran
        lines.append(f"| {result['name']} | {verdict} | {len(result['findings'])} | {ran} |")
    return lines


def _model_error(event: dict) -> list[str]:
    kind = "transient" if event["transient"] else "fatal"
    return [
        f"> call {event['call'] + 1}, attempt {event['attempt']} failed ({kind}): {event['error']}"
    ]


def _report(event: dict) -> list[str]:
    usage = event["usage"]
    return [
        f"## Report: {event['status'].upper()}"
        + (f" ({event['reason']})" if event["reason"] else ""),
        "",
        f"- model calls {usage['steps']} (failed {usage['failed_calls']}), tokens "
        f"{usage['prompt_tokens']} + {usage['completion_tokens']}, "
        f"{usage['seconds']:.1f} s, malformed tool calls {usage['malformed_tool_calls']}",
        f"- tool calls: {_tally(usage['tools'], 'calls')}; gate failures: "
        f"{_tally(usage['gates'], 'failed')}",
        f"- changed: {', '.join(event['changed']) or 'nothing'}; patch: `{event['patch']}`",
    ]


def _tally(counts: dict[str, dict], key: str) -> str:
    shown = [f"{name} {c[key]}" for name, c in sorted(counts.items()) if c[key]]
    return ", ".join(shown) or "none"


def _other(event: dict) -> list[str]:
    fields = {k: v for k, v in event.items() if k not in ("type", "time")}
    return [f"*{event['type']}*: `{json.dumps(fields, ensure_ascii=False)[:500]}`"]


def _arguments(arguments: str) -> str:
    try:
        parsed = json.loads(arguments)
    except json.JSONDecodeError:
        return f"(malformed) `{arguments[:200]}`"
    if not isinstance(parsed, dict):
        return f"`{arguments[:200]}`"
    short = {k: v for k, v in parsed.items() if "\n" not in str(v) and len(str(v)) < 120}
    lines = [f"`{json.dumps(short, ensure_ascii=False)}`"]
    for key, value in parsed.items():
        if key not in short:
            lines += ["", f"  {key}:", *("  " + line for line in _block(str(value)))]
    return "\n".join(lines)


def _block(text: str) -> list[str]:
    lines = text.splitlines() or [""]
    fence = "````" if "```" in text else "```"
    if len(lines) <= SHOWN_LINES:
        return [fence, *lines, fence]
    cut = len(lines) - SHOWN_LINES
    return [
        f"<details><summary>{len(lines)} lines</summary>",
        "",
        fence,
        *lines[:SHOWN_LINES],
        fence,
        f"*... {cut} more lines in transcript.jsonl*",
        "</details>",
    ]


RENDERERS = {
    "run": _header,
    "request": _request,
    "response": _response,
    "tool": _tool,
    "gates": _gates,
    "model_error": _model_error,
    "report": _report,
}
