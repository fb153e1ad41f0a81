"""Question -> top 5 chunks, with every number that decided the order on show.

Two rankings of all chunks are fused:
  vector:  cosine distance (1 - cos) between the question and the chunk's
           best-matching sentence (model2vec vectors searched with usearch);
  keyword: tantivy BM25 over the chunk text, queried with the question's
           analysed terms (never the query parser, so any text is safe).
Fusion is reciprocal rank: fused = 1/(K + vector rank) + 1/(K + keyword rank).
The gate refuses when the best vector distance is above the calibrated cutoff.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from guide_tui.chunking import Chunk
from guide_tui.indexes import LoadedIndex

TOP_K = 5
RRF_K = 10
MAX_QUERY_TERMS = 64
MAX_QUESTION_CHARS = 2000  # beyond this a question is truncated before embedding and analysis
VECTOR_CANDIDATES = 256


@dataclass(frozen=True)
class Hit:
    rank: int
    chunk: Chunk
    vector_distance: float
    keyword_score: float
    fused_score: float
    matched_sentence: str
    above_cutoff: bool  # True when this chunk's distance is beyond the cutoff (shown dimmed)

    def to_json(self) -> dict:
        return {
            "rank": self.rank,
            "chunk_id": self.chunk.chunk_id,
            "file": self.chunk.file,
            "section": self.chunk.section,
            "vector_distance": round(self.vector_distance, 4),
            "keyword_score": round(self.keyword_score, 4),
            "fused_score": round(self.fused_score, 6),
            "above_cutoff": self.above_cutoff,
        }


@dataclass(frozen=True)
class Gate:
    best_distance: float
    cutoff: float | None
    passed: bool

    def to_json(self) -> dict:
        return {
            "best_distance": round(self.best_distance, 4),
            "cutoff": None if self.cutoff is None else round(self.cutoff, 4),
            "passed": self.passed,
        }


@dataclass(frozen=True)
class Retrieval:
    question: str
    hits: list[Hit]
    gate: Gate

    def to_json(self) -> dict:
        return {"question": self.question, "retrieved": [h.to_json() for h in self.hits], "gate": self.gate.to_json()}


def query_analyzer():
    """The same analysis as tantivy's en_stem tokenizer that indexed the chunks."""
    import tantivy

    return (
        tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple())
        .filter(tantivy.Filter.remove_long(40))
        .filter(tantivy.Filter.lowercase())
        .filter(tantivy.Filter.stopword("english"))
        .filter(tantivy.Filter.stemmer("english"))
        .build()
    )


def clean_question(question: str) -> str:
    """Printable text only, bounded in length: control characters and escapes never reach the indexes."""
    printable = "".join(ch if ch.isprintable() else " " for ch in question[: MAX_QUESTION_CHARS * 2])
    return " ".join(printable.split())[:MAX_QUESTION_CHARS]


class Retriever:
    def __init__(self, index: LoadedIndex) -> None:
        import tantivy

        self.index = index
        self.analyzer = query_analyzer()
        self.searcher = index.keyword.searcher()
        self.schema = index.keyword.schema
        self.occur_should = tantivy.Occur.Should
        self.query_type = tantivy.Query
        self.unit_chunk = np.array([u.chunk for u in index.units], dtype=np.int64)
        self.ordinal_of = {}

    @property
    def cutoff(self) -> float | None:
        return self.index.cutoff

    def query_terms(self, question: str) -> list[str]:
        terms = list(dict.fromkeys(self.analyzer.analyze(question)))
        return terms[:MAX_QUERY_TERMS]

    def keyword_scores(self, question: str) -> np.ndarray:
        """BM25 score of every chunk (0 where no term matches)."""
        scores = np.zeros(len(self.index.chunks), dtype=np.float64)
        terms = self.query_terms(question)
        if not terms:
            return scores
        query = self.query_type.boolean_query(
            [(self.occur_should, self.query_type.term_query(self.schema, "text", term)) for term in terms]
        )
        for score, address in self.searcher.search(query, limit=len(self.index.chunks)).hits:
            key = (address.segment_ord, address.doc)
            ordinal = self.ordinal_of.get(key)
            if ordinal is None:
                ordinal = self.ordinal_of[key] = self.searcher.doc(address)["ordinal"][0]
            scores[ordinal] = score
        return scores

    def vector_distances(self, question: str) -> tuple[np.ndarray, np.ndarray]:
        """Per chunk: distance of its best sentence, and which unit that was."""
        n_chunks = len(self.index.chunks)
        distances = np.full(n_chunks, 2.0)
        best_unit = np.full(n_chunks, -1, dtype=np.int64)
        if not question or not len(self.index.units):
            return distances, best_unit
        vector = self.index.embedder.encode([question])[0]
        if not np.any(vector):  # nothing the model knows: every chunk is maximally far
            return np.full(n_chunks, 1.0), best_unit
        found = self.index.vectors.search(vector, min(VECTOR_CANDIDATES, len(self.index.units)), exact=True)
        for key, distance in sorted(zip(found.keys.tolist(), found.distances.tolist()), key=lambda kd: -kd[1]):
            chunk = self.unit_chunk[key]
            distances[chunk] = distance
            best_unit[chunk] = key
        return distances, best_unit

    def retrieve(self, question: str, k: int = TOP_K) -> Retrieval:
        question = clean_question(question)
        distances, best_unit = self.vector_distances(question)
        keyword = self.keyword_scores(question)
        vector_rank = ranks(distances, ascending=True)
        keyword_rank = np.where(keyword > 0, ranks(keyword, ascending=False), len(keyword) * 10)
        fused = 1.0 / (RRF_K + vector_rank) + 1.0 / (RRF_K + keyword_rank)
        order = sorted(range(len(fused)), key=lambda i: (-fused[i], distances[i], i))[:k]
        cutoff = self.cutoff
        hits = [
            Hit(
                rank=r + 1,
                chunk=self.index.chunks[i],
                vector_distance=float(distances[i]),
                keyword_score=float(keyword[i]),
                fused_score=float(fused[i]),
                matched_sentence=self.index.units[best_unit[i]].text if best_unit[i] >= 0 else "",
                above_cutoff=cutoff is not None and float(distances[i]) > cutoff,
            )
            for r, i in enumerate(order)
        ]
        best = float(distances.min()) if len(distances) else 2.0
        return Retrieval(question, hits, Gate(best, cutoff, bool(question) and (cutoff is None or best <= cutoff)))


def ranks(values: np.ndarray, ascending: bool) -> np.ndarray:
    """1-based rank of each value, ties broken by position."""
    order = np.argsort(values if ascending else -values, kind="stable")
    result = np.empty(len(values), dtype=np.float64)
    result[order] = np.arange(1, len(values) + 1)
    return result
