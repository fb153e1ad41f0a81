"""Malformed guides are reported by file and the rest of the corpus still indexes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from guide_tui.cli import main
from guide_tui.corpus import CorpusError, load_corpus
from guide_tui.indexes import BUNDLED_CORPUS, build_index, load_index
from guide_tui.retrieval import Retriever
from guide_tui.settings import FusionSettings

BAD_GUIDES = {
    "guide_no_title.md": b"Just text.\n\n## Section\n\nBody.\n",
    "guide_empty.md": b"",
    "guide_latin1.md": "# Caf\xe9\n\n## A\n\nCaf\xe9 au lait.\n".encode("latin-1"),
    "guide_before_title.md": b"stray words\n# Title\n\n## A\n\nBody.\n",
    "guide_dupes.md": b"# Dupes\n\n## Same\n\nFirst one.\n\n## Same\n\nSecond one.\n",
    "guide_only_headings.md": b"# Bare\n\n## One\n\n## Two\n",
    "notes.txt": b"not a guide",
}
EXPECTED = {
    "guide_no_title.md": "no '# Title' line (H1) at the top (skipped)",
    "guide_empty.md": "empty file (skipped)",
    "guide_latin1.md": "not UTF-8 text (bad byte at offset 5) (skipped)",
    "guide_before_title.md": "text before the '# Title' line; the title must come first (skipped)",
    "guide_dupes.md": "duplicate heading '## Same' (indexed anyway)",
    "notes.txt": "not a guide (guides are named guide_*.md) (skipped)",
}


@pytest.fixture
def messy_corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "guides"
    folder.mkdir()
    for name in ("guide_kestrelford.md", "guide_regional_transport.md"):
        shutil.copy(BUNDLED_CORPUS / name, folder / name)
    for name, raw in BAD_GUIDES.items():
        (folder / name).write_bytes(raw)
    return folder


def test_each_bad_file_gets_its_own_message(messy_corpus: Path) -> None:
    corpus = load_corpus(messy_corpus)
    messages = {p.file: str(p).split(": ", 1)[1] for p in corpus.problems}
    for name, message in EXPECTED.items():
        assert messages[name] == message
    assert "guide_only_headings.md" in messages
    assert [g.file for g in corpus.guides] == ["guide_dupes.md", "guide_kestrelford.md", "guide_regional_transport.md"]


def test_good_guides_still_index_and_answer(messy_corpus: Path, tmp_path: Path) -> None:
    manifest, corpus = build_index(messy_corpus, tmp_path / "idx")
    assert manifest["counts"]["guides"] == 3
    assert len(manifest["problems"]) == len(corpus.problems) >= 6
    assert manifest["fusion"] == FusionSettings().to_json()  # the settings the index was built and calibrated beside
    hits = Retriever(load_index(tmp_path / "idx")).retrieve("When does the bakery sell out?").hits
    assert hits[0].chunk.file == "guide_kestrelford.md"


def test_index_command_reports_problems_and_builds(messy_corpus: Path, tmp_path: Path, capsys) -> None:
    assert main(["index", "--corpus", str(messy_corpus), "--out", str(tmp_path / "idx")]) == 0
    err = capsys.readouterr().err
    assert "guide_latin1.md: not UTF-8 text" in err and "guide_empty.md: empty file" in err


def test_a_five_megabyte_guide_indexes(tmp_path: Path) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    words = "ferry harbour boats noon pier market tide cliff lane chapel inn bakery".split()
    paragraph = " ".join(f"The {words[i % 12]} by {words[(i * 5) % 12]} {i} opens at {i % 12 + 1}am." for i in range(80))
    body = "\n\n".join(f"## Part {n}\n\n{paragraph} Part {n} ends here." for n in range(1800))
    (folder / "guide_big.md").write_text(f"# Big Harbour\n\n{body}\n", encoding="utf-8")
    assert (folder / "guide_big.md").stat().st_size > 5_000_000
    manifest, _ = build_index(folder, tmp_path / "idx", with_teacher=False)  # 146k distinct sentences: the static side
    assert manifest["counts"]["chunks"] == 1800


def test_folder_without_guides_is_a_clear_error(tmp_path: Path, capsys) -> None:
    with pytest.raises(CorpusError, match="no usable guides"):
        load_corpus(tmp_path)
    assert main(["chunks", "--corpus", str(tmp_path / "missing")]) == 2
    assert "corpus folder" in capsys.readouterr().err


def test_index_with_unreadable_labelled_questions_says_so_and_builds_nothing(tmp_path: Path, monkeypatch, capsys) -> None:
    """An index that cannot be calibrated would be refused by ask: it is not built, and what was there stays."""
    bad = tmp_path / "questions.toml"
    bad.write_text("[[question]]\nid = 'x'\ntext = = broken\n", encoding="utf-8")
    monkeypatch.setattr("guide_tui.questions.QUESTIONS_FILE", bad)
    assert main(["index", "--corpus", str(BUNDLED_CORPUS), "--out", str(tmp_path / "idx")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("guide-tui: cannot read the labelled questions") and "nothing was built" in err
    assert "Traceback" not in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["questions.toml"]
