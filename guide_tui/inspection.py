"""Why a chunk ranks where it does, and where a labelled question's expected chunk went: the numbers a
tuner reads in the app's workbench and in `guide-tui retrieve --why` / `eval`, from the retrieval itself."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable

from guide_tui.chunking import Chunk
from guide_tui.retrieval import FusedPart, Hit, Retrieval, Retriever, best_teacher, rounded_values
from guide_tui.settings import FusionSettings

LOOK_PAST = FusionSettings().teacher_pool
"""How far an expected chunk is searched for, and how wide the app's widened table is: the chunks the
second stage re-scores (one beyond them was never in the running)."""

PART_LABELS = {
    "vector": "vector",
    "keyword": "keyword",
    "region_bonus": "region bonus",
    "asked_value_bonus": "asked-value bonus",
    "teacher": "teacher",
}
"""How each part of the fused score (retrieval.FUSED_PARTS) is named on screen."""


WORD = re.compile(r"[^\W_]+")  # a word as tantivy's simple tokenizer cuts it (letters and digits)


@dataclass(frozen=True)
class RankExplanation:
    """One row's why: the fused score's parts, the question's terms the chunk holds, its best sentence."""

    hit: Hit
    shown_values: list[float]  # each part's value to 4 places; they add up to the fused score to 4 places
    matched_terms: tuple[str, ...]  # the question's keyword terms (stemmed) found in the chunk, in question order
    matched_words: tuple[tuple[int, int], ...]  # (start, end) in hit.chunk.text of every word those terms match
    quoted: tuple[str, ...] = ()  # the answer's quotations from this chunk
    let_in_from: tuple[float, float] = (0.0, 0.0)  # the best top row's teacher cosine and the margin (Retriever.let_in_margin)
    names_a_town: bool = True  # the question names a town (a row let in is about it), or is a list over the region

    @property
    def parts(self) -> tuple[FusedPart, ...]:
        return self.hit.parts

    @property
    def best_sentence(self) -> str:
        """The chunk's sentence closest to the question (its distance is the row's, unless the heading was nearer)."""
        return self.hit.matched_sentence

    def part_terms(self) -> list[str]:
        """`vector 0.7 × 0.8312 = 0.5818`: each part with its weight, in the order they are added."""
        return [
            f"{PART_LABELS[part.name]} {part.weight:g} × {part.scaled:{'g' if part.name.endswith('_bonus') else '.4f'}} = {shown:.4f}"
            for part, shown in zip(self.parts, self.shown_values)
        ]  # a bonus applies (× 1) or not (× 0)

    def sum_line(self) -> str:
        """`fused 1.2345 = vector 0.7 × 0.8312 = 0.5818 + keyword ...`: every part with its weight."""
        return f"fused {self.hit.fused_score:.4f} = " + " + ".join(self.part_terms())

    def let_in_line(self) -> str:
        """Why a row beyond the cutoff sits above the line (FusionSettings.teacher_let_in)."""
        which = "it is about the town asked" if self.names_a_town else "the question asks for a list across the region"
        return (f"let in: its distance is beyond the cutoff, but {which} and its teacher cosine "
                f"{self.hit.teacher_similarity:.4f} is within {self.let_in_from[1]:g} of the best top row's {self.let_in_from[0]:.4f}")

    def lines(self) -> list[str]:
        """The explanation as plain lines (the CLI prints them under the row)."""
        lines = [self.sum_line()]
        lines.append("terms matched: " + (", ".join(self.matched_terms) or "none"))
        if self.hit.by_heading:
            why = "nearer than its best sentence; a list question or a section's topic"
            lines.append(f"heading (distance {self.hit.vector_distance:.4f}, {why}): {self.hit.chunk.context}")
        lines.append(f"best sentence (distance {self.hit.best_sentence_distance:.4f}): {self.best_sentence or '(none)'}")
        if self.hit.let_in:
            lines.append(self.let_in_line())
        if self.quoted:
            lines.append("quoted by the answer: " + " … ".join(self.quoted))
        return lines


def word_stems(retriever: Retriever, text: str) -> list[tuple[int, int, str]]:
    """(start, end, stem) of every word of the text, cut and stemmed as the keyword index cut it."""
    found = []
    for match in WORD.finditer(text):
        for stem in retriever.analyzer.analyze(match.group()):
            found.append((match.start(), match.end(), stem))
    return found


def explain(retriever: Retriever, retrieval: Retrieval, hit: Hit, answer=None) -> RankExplanation:
    """Why `hit` ranks where it does for `retrieval.question` (answer: the Answer, to mark what it quoted)."""
    terms = retriever.query_terms(retrieval.question)
    words = word_stems(retriever, hit.chunk.text)
    in_chunk = {stem for _, _, stem in words}
    matched = tuple(term for term in terms if term in in_chunk)
    spans = tuple((start, end) for start, end, stem in words if stem in matched)
    quoted = ()
    if answer is not None and not answer.refused:
        quoted = tuple(c.quote for c in answer.citations if c.chunk_id == hit.chunk.chunk_id)
    towns = retriever.towns_in(retrieval.read_as)
    margin = retriever.let_in_margin(retrieval.read_as, towns)
    let_in_from = (best_teacher(retrieval.hits) or 0.0, retriever.fusion.teacher_let_in if margin is None else margin)
    return RankExplanation(hit, rounded_values(hit.parts), matched, spans, quoted, let_in_from, bool(towns))


@dataclass(frozen=True)
class ExpectedPlace:
    """Where a labelled question's expected chunk came in the ranking (rank None: not in the top `depth`)."""

    chunk_id: str  # the best-ranked expected chunk, or the first expected one when none was found
    rank: int | None
    distance: float | None
    within_cutoff: bool
    depth: int

    def line(self) -> str:
        """"expected guide_corry_vale.md#6 -> rank 8, distance 0.5078" (+ "beyond the cutoff")."""
        if self.rank is None:
            return f"expected {self.chunk_id} -> not in the top {self.depth}"
        beyond = "" if self.within_cutoff else ", beyond the cutoff"
        return f"expected {self.chunk_id} -> rank {self.rank}, distance {self.distance:.4f}{beyond}"

    def to_json(self) -> dict:
        return {
            "chunk_id": self.chunk_id,
            "rank": self.rank,
            "distance": None if self.distance is None else round(self.distance, 4),
            "within_cutoff": self.within_cutoff,
            "searched": self.depth,
        }


def place_in(hits: list[Hit], expected: Iterable[str], depth: int) -> ExpectedPlace | None:
    """The best-ranked expected chunk among the hits; None when no expected chunk is given."""
    expected = list(expected)
    if not expected:
        return None
    hit = next((h for h in hits if h.chunk.chunk_id in expected), None)
    if hit is None:
        return ExpectedPlace(expected[0], None, None, False, depth)
    return ExpectedPlace(hit.chunk.chunk_id, hit.rank, hit.vector_distance, not hit.above_cutoff, depth)


def locate_expected(
    retriever: Retriever, question: str, expected: Iterable[str], shown: Retrieval | None = None, depth: int = LOOK_PAST
) -> ExpectedPlace | None:
    """Where the expected chunks (ids, best first) rank for the question, searched to `depth`; `shown`, a
    retrieval of the question already at hand, answers without retrieving again when it holds one."""
    expected = list(expected)
    if shown is not None and (place := place_in(shown.hits, expected, depth)) is not None and place.rank is not None:
        return place
    return place_in(retriever.retrieve(question, k=depth).hits, expected, depth)


def chunks_of_sections(chunks: list[Chunk], sections: Iterable[tuple[str, str]]) -> list[str]:
    """The ids of the chunks that are the given (file, section) pairs, in the pairs' order."""
    by_section = {(c.file, c.section): c.chunk_id for c in chunks}
    return [by_section[pair] for pair in sections if pair in by_section]
