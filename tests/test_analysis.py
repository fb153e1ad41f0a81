"""The sentence analysis the build stores: loaded memory-mapped, it is what the answerer would compute
itself, and answers read from it are the answers computed without it."""

from __future__ import annotations

import dataclasses
import mmap
import shutil
from pathlib import Path

import numpy as np
import pytest

from guide_tui.analysis import WORDS_FILE, analyse, array_file
from guide_tui.extractive import Analysed, find_evidence
from guide_tui.indexes import BUNDLED_INDEX, IndexLoadError, load_index
from guide_tui.retrieval import Retriever

QUESTIONS = [
    "When does the Kestrelford bakery sell out?",
    "Is there a cinema in Kestrelford?",
    "Which town is easiest in a wheelchair?",
    "How long is the drive to Corry Vale?",
]


def memory_mapped(array: np.ndarray) -> bool:
    """The array's memory is a file mapping (not a copy read at load)."""
    while isinstance(array, np.ndarray):
        array = array.base
    return isinstance(array, mmap.mmap)


def test_the_stored_analysis_is_memory_mapped_and_equals_a_fresh_one(bundled_index) -> None:
    stored = bundled_index.analysis
    assert memory_mapped(stored.sentence_vectors) and memory_mapped(stored.word_ids) and memory_mapped(stored.first_unit)
    fresh = analyse(bundled_index.chunks, bundled_index.units, bundled_index.embedder)
    for field in dataclasses.fields(stored):
        assert np.array_equal(np.asarray(getattr(stored, field.name)), np.asarray(getattr(fresh, field.name))), field.name
    assert "kestrelford" in stored.known_words and "Kestrelford" in stored.towns


def test_answers_from_the_stored_analysis_equal_answers_computed_at_the_first_question(bundled_index) -> None:
    stored = Retriever(bundled_index)
    computed = Retriever(dataclasses.replace(bundled_index, analysis=analyse(bundled_index.chunks, bundled_index.units, bundled_index.embedder)))
    for question in QUESTIONS:
        from_stored = find_evidence(stored, stored.retrieve(question))
        from_computed = find_evidence(computed, computed.retrieve(question))
        assert [q.sentence.text for q in from_stored.quotes] == [q.sentence.text for q in from_computed.quotes]
        assert from_stored.problem == from_computed.problem
        assert [v.features for v in from_stored.verdicts] == [v.features for v in from_computed.verdicts]


def test_sentences_are_made_only_when_a_question_reads_them(bundled_index) -> None:
    facts = Analysed(Retriever(bundled_index))
    assert facts.sentences.made == {}
    row = facts.rows_of(3)[1]
    sentence = facts.sentences[row]
    assert sentence.text == bundled_index.units[row].text and sentence.chunk == 3
    assert list(facts.sentences.made) == [row]


@pytest.mark.parametrize("name", [WORDS_FILE, array_file("sentence_vectors")])
def test_a_missing_analysis_file_says_how_to_fix_it(tmp_path: Path, bundled_index, name: str) -> None:
    shutil.copytree(BUNDLED_INDEX, tmp_path / "index", ignore=shutil.ignore_patterns("model", "teacher"))
    (tmp_path / "index" / name).unlink()
    with pytest.raises(IndexLoadError, match="sentence analysis .* rebuild it with: guide-tui index"):
        load_index(tmp_path / "index", embedder=bundled_index.embedder, rebuild_if_stale=False)


def test_the_stored_keyword_map_is_the_keyword_index_own(bundled_index) -> None:
    from guide_tui.indexes import keyword_ordinals

    assert np.array_equal(bundled_index.ordinals, keyword_ordinals(bundled_index.keyword))
    assert sorted(bundled_index.ordinals[:, 2].tolist()) == list(range(len(bundled_index.chunks)))
