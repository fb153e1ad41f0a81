"""`guide-tui eval` on the real bundled index: exit status, report, comparison, misses, bad input."""

from __future__ import annotations

import dataclasses
import json
import shutil
from datetime import datetime

import pytest

from guide_tui.answerability import shipped_model
from guide_tui.answers import Citation
from guide_tui.cli import main, parse_args
from guide_tui.evaluation import CRITERIA, citation_problem, section_problem, whole_section_problems
from guide_tui.indexes import BUNDLED_CORPUS, BUNDLED_INDEX, build_index, load_index
from guide_tui.settings import FusionSettings

NOW = datetime(2026, 1, 2, 3, 4)

BAKERY = """
[[question]]
id = "bakery"
text = "When does the Kestrelford bakery sell out?"
kind = "answerable"
expected_chunks = [{chunks}]
expected_phrase = "11am"
need = "bakery"
split = "tune"
"""
TOWER = """
[[question]]
id = "tower"
text = "How much does it cost to go up the church tower in Kestrelford?"
kind = "answerable"
expected_chunks = ["guide_kestrelford.md#3"]
expected_phrase = "£2"
need = "tower"
split = "holdout"
"""
OFF_TOPIC = """
[[question]]
id = "python"
text = "How do I reverse a list in Python?"
kind = "off_topic"
need = "python"
"""
RIGHT = '"guide_kestrelford.md#2", "guide_eating.md#3"'
WRONG = '"guide_walking.md#0"'
TYPO = '"guide_kestrelford.md#99"'


def questions_file(tmp_path, name: str, targets: str, bakery_chunks: str = RIGHT):
    path = tmp_path / name
    path.write_text(f"[targets]\n{targets}\n" + BAKERY.format(chunks=bakery_chunks) + TOWER + OFF_TOPIC, encoding="utf-8")
    return path


def run(tmp_path, *extra: str) -> int:
    from guide_tui.evaluation import run_eval

    args = parse_args(["eval", "--out", str(tmp_path / "results"), *extra])
    return run_eval(args, now=NOW)


def report_text(tmp_path, name: str = "eval-2026-01-02-extractive.md") -> str:
    return (tmp_path / "results" / name).read_text(encoding="utf-8")


def test_met_targets_exit_zero_and_report_has_every_criterion(tmp_path, capsys):
    status = run(tmp_path, "--questions", str(questions_file(tmp_path, "q.toml", "rank1 = 0.5\nhit_at_5 = 1.0")))
    out = capsys.readouterr().out
    assert status == 0
    assert "target missed" not in out
    assert "expected chunk ranked first" in out  # the summary table on stdout
    report = report_text(tmp_path)
    assert report.startswith("# Evaluation 2026-01-02 03:04 (extractive)")
    for heading in ("## Settings", "## Summary", "## Criteria"):
        assert heading in report
    for label, _ in CRITERIA.values():
        assert f"### {label}" in report
    assert "| 1 | 1.000 | 2 | 2 |" in report  # hit@5 over the two answerable questions
    sidecar = json.loads((tmp_path / "results" / "eval-2026-01-02-extractive.json").read_text(encoding="utf-8"))
    assert sidecar["overall"]["hit_at_5"] == 1.0
    assert sidecar["settings"]["questions"] == {"answerable": 2, "off_topic": 1}
    cutoff = load_index(BUNDLED_INDEX).cutoff
    assert sidecar["settings"]["retrieval"] == {"top_k": 5, "cutoff": cutoff, **FusionSettings().to_json()}
    assert sidecar["settings"]["knobs_from"] == "defaults"  # no settings.json saved in the tests' own config folder
    assert sidecar["settings"]["answerability"]["threshold"] == shipped_model().threshold
    knobs = (
        f"retrieval: top_k 5, cutoff {cutoff:g}, vector_weight 0.7, region_bonus 0.1, asked_value_bonus 0.1, teacher_pool 20, "
        "teacher_weight 1.5, teacher_let_in 0.05 (knobs from defaults)"
    )
    assert knobs in out and knobs in report  # on the command's output and in the report's settings


def test_impossible_target_exits_one_and_says_which(tmp_path, capsys):
    status = run(tmp_path, "--questions", str(questions_file(tmp_path, "q.toml", "rank1 = 1.01")))
    out = capsys.readouterr().out
    assert status == 1
    assert "target missed: rank1 ≥ 1.01" in out
    assert "MISSED" in report_text(tmp_path)


def test_wrong_label_is_listed_with_what_came_back(tmp_path, capsys):
    run(tmp_path, "--questions", str(questions_file(tmp_path, "q.toml", "", bakery_chunks=WRONG)), "--runs", "2")
    report = report_text(tmp_path)
    assert "| 2 | 0.500 | 1 | 2 |" in report  # rank-1 per run: the wrong label misses in both
    rank1_section = report.split("### expected chunk ranked first", 1)[1].split("###", 1)[0]
    miss = next(line for line in rank1_section.splitlines() if line.startswith("- `bakery`"))
    assert "(runs 1, 2)" in miss and "expected guide_walking.md#0" in miss
    assert "top 5: guide_kestrelford.md#2" in miss  # what retrieval really put first
    assert "- `tower`" not in rank1_section


def test_compare_shows_before_and_after(tmp_path, capsys):
    run(tmp_path, "--questions", str(questions_file(tmp_path, "wrong.toml", "", bakery_chunks=WRONG)))
    first = tmp_path / "results" / "eval-2026-01-02-extractive.md"
    capsys.readouterr()
    status = run(tmp_path, "--questions", str(questions_file(tmp_path, "right.toml", "")), "--compare", str(first))
    out = capsys.readouterr().out
    assert status == 0
    assert "before / after" in out
    assert "warning: the compared report asked other questions" not in out  # same kinds and counts, other labels
    second = report_text(tmp_path, "eval-2026-01-02-extractive-2.md")  # same day: a new file, never overwritten
    assert f"## Compared with {first}" in second
    assert "| expected chunk ranked first | 0.500 | 1.000 | +0.500 |" in second
    assert first.read_text(encoding="utf-8") != second


@pytest.mark.parametrize(
    "setup, extra, message",
    [
        (lambda tmp: None, ["--questions", "missing.toml"], "questions file missing.toml not found"),
        (lambda tmp: (tmp / "bad.toml").write_text("[[question]\n", encoding="utf-8"), ["--questions", "bad.toml"], "cannot be used"),
        (lambda tmp: None, ["--compare", "no-such-report.md"], "no-such-report.json not found"),
        (lambda tmp: None, ["--runs", "0"], "--runs must be at least 1"),
    ],
)
def test_bad_input_is_a_clear_message(tmp_path, monkeypatch, capsys, setup, extra, message):
    monkeypatch.chdir(tmp_path)
    setup(tmp_path)
    status = main(["eval", "--out", str(tmp_path / "results"), *extra])
    err = capsys.readouterr().err
    assert status == 2
    assert message in err
    assert "Traceback" not in err


def test_bundled_chunks_are_whole_sections(bundled_index):
    assert whole_section_problems(bundled_index) == []


def test_a_guide_with_a_terminal_escape_still_has_whole_sections(tmp_path, bundled_index):
    """The check reads each guide as the build does (escapes replaced by spaces), so a clean build is not failed."""
    corpus = tmp_path / "corpus"
    shutil.copytree(BUNDLED_CORPUS, corpus)
    guide = corpus / "guide_kestrelford.md"
    guide.write_text(guide.read_text(encoding="utf-8").replace("The Kestrelford bakery", "The \x1b[31mKestrelford bakery", 1), encoding="utf-8")
    build_index(corpus, tmp_path / "index", embedder=bundled_index.embedder)
    index = load_index(tmp_path / "index")
    assert "\x1b[31m" in guide.read_text(encoding="utf-8")
    assert whole_section_problems(index) == []


def test_section_check_catches_a_cut_short_or_overlong_chunk(bundled_index):
    chunk = next(c for c in bundled_index.chunks if c.chunk_id == "guide_kestrelford.md#2")
    following = next(c for c in bundled_index.chunks if c.chunk_id == "guide_kestrelford.md#3")
    text = (BUNDLED_CORPUS / chunk.file).read_text(encoding="utf-8")
    assert section_problem(chunk, text) is None
    cut_short = dataclasses.replace(chunk, end=chunk.end - 40)
    assert section_problem(cut_short, text) is not None
    two_sections = dataclasses.replace(chunk, end=following.end)
    assert "headings" in section_problem(two_sections, text)


def test_citation_check_needs_the_quote_verbatim_in_the_named_chunk(bundled_index):
    chunks = {c.chunk_id: c for c in bundled_index.chunks}
    chunk = chunks["guide_kestrelford.md#2"]
    sentence = chunk.body.split(". ")[0]
    good = Citation(chunk.file, chunk.section, chunk.chunk_id, "  ".join(sentence.split(" ")))  # whitespace differs only
    assert citation_problem(good, chunks) is None
    invented = dataclasses.replace(good, quote="The bakery never sells out.")
    assert "is not in guide_kestrelford.md#2" in citation_problem(invented, chunks)
    elsewhere = dataclasses.replace(good, chunk_id="guide_walking.md#0", file="guide_walking.md", section=chunks["guide_walking.md#0"].section)
    assert citation_problem(elsewhere, chunks) is not None


def test_ollama_down_is_said_and_every_answer_still_judged(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OLLAMA_HOST", "http://127.0.0.1:9")  # nothing listens there: every answer falls back
    status = run(tmp_path, "--questions", str(questions_file(tmp_path, "q.toml", "hit_at_5 = 1.0")), "--generator", "auto", "--runs", "2")
    out = capsys.readouterr().out
    assert status == 0
    assert "answers fell back to the extractive answerer" in out
    report = report_text(tmp_path, "eval-2026-01-02-auto.md")
    assert "| generators used | extractive × 6 |" in report
    assert "| runs | 2 |" in report


def test_an_expected_chunk_the_index_lacks_is_called_out(tmp_path, capsys):
    run(tmp_path, "--questions", str(questions_file(tmp_path, "q.toml", "", bakery_chunks=TYPO)))
    assert "question bakery expects guide_kestrelford.md#99, not a chunk of this index" in capsys.readouterr().out
