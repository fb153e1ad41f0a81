"""What retrieval and the extractive answerer know about every sentence and chunk before any
question: computed by the build, stored in the index as arrays, memory-mapped when loaded, so a
start reads none of it and a question touches only the rows of its candidates.

Per sentence: its content words (ids into the vocabulary, in the order they occur), the towns it
names (ids into the town list) and its vector with the section heading and town names masked;
for the vocabulary: each word's stem and vector; and every word the guides use, titles too.
Per chunk: its first sentence, its guide's town, the first chunk with the same body, the kinds of
value it holds. An index held in memory (a stale corpus rebuilt) computes the same arrays.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Callable

import numpy as np

from guide_tui.chunking import Chunk

WORD = re.compile(r"[a-z0-9]+")  # what tantivy's simple tokenizer keeps, on lowercased text
WORDS_FILE = "analysis.json"  # vocabulary, stems, known words, town names
WORD_FIELDS = ("vocabulary", "stems", "known_words", "towns", "chunk_frequency", "places", "region_kinds")  # in WORDS_FILE
ARRAY_FILES = (
    "word_vectors", "word_offsets", "word_ids", "town_offsets", "town_ids", "sentence_vectors", "holds_kind", "first_use",
    "first_unit", "chunk_town", "same_as",
)


def array_file(name: str) -> str:
    return f"analysis_{name}.npy"


ANALYSIS_FILES = (WORDS_FILE, *map(array_file, ARRAY_FILES))


@dataclass
class SentenceAnalysis:
    vocabulary: list[str]  # every content word (one with a stem) of the sentences, sorted
    stems: list[str]  # per vocabulary word, its stem
    known_words: list[str]  # every word the guides use, titles and headings too, sorted
    towns: list[str]  # the towns the town ids refer to
    word_vectors: np.ndarray  # per vocabulary word, its vector
    word_offsets: np.ndarray  # sentence n's words are word_ids[word_offsets[n]:word_offsets[n + 1]]
    word_ids: np.ndarray
    town_offsets: np.ndarray  # likewise for the towns each sentence names
    town_ids: np.ndarray
    sentence_vectors: np.ndarray  # "section: sentence", town names masked
    holds_kind: np.ndarray  # per chunk: retrieval.chunk_value_kinds
    chunk_frequency: dict[str, int]  # per stem, how many chunks use it
    first_use: np.ndarray  # the vocabulary's ids in the order the sentences first use them
    places: dict[str, str]  # file -> town, for the guides about one town (retrieval.place_guides)
    region_kinds: list[str]  # the kinds of value (asked.FOUND) the whole region's text holds, all sentences joined
    first_unit: np.ndarray  # chunk c's sentences are rows first_unit[c]:first_unit[c + 1]
    chunk_town: np.ndarray  # per chunk, its guide's town (id into towns), -1 for a region-wide guide
    same_as: np.ndarray  # per chunk, the first chunk with the same body (itself when none before)

    @cached_property
    def stem_of(self) -> dict[str, str]:
        """Per vocabulary word, its stem (built at the first question that reads it)."""
        return dict(zip(self.vocabulary, self.stems))

    @cached_property
    def known(self) -> frozenset[str]:
        """Every word the guides use (known_words), for lookups."""
        return frozenset(self.known_words)

    def chunks_using(self, word: str) -> int:
        """How many chunks use the word's stem (0 for a word no sentence uses)."""
        return self.chunk_frequency.get(self.stem_of.get(word), 0)

    def words(self, row: int) -> list[str]:
        return [self.vocabulary[i] for i in self.word_ids[self.word_offsets[row] : self.word_offsets[row + 1]]]

    def sentence_towns(self, row: int) -> set[str]:
        return {self.towns[i] for i in self.town_ids[self.town_offsets[row] : self.town_offsets[row + 1]]}

    def rows_of(self, chunk: int) -> range:
        """The rows of a chunk's sentences."""
        return range(int(self.first_unit[chunk]), int(self.first_unit[chunk + 1]))

    @property
    def chunk_count(self) -> int:
        return len(self.first_unit) - 1

    @property
    def unit_chunk(self) -> np.ndarray:
        """Per sentence, its chunk's ordinal."""
        return np.repeat(np.arange(self.chunk_count, dtype=np.int64), np.diff(self.first_unit))


def ragged(rows: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Offsets and concatenated ids of a list of id lists."""
    offsets = np.zeros(len(rows) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(r) for r in rows])
    return offsets, np.fromiter((i for r in rows for i in r), dtype=np.int32, count=int(offsets[-1]))


def analyse(chunks: list[Chunk], units: list, embedder, done: Callable[[int], None] = lambda units_done: None) -> SentenceAnalysis:
    """The analysis of an index's sentences (units: indexes.Unit, in chunk order); done(units so far) while embedding them."""
    from guide_tui.asked import FOUND
    from guide_tui.retrieval import TownNames, chunk_value_kinds, place_guides, query_analyzer

    analyzer = query_analyzer(drop_stopwords=True)  # the index's stemming, stop words dropped
    places = place_guides(chunks)
    towns = TownNames(places.values())
    stem_of: dict[str, str | None] = {}

    def stem(word: str) -> str | None:
        if word not in stem_of:
            stems = analyzer.analyze(word)
            stem_of[word] = stems[0] if stems else None
        return stem_of[word]

    words_of = [list(dict.fromkeys(w for w in WORD.findall(u.text.lower()) if stem(w))) for u in units]
    vocabulary = sorted({w for words in words_of for w in words})
    word_id = {w: n for n, w in enumerate(vocabulary)}
    town_id = {t: n for n, t in enumerate(towns.names)}
    word_offsets, word_ids = ragged([[word_id[w] for w in words] for words in words_of])
    spans = [towns.spans(u.text) for u in units]
    town_offsets, town_ids = ragged([sorted({town_id[t] for _, _, t in found}) for found in spans])
    unit_chunk = np.array([u.chunk for u in units], dtype=np.int64)
    first_with_body: dict[str, int] = {}
    region_text = " ".join(u.text for u in units)
    return SentenceAnalysis(
        vocabulary=vocabulary,
        stems=[stem_of[w] for w in vocabulary],
        known_words=sorted({w for c in chunks for w in WORD.findall(c.text.lower())}),
        towns=list(towns.names),
        word_vectors=embedder.encode(vocabulary),
        word_offsets=word_offsets,
        word_ids=word_ids,
        town_offsets=town_offsets,
        town_ids=town_ids,
        sentence_vectors=embedder.encode_in_batches(
            [f"{chunks[u.chunk].section}: {towns.masked(u.text, found)}" for u, found in zip(units, spans)], done
        ),
        holds_kind=chunk_value_kinds(chunks, towns),
        first_use=np.array([word_id[w] for w in dict.fromkeys(w for words in words_of for w in words)], dtype=np.int32),
        chunk_frequency=chunk_frequencies([stem_of[w] for w in vocabulary], word_offsets, word_ids, unit_chunk),
        places=places,
        region_kinds=[kind for kind, pattern in FOUND.items() if pattern.search(region_text)],
        first_unit=np.searchsorted(unit_chunk, np.arange(len(chunks) + 1)).astype(np.int64),
        chunk_town=np.array([town_id[places[c.file]] if c.file in places else -1 for c in chunks], dtype=np.int32),
        same_as=np.array([first_with_body.setdefault(c.body, n) for n, c in enumerate(chunks)], dtype=np.int64),
    )


def chunk_frequencies(word_stems: list[str], word_offsets: np.ndarray, word_ids: np.ndarray, unit_chunk: np.ndarray) -> dict[str, int]:
    """Per stem, how many chunks use it (word_stems: per vocabulary word; the rest as in SentenceAnalysis)."""
    stems = sorted(set(word_stems))
    stem_of_word = np.searchsorted(np.array(stems, dtype=str), np.array(word_stems, dtype=str)).astype(np.int64)
    chunk_of_word = unit_chunk[np.repeat(np.arange(len(unit_chunk)), np.diff(word_offsets))]
    pairs = np.unique(chunk_of_word * max(len(stems), 1) + stem_of_word[word_ids])
    counts = np.bincount(pairs % max(len(stems), 1), minlength=len(stems))
    return {stem: int(count) for stem, count in zip(stems, counts) if count}


def save_analysis(folder: Path, analysis: SentenceAnalysis) -> None:
    words = {name: getattr(analysis, name) for name in WORD_FIELDS}
    (folder / WORDS_FILE).write_text(json.dumps(words, ensure_ascii=False), encoding="utf-8")
    for name in ARRAY_FILES:
        np.save(folder / array_file(name), np.ascontiguousarray(getattr(analysis, name)), allow_pickle=False)


def mapped(path: Path) -> np.ndarray:
    """A stored array, memory-mapped, as a plain ndarray over the mapping (np.memmap's indexing costs a
    Python call per access, which a question reading thousands of rows notices)."""
    return np.load(path, mmap_mode="r", allow_pickle=False).view(np.ndarray)


def load_analysis(folder: Path, sentences: int) -> SentenceAnalysis:
    """The stored analysis, its arrays memory-mapped; ValueError or OSError when a file is missing or
    does not fit the index's sentences."""
    words = json.loads((folder / WORDS_FILE).read_text(encoding="utf-8"))
    arrays = {name: mapped(folder / array_file(name)) for name in ARRAY_FILES}
    analysis = SentenceAnalysis(**{name: words[name] for name in WORD_FIELDS}, **arrays)
    fits = (
        len(analysis.word_offsets) == len(analysis.town_offsets) == len(analysis.sentence_vectors) + 1 == sentences + 1
        and len(analysis.word_vectors) == len(analysis.vocabulary) == len(analysis.stems)
        and analysis.word_offsets[-1] == len(analysis.word_ids)
        and analysis.town_offsets[-1] == len(analysis.town_ids)
        and analysis.holds_kind.ndim == 2
        and len(analysis.holds_kind) == len(analysis.chunk_town) == len(analysis.same_as) == len(analysis.first_unit) - 1
        and analysis.first_unit[-1] == sentences
    )
    if not fits:
        raise ValueError(f"the stored sentence analysis does not fit the index's {sentences} sentences")
    return analysis
