"""The section chunker: one `##` section per chunk, preamble merged into the first, exact text layout."""

from __future__ import annotations

import pytest
from conftest import ORIGINALS

from guide_tui.chunking import check_chunks, chunk_corpus, chunk_guide, chunk_stats, sentences
from guide_tui.corpus import load_corpus, parse_guide
from guide_tui.indexes import BUNDLED_CORPUS

GUIDE = b"""# Pebble Cove

A small harbour village.
Two lines of preamble.

## Getting there

Buses run hourly.

Second paragraph of the body.

## Empty section

## Eat and drink

One cafe. It shuts at 4pm.
"""


def test_chunk_text_layout_ids_and_offsets() -> None:
    guide, problems = parse_guide("guide_pebble.md", GUIDE)
    chunks = chunk_guide(guide)
    assert [c.chunk_id for c in chunks] == ["guide_pebble.md#0", "guide_pebble.md#1"]
    assert chunks[0].text == (
        "# Pebble Cove\n\nA small harbour village.\nTwo lines of preamble.\n\n"
        "## Getting there\n\nBuses run hourly.\n\nSecond paragraph of the body."
    )
    assert chunks[1].text == "# Pebble Cove\n\n## Eat and drink\n\nOne cafe. It shuts at 4pm."
    assert all(c.title == "Pebble Cove" and c.file == "guide_pebble.md" for c in chunks)
    assert chunks[1].section == "Eat and drink"
    source = GUIDE.decode()
    assert chunks[0].start == 0 and source[chunks[0].end - len("body.") : chunks[0].end] == "body."
    assert source[chunks[1].start : chunks[1].end] == "## Eat and drink\n\nOne cafe. It shuts at 4pm."
    assert [str(p) for p in problems] == ["guide_pebble.md: heading '## Empty section' has no text; dropped (indexed anyway)"]


def test_guide_without_preamble_starts_with_title_then_heading() -> None:
    guide, _ = parse_guide("guide_x.md", b"# Region\n\n## Spring\n\nMild.\n")
    assert chunk_guide(guide)[0].text == "# Region\n\n## Spring\n\nMild."


def test_sentences_join_wrapped_lines_and_skip_headings() -> None:
    text = "# T\n\n## H\n\nThe line runs\nalong the river. It costs £2 at 8:30.\n\nDone."
    assert sentences(text) == ["The line runs along the river.", "It costs £2 at 8:30.", "Done."]


def test_check_flags_broken_chunks() -> None:
    guide, _ = parse_guide("guide_x.md", b"# T\n\n## A\n\nNo sentence end here\n\n## B\n\nFine.\n")
    chunks = chunk_guide(guide)
    chunks.append(chunks[1])
    assert check_chunks(chunks) == ["guide_x.md#0: does not end at a sentence end", "guide_x.md#1: duplicate id"]


@pytest.mark.skipif(not ORIGINALS.is_dir(), reason="original guides not beside the repo")
def test_originals_give_the_published_figures() -> None:
    chunks = chunk_corpus(load_corpus(ORIGINALS))
    assert chunk_stats(chunks) == "chunked 84 chunks, 358.7 characters on average (shortest 192, longest 887)"
    assert check_chunks(chunks) == []


def test_bundled_edition_chunks_cleanly() -> None:
    corpus = load_corpus(BUNDLED_CORPUS)
    chunks = chunk_corpus(corpus)
    assert len(chunks) == 84 and corpus.problems == []
    assert check_chunks(chunks) == []
