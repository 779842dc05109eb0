"""The trace page in headless Chromium: it loads nothing, raises nothing, and clicking a pass, a
view and the source shows what the trace holds. Skipped without Chromium unless
NTC_REQUIRE_BROWSER=1 (CI sets it and installs Debian's chromium)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from compiler.cli.program import program_kernels
from compiler.viewer import write_trace_page

ROOT = Path(__file__).resolve().parents[2]
MATMUL = ROOT / "compiler" / "suite" / "programs" / "matmul.py"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _chromium() -> str:
    """Debian's chromium, or the test is skipped (failed under NTC_REQUIRE_BROWSER=1)."""
    found = "/usr/bin/chromium" if Path("/usr/bin/chromium").is_file() else None
    found = found or shutil.which("chromium")
    problem = None
    if found is None:
        problem = "no chromium at /usr/bin/chromium or on PATH (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            problem = "the playwright package is missing (pip install -e '.[test]')"
    if problem:
        if os.environ.get("NTC_REQUIRE_BROWSER") == "1":
            pytest.fail(f"NTC_REQUIRE_BROWSER=1 but {problem}")
        pytest.skip(f"browser test needs Chromium and Playwright: {problem}")
    return found


@pytest.fixture(scope="module")
def page_file(tmp_path_factory):
    (handle,) = program_kernels(str(MATMUL), "cuda", "cpu").values()
    artifact = handle.compile_declared("f32")
    path = tmp_path_factory.mktemp("browser") / "matmul.html"
    write_trace_page(path, {"matmul": artifact}, context={"file": "matmul.py", "backend": "cuda"})
    return path, artifact


def test_page_in_headless_chromium(page_file, tmp_path):
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    path, artifact = page_file
    # a pass after the first that changed the IR and its op counts and made remarks (the
    # schedule's), and a line it added that the IR before it did not have
    index, entry = next(
        (i, e)
        for i, e in enumerate(artifact.trace, 1)
        if i > 1 and e["changed"] and e["op_count_delta"] and e["remarks"]
    )
    earlier = set(artifact.trace[index - 2]["ir"].splitlines())
    added = next(line for line in entry["ir"].splitlines() if line not in earlier)
    source_line = next(line for line in artifact.source.splitlines() if line.strip())

    requests, errors = [], []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1400, "height": 900})
            page = context.new_page()

            def refuse(route):
                if not route.request.url.startswith("file://"):
                    requests.append(route.request.url)
                    route.abort()
                else:
                    route.continue_()

            page.route("**/*", refuse)
            page.on("request", lambda r: r.url.startswith("file://") or requests.append(r.url))
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(path.as_uri(), wait_until="load", timeout=10_000)

            # every pass is listed, in order
            names = page.locator(".kernel .step .step-name").all_inner_texts()
            assert names == ["input IR", *(e["pass"] for e in artifact.trace)]

            page.click(f'.step[data-step="{index}"]')
            page.click('.view-tab[data-view="diff"]')
            diff = page.locator(".view-diff.active")
            assert diff.is_visible()
            assert entry["pass"] in page.locator(".step-head").inner_text()
            remarks = page.locator(".step-head .remark").all_text_contents()
            assert remarks == entry["remarks"] and remarks  # the schedule's choice and reason
            added_texts = diff.locator(".line.add .text").all_text_contents()
            assert added in added_texts, (entry["pass"], added)

            page.click('.view-tab[data-view="ir"]')
            assert added in page.locator(".view-ir.active .line .text").all_text_contents()

            page.click('.view-tab[data-view="source"]')
            source = page.locator(".view-source.active")
            assert source.is_visible() and not diff.is_visible()
            assert source_line in source.locator(".line .text").all_text_contents()

            page.click('.view-tab[data-view="overview"]')
            assert page.locator(".view-overview.active .bar-row").count() == len(artifact.trace)

            shot = tmp_path / "page.png"
            page.screenshot(path=str(shot), full_page=False)
        finally:
            browser.close()

    assert requests == [], f"the page asked the network for {requests}"
    assert errors == [], errors
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(shot) as image:
        assert image.size == (1400, 900)
        pixels = np.asarray(image.convert("RGB"))
    colours = np.unique(pixels.reshape(-1, 3), axis=0)
    assert len(colours) > 50, "the screenshot is blank or nearly so"
    assert pixels.std() > 10
