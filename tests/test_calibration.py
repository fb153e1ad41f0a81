"""Calibration: the cutoff rule, the report, and the manifest it writes (on copies of the real index)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from guide_tui.calibration import calibrate_index, choose_cutoff, refused_max_of, run_calibrate
from guide_tui.cli import main
from guide_tui.indexes import BUNDLED_CORPUS, BUNDLED_INDEX, MANIFEST, build_index
from guide_tui.questions import QuestionSet, load_questions

PROJECT_LIMIT = refused_max_of(load_questions())  # questions.toml's answerable_refused_max


@pytest.fixture
def index_copy(tmp_path: Path) -> Path:
    """The bundled index beside a copy of its corpus (the model stays bundled), free to be written."""
    shutil.copytree(BUNDLED_CORPUS, tmp_path / "corpus")
    shutil.copytree(BUNDLED_INDEX, tmp_path / "index", ignore=shutil.ignore_patterns("model"))
    return tmp_path / "index"


def manifest_cutoff(index_dir: Path) -> dict | None:
    return json.loads((index_dir / MANIFEST).read_text(encoding="utf-8"))["cutoff"]


# ---------------------------------------------------------------- the rule


def test_separable_classes_get_the_midpoint_of_the_gap() -> None:
    choice = choose_cutoff([0.1, 0.2, 0.3], [0.5, 0.7], PROJECT_LIMIT)
    assert choice.value == 0.4 and choice.separated
    assert choice.in_corpus_refused == 0 and choice.off_topic_passed == 0
    assert choice.margin_in_corpus == choice.margin_off_topic == 0.1


def test_one_outlier_is_refused_when_that_refuses_more_off_topic_questions() -> None:
    in_corpus = [0.1 + 0.002 * n for n in range(99)] + [0.65]  # 2% of 100 may be refused
    choice = choose_cutoff(in_corpus, [0.5, 0.55, 0.7], PROJECT_LIMIT)
    assert choice.in_corpus_refused == 1 and choice.off_topic_passed == 0 and not choice.separated
    assert 0.296 < choice.value < 0.5 and "2nd-highest" in choice.method


def test_no_in_corpus_question_is_given_up_for_nothing() -> None:
    in_corpus = [0.1 + 0.002 * n for n in range(99)] + [0.45]  # far from the rest, but still below every off-topic one
    choice = choose_cutoff(in_corpus, [0.5, 0.7], PROJECT_LIMIT)
    assert choice.in_corpus_refused == 0 and choice.separated and choice.value == 0.475


def test_overlapping_classes_report_what_gets_through() -> None:
    choice = choose_cutoff([0.1, 0.2, 0.3, 0.6], [0.25, 0.5, 0.7], PROJECT_LIMIT)  # 2% of 4 is 0: every in-corpus one must pass
    assert not choice.separated
    assert choice.in_corpus_refused == 0 and choice.off_topic_passed == 2
    assert choice.value == 0.65 and choice.margin_off_topic == 0.05


def test_rounding_never_refuses_the_in_corpus_question_the_cutoff_keeps() -> None:
    choice = choose_cutoff([0.3, 0.41234], [], PROJECT_LIMIT)  # round(0.41234, 4) would be 0.4123, below it
    assert choice.value == 0.4124 and choice.in_corpus_refused == 0 and choice.margin_in_corpus >= 0
    squeezed = choose_cutoff([0.41234], [0.41236], PROJECT_LIMIT)  # the midpoint rounds below the in-corpus distance
    assert squeezed.value >= 0.41234 and squeezed.in_corpus_refused == 0


def test_a_single_in_corpus_question_gets_a_cutoff() -> None:
    choice = choose_cutoff([0.41234], [], PROJECT_LIMIT)
    assert choice.value == 0.4124 and choice.in_corpus_refused == 0 and choice.off_topic_passed == 0
    assert "highest in-corpus distance" in choice.method


def test_the_refused_fraction_is_the_question_files_target() -> None:
    assert PROJECT_LIMIT == load_questions().targets["answerable_refused_max"] == 0.02
    assert refused_max_of(QuestionSet([], {})) == 0.0  # a question file without the target: none may be refused
    in_corpus = [0.1 + 0.002 * n for n in range(99)] + [0.65]
    assert choose_cutoff(in_corpus, [0.5, 0.55, 0.7], 0.0).in_corpus_refused == 0  # the outlier refused above is kept
    with pytest.raises(ValueError):
        choose_cutoff([], [0.5], PROJECT_LIMIT)


# ---------------------------------------------------------------- the command and the manifest


def test_calibrate_writes_the_cutoff_it_prints(index_copy: Path, capsys) -> None:
    before = manifest_cutoff(index_copy)
    assert main(["calibrate", "--index", str(index_copy)]) == 0
    out = capsys.readouterr().out
    written = manifest_cutoff(index_copy)
    printed = float(re.search(r"cutoff (\d\.\d{4}) written to", out).group(1))
    assert written["value"] == printed
    assert written["questions"] == written["answerable"] + written["near_miss"] + written["off_topic"] == 124
    assert written["separated"] and written["off_topic_passed"] == 0 and written["answerable_refused"] == 0
    assert written["margin_in_corpus"] > 0 and written["margin_off_topic"] > 0
    # the bundled index was calibrated by the same rule on the same questions
    assert before["value"] == printed
    assert f"cutoff {printed:.4f}" in out and "separated" in out and "near-miss" in out
    assert re.search(rf"─+\s+cutoff {printed:.4f}", out), "the histogram draws the cutoff line"


def test_dry_run_leaves_the_manifest_alone(index_copy: Path, capsys) -> None:
    original = (index_copy / MANIFEST).read_bytes()
    assert main(["calibrate", "--index", str(index_copy), "--dry-run"]) == 0
    assert "dry run" in capsys.readouterr().out
    assert (index_copy / MANIFEST).read_bytes() == original


def test_calibrate_index_is_silent_and_returns_what_it_writes(index_copy: Path, capsys) -> None:
    manifest = json.loads((index_copy / MANIFEST).read_text(encoding="utf-8"))
    manifest["cutoff"] = None
    (index_copy / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    value = calibrate_index(index_copy)
    assert capsys.readouterr() == ("", "")
    assert value is not None and manifest_cutoff(index_copy)["value"] == value


def test_no_separating_cutoff_is_said_plainly(index_copy: Path, tmp_path: Path, capsys) -> None:
    """Off-topic-labelled questions that the guides do cover cannot be separated from in-corpus ones."""
    questions = tmp_path / "questions.toml"
    rows = [
        ("a1", "When does the Kestrelford bakery sell out?", "answerable"),
        ("a2", "Where do long-distance coaches stop in Brightwater?", "answerable"),
        ("a3", "How do I reverse a list in Python?", "answerable"),
        ("o1", "How old is the cathedral in Brightwater?", "off_topic"),
        ("o2", "What is the capital of Australia?", "off_topic"),
        ("n1", "Is there a cinema in Thornby Wells?", "near_miss"),
    ]
    questions.write_text(
        "".join(f'[[question]]\nid = "{i}"\ntext = "{t}"\nkind = "{k}"\nsplit = "tune"\n\n' for i, t, k in rows), encoding="utf-8"
    )
    assert run_calibrate(index_copy, write=True, questions_file=questions) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "NO cutoff separates in-corpus from off-topic questions" in out
    assert re.search(r"refuses 0 of 3 in-corpus questions and lets [12] of 2 off-topic ones through", out)
    written = manifest_cutoff(index_copy)
    assert not written["separated"] and written["questions"] == 6 and written["off_topic_passed"] >= 1


def test_unreadable_question_file_is_a_clear_error(index_copy: Path, tmp_path: Path, capsys) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("[[question]]\nid = \n", encoding="utf-8")
    assert run_calibrate(index_copy, questions_file=broken) == 2
    assert "cannot read the labelled questions" in capsys.readouterr().err


def test_calibration_works_on_an_index_of_the_originals(tmp_path: Path, bundled_index) -> None:
    from conftest import ORIGINALS

    if not ORIGINALS.is_dir():
        pytest.skip("original guides not beside the repo")
    build_index(ORIGINALS, tmp_path / "originals", embedder=bundled_index.embedder)
    value = calibrate_index(tmp_path / "originals")
    written = manifest_cutoff(tmp_path / "originals")
    assert written["value"] == value and written["answerable"] == 99
    assert written["answerable_refused"] <= PROJECT_LIMIT * 99 and written["answerable_refused_max"] == PROJECT_LIMIT
