"""`search` serves a model: recorded runs, build and cache folders, lock files and large files are
skipped, a file shows a few matches and says how many more it has, long lines are cut, and the
last line counts the matches and files in all."""

import re

from agent_support import run
from fake_openai import FakeOpenAI, reply

from agents.search import HITS_PER_FILE, LINE_CHARS, MAX_FILE_BYTES, MAX_HITS, search
from agents.transcript import read_events

FINISH = reply(
    ("write_file", {"path": "notes/done.txt", "content": "done"}), ("finish", {"summary": "done"})
)


def test_search_in_a_run_skips_the_recorded_transcripts(home):
    script = [reply(("search", {"pattern": "REPLAY MISMATCH"})), FINISH]
    with FakeOpenAI(script) as server:
        result = run(home, server, task="history")
    text = next(e["result"] for e in read_events(result.out) if e["type"] == "tool")
    assert (home / "run" / "sandbox" / "transcripts").is_dir()  # kept, yet not searched
    lines = text.splitlines()
    shown = [line for line in lines if re.match(r"\S+:\d+: ", line)]
    more = [int(m[1]) for line in lines if (m := re.match(r"\S+: (\d+) more in this file$", line))]
    assert any(line.startswith("agents/cli.py:") for line in shown)
    assert not [line for line in shown if line.startswith("transcripts/")]
    total = re.match(r"(\d+) matches in \d+ files \(skipped: transcripts/", lines[-1])
    assert total and int(total[1]) == len(shown) + sum(more)


def test_caps_per_file_and_line_and_the_totals(tmp_path):
    (tmp_path / "many.py").write_text("".join(f"hit = {n}\n" for n in range(20)))
    (tmp_path / "long.py").write_text("hit = '" + "x" * 5000 + "'\n")
    (tmp_path / "big.txt").write_text("hit\n" * (MAX_FILE_BYTES // 3))
    (tmp_path / "poetry.lock").write_text("hit\n")
    for folder in ("build", "transcripts", ".venv", "pkg.egg-info"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.py").write_text("hit\n")
    lines = search(tmp_path, tmp_path, "hit").splitlines()
    assert lines[:HITS_PER_FILE] == [
        f"long.py:1: hit = '{'x' * (LINE_CHARS - 7)} ... (5008 characters)"
    ] + [f"many.py:{n + 1}: hit = {n}" for n in range(HITS_PER_FILE - 1)]
    assert f"many.py: {20 - HITS_PER_FILE} more in this file" in lines
    assert lines[-1].startswith("21 matches in 2 files (skipped: transcripts/")


def test_past_the_cap_matches_are_counted_not_shown(tmp_path):
    for index in range(40):
        (tmp_path / f"f{index:02d}.py").write_text("hit\nhit\nhit\nhit\n")
    text = search(tmp_path, tmp_path, "hit")
    assert len([line for line in text.splitlines() if ".py:" in line]) == MAX_HITS
    assert f"... {160 - MAX_HITS} more matches in 10 more files" in text
    assert text.splitlines()[-1].startswith("160 matches in 40 files")
    assert (
        search(tmp_path, tmp_path / "f00.py", "hit")
        .splitlines()[-1]
        .startswith("4 matches in 1 file ")
    )
    assert search(tmp_path, tmp_path, "nothing").startswith("no match")
