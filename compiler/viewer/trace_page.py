"""A self-contained HTML page of compiled kernels' pass traces (`ntc trace --html`).

The page needs no network: its stylesheet and script (`trace_page.css`, `trace_page.js` in this
package) are inlined, and the trace travels as JSON in a `<script type="application/json">` block
whose `<`, `>` and `&` are written as JSON escapes, so no text in it can close the block. Every
IR, source and option text that the page shows statically is HTML-escaped; the script puts the
rest in with `textContent`. Line diffs are computed here, with `difflib`.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Mapping
from html import escape
from pathlib import Path

from compiler.ir import parse_kernel

_ASSETS = Path(__file__).resolve().parent
_SCHEDULE_REASON = "schedule_reason"
_CONTENT_POLICY = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
)


def line_diff(old: str, new: str) -> list[list]:
    """The IR text `old` -> `new` line by line: rows `[tag, old_line, new_line, text]`, tag " "
    (kept), "-" (removed) or "+" (added); line numbers count from 1, 0 where a side has none."""
    before, after = old.splitlines(), new.splitlines()
    matcher = difflib.SequenceMatcher(None, before, after, autojunk=False)
    rows: list[list] = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            rows.extend([" ", i + 1, j1 + i - i1 + 1, before[i]] for i in range(i1, i2))
            continue
        rows.extend(["-", i + 1, 0, before[i]] for i in range(i1, i2))
        rows.extend(["+", 0, j + 1, after[j]] for j in range(j1, j2))
    return rows


def kernel_view(name: str, artifact: object) -> dict:
    """What the page shows of one compiled kernel: every pass with its IR, its diff against the
    previous pass (the first against the input IR when the artifact recorded one), op counts,
    timings, the emitted source and the schedule the kernel's attributes record."""
    trace = list(getattr(artifact, "trace", None) or [])
    input_ir = getattr(artifact, "initial_ssa", None) or None
    passes = []
    previous, base = input_ir, "input IR"
    for index, entry in enumerate(trace, 1):
        ir = str(entry.get("ir", ""))
        diff = None if previous is None else line_diff(previous, ir)
        passes.append(
            {
                "index": index,
                "pass": str(entry.get("pass", "?")),
                "category": str(entry.get("category", "")),
                "options": dict(entry.get("options") or {}),
                "changed": bool(entry.get("changed")),
                "verified": bool(entry.get("verified")),
                "seconds": float(entry.get("seconds") or 0.0),
                "op_counts": dict(entry.get("op_counts") or {}),
                "op_count_delta": dict(entry.get("op_count_delta") or {}),
                "remarks": [str(remark) for remark in entry.get("remarks") or ()],
                "ir": ir,
                "base": base if diff is not None else None,
                "diff": diff,
                "added": sum(row[0] == "+" for row in diff or ()),
                "removed": sum(row[0] == "-" for row in diff or ()),
            }
        )
        previous, base = ir, f"#{index} {passes[-1]['pass']}"
    final_ssa = str(getattr(artifact, "ssa", "") or (passes[-1]["ir"] if passes else ""))
    return {
        "name": name,
        "kernel_name": str(getattr(artifact, "kernel_name", name)),
        "backend": str(getattr(artifact, "backend", "")),
        "device": str(getattr(artifact, "device", "")),
        "source": str(getattr(artifact, "source", "")),
        "ssa": final_ssa,
        "input_ir": input_ir,
        "input_op_counts": _input_op_counts(passes),
        "passes": passes,
        "total_seconds": sum(entry["seconds"] for entry in passes),
        "schedule": {str(k): v for k, v in dict(getattr(artifact, "schedule", None) or {}).items()},
        "schedule_reason": _schedule_reason(final_ssa),
        "schedule_reason_pass": next(
            (p["index"] for p in passes if _SCHEDULE_REASON in p["ir"].partition("\n")[0]), None
        ),
    }


def page_data(artifacts: Mapping[str, object], *, title: str, context: Mapping[str, str]) -> dict:
    """The page's data: `artifacts` maps a kernel's name to what `compile_declared` returned."""
    return {
        "title": title,
        "context": dict(context),
        "kernels": [kernel_view(name, artifact) for name, artifact in artifacts.items()],
    }


def build_trace_page(
    artifacts: Mapping[str, object],
    *,
    title: str = "ntc trace",
    context: Mapping[str, str] | None = None,
) -> str:
    """The whole page as one HTML document (stylesheet, script and data inline)."""
    data = page_data(artifacts, title=title, context=context or {})
    style, script = _asset("trace_page.css"), _asset("trace_page.js")
    context_html = "".join(
        f'<span class="ctx"><span class="ctx-key">{escape(key)}</span> {escape(value)}</span>'
        for key, value in data["context"].items()
        if value
    )
    tabs = "".join(
        f'<button type="button" class="kernel-tab" data-kernel="{index}">'
        f"@{escape(kernel['name'])}</button>"
        for index, kernel in enumerate(data["kernels"])
    )
    sections = "".join(_kernel_html(index, kernel) for index, kernel in enumerate(data["kernels"]))
    empty = "" if data["kernels"] else '<p class="empty">No kernels.</p>'
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_CONTENT_POLICY}">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title>\n<style>\n{style}\n</style>\n</head>\n<body>\n"
        '<header class="top">\n'
        f'<div class="brand">{escape(title)}</div>\n<div class="context">{context_html}</div>\n'
        f'<nav class="kernel-tabs" aria-label="kernels">{tabs}</nav>\n'
        '<button type="button" class="theme-toggle" title="switch between light and dark">'
        "light / dark</button>\n</header>\n"
        f"<main>\n{empty}{sections}</main>\n"
        f'<script type="application/json" id="ntc-trace-data">{_json_for_script(data)}</script>\n'
        f"<script>\n{script}\n</script>\n</body>\n</html>\n"
    )


def write_trace_page(
    path: str | Path,
    artifacts: Mapping[str, object],
    *,
    title: str = "ntc trace",
    context: Mapping[str, str] | None = None,
) -> Path:
    """Write the page to `path` (its folder must exist); returns the path written."""
    target = Path(path)
    target.write_text(build_trace_page(artifacts, title=title, context=context), encoding="utf-8")
    return target


def _kernel_html(index: int, kernel: dict) -> str:
    passes = kernel["passes"]
    slowest = max((entry["seconds"] for entry in passes), default=0.0) or 1.0
    steps = [
        '<li><button type="button" class="step step-input" data-step="0">'
        '<span class="step-index">0</span><span class="step-name">input IR</span>'
        f'<span class="step-note">{"recorded" if kernel["input_ir"] else "not recorded"}'
        "</span></button></li>"
    ]
    for entry in passes:
        grown = sum(v for v in entry["op_count_delta"].values() if v > 0)
        shrunk = sum(v for v in entry["op_count_delta"].values() if v < 0)
        ops = "".join(
            f'<span class="{cls}">{text}</span>'
            for cls, text in (("up", f"+{grown}"), ("down", f"&minus;{-shrunk}"))
            if text not in ("+0", "&minus;0")
        )
        state = "changed" if entry["changed"] else "unchanged"
        steps.append(
            f'<li><button type="button" class="step {state}" data-step="{entry["index"]}" '
            f'title="{escape(entry["pass"])}: {state}">'
            f'<span class="step-index">{entry["index"]}</span>'
            f'<span class="step-name">{escape(entry["pass"]).replace(".", ".<wbr>")}</span>'
            f"{_category_badge(entry['category'])}"
            f'<span class="step-flags">{_flags(entry)}</span>'
            f'<span class="timebar" title="{entry["seconds"]:.6f} s"><span style="width:'
            f'{100 * entry["seconds"] / slowest:.1f}%"></span></span>'
            f'<span class="secs">{_seconds(entry["seconds"])}</span>'
            f'<span class="step-ops" title="ops added / removed">{ops or "&middot;"}</span>'
            "</button></li>"
        )
    views = "".join(
        f'<button type="button" class="view-tab" data-view="{view}" role="tab">{label}</button>'
        for view, label in (
            ("overview", "Overview"),
            ("diff", "Diff"),
            ("ir", "Full IR"),
            ("counts", "Op counts"),
            ("source", "Source"),
        )
    )
    name = escape(kernel["name"])
    return (
        f'<section class="kernel" data-kernel="{index}" aria-label="kernel {name}">\n'
        f'<div class="kernel-head"><h2>@{name}</h2>'
        f'<span class="pill">{escape(kernel["backend"])} &middot; {escape(kernel["device"])}</span>'
        f'<span class="pill">{len(passes)} passes</span>'
        f'<span class="pill">total {_seconds(kernel["total_seconds"])}</span>'
        f"{_schedule_html(kernel)}</div>\n"
        '<div class="layout">\n<aside class="pipeline">\n<h3>Pipeline</h3>\n'
        f'<ol class="steps">{"".join(steps)}</ol>\n'
        f'<div class="total">total <strong>{_seconds(kernel["total_seconds"])}</strong>'
        f" in {len(passes)} passes</div>\n</aside>\n"
        '<div class="detail">\n'
        f'<div class="view-tabs" role="tablist">{views}'
        '<label class="wrap-toggle"><input type="checkbox" class="wrap-lines"> wrap lines</label>'
        "</div>\n"
        '<div class="step-head"></div>\n'
        f'<div class="view view-overview">{_overview_html(kernel)}</div>\n'
        '<div class="view view-diff"></div>\n<div class="view view-ir"></div>\n'
        '<div class="view view-counts"></div>\n'
        f'<div class="view view-source"><p class="note">Emitted {escape(kernel["backend"])} source '
        f"for {escape(kernel['device'])}, from the final IR.</p>"
        f'<div class="code">{_numbered(kernel["source"])}</div></div>\n'
        "</div>\n</div>\n</section>\n"
    )


def _schedule_html(kernel: dict) -> str:
    chips = "".join(
        f'<span class="chip">{escape(key)}={escape(str(value))}</span>'
        for key, value in kernel["schedule"].items()
    )
    reason = kernel["schedule_reason"]
    where = kernel["schedule_reason_pass"]
    by = (
        f' <button type="button" class="goto-step" data-step="{where}">'
        f"set by #{where} {escape(kernel['passes'][where - 1]['pass'])}</button>"
        if where
        else ""
    )
    text = (
        f'<div class="reason"><span class="label">schedule_reason</span> {escape(reason)}{by}</div>'
        if reason
        else ""
    )
    if not chips and not text:
        return ""
    label = '<span class="label">schedule</span>' if chips else ""
    return f'<div class="schedule">{label}{chips}{text}</div>'


def _overview_html(kernel: dict) -> str:
    passes = kernel["passes"]
    slowest = max((entry["seconds"] for entry in passes), default=0.0) or 1.0
    total = kernel["total_seconds"] or 1.0
    bars = "".join(
        f'<div class="bar-row"><button type="button" class="goto-step" data-step="{e["index"]}">'
        f"#{e['index']} {escape(e['pass'])}</button>"
        f'<span class="bar"><span style="width:{100 * e["seconds"] / slowest:.1f}%"></span></span>'
        f'<span class="secs">{_seconds(e["seconds"])}</span>'
        f'<span class="share">{100 * e["seconds"] / total:.1f}%</span></div>'
        for e in passes
    )
    columns = [kernel["input_op_counts"]] + [entry["op_counts"] for entry in passes]
    ops = sorted({op for counts in columns for op in counts})
    head = '<th title="input IR">in</th>' + "".join(
        f'<th title="#{e["index"]} {escape(e["pass"])}">{e["index"]}</th>' for e in passes
    )
    rows = []
    for op in ops:
        cells, previous = [], None
        for counts in columns:
            value = counts.get(op, 0)
            cls = "" if previous in (None, value) else (" up" if value > previous else " down")
            cells.append(f'<td class="num{cls}">{value if value else "&middot;"}</td>')
            previous = value
        rows.append(f"<tr><th>{escape(op)}</th>{''.join(cells)}</tr>")
    totals = "".join(f'<td class="num">{sum(c.values())}</td>' for c in columns)
    rows.append(f'<tr class="totals"><th>all ops</th>{totals}</tr>')
    return (
        f'<h3>Time per pass <span class="muted">total {_seconds(kernel["total_seconds"])}</span>'
        f'</h3><div class="bars">{bars}</div>'
        '<h3>Op counts <span class="muted">after each pass (columns: pass number)</span></h3>'
        '<div class="table-scroll"><table class="counts matrix">'
        f"<thead><tr><th>op</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _numbered(text: str) -> str:
    lines = text.splitlines() or [""]
    return (
        '<div class="lines">'
        + "".join(
            f'<div class="line"><span class="no">{number}</span>'
            f'<span class="text">{escape(line) or " "}</span></div>'
            for number, line in enumerate(lines, 1)
        )
        + "</div>"
    )


def _flags(entry: dict) -> str:
    changed = (
        '<span class="flag changed" title="changed the IR">changed</span>'
        if entry["changed"]
        else '<span class="flag same" title="left the IR unchanged">same</span>'
    )
    verified = (
        '<span class="flag ok" title="IR verified after the pass">&#10003;</span>'
        if entry["verified"]
        else '<span class="flag bad" title="IR not verified after the pass">&#10007;</span>'
    )
    return changed + verified


def _category_badge(category: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "-", category.lower()).strip("-") or "none"
    return f'<span class="badge cat-{slug}">{escape(category)}</span>'


def _seconds(seconds: float) -> str:
    return f"{seconds:.4f} s"


def _input_op_counts(passes: list[dict]) -> dict[str, int]:
    """The input IR's op counts: the first pass's counts less its delta."""
    if not passes:
        return {}
    first = passes[0]
    ops = set(first["op_counts"]) | set(first["op_count_delta"])
    counts = {op: first["op_counts"].get(op, 0) - first["op_count_delta"].get(op, 0) for op in ops}
    return {op: count for op, count in sorted(counts.items()) if count}


def _schedule_reason(ssa: str) -> str | None:
    """The `schedule_reason` attribute of the final IR's kernel, when it records one."""
    if _SCHEDULE_REASON not in ssa.partition("\n")[0]:
        return None
    reason = parse_kernel(ssa).attrs.get(_SCHEDULE_REASON)
    return None if reason is None else str(reason)


def _json_for_script(data: dict) -> str:
    """JSON that is safe inside a script element: no `<`, `>` or `&` appears literally."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def _asset(name: str) -> str:
    """The page's own stylesheet or script, inlined so the page needs no other file."""
    text = (_ASSETS / name).read_text(encoding="utf-8")
    closing = "</" + ("style" if name.endswith(".css") else "script")
    if closing in text.lower():
        raise ValueError(f"{name} contains {closing!r}, which would end its inline element early")
    return text
