"""Question -> top 5 chunks, with every number that decided the order on show.

Two scores for every chunk are fused:
  vector:  cosine distance (1 - cos) between the question and the chunk's
           best-matching sentence, each sentence embedded as "title, section:
           sentence" (model2vec vectors searched exactly with usearch);
  keyword: tantivy BM25 over the chunk text, queried with the question's terms
           as the index's own en_stem tokenizer cuts them (term queries, never
           the query parser, so any text is a safe question).
Fusion is a weighted sum of the two, each scaled to 0..1 for this question,
plus two small bonuses (region-wide guides for questions naming no town; chunks
holding the kind of value asked for). Chunks whose text repeats an earlier
chunk word for word (the nine towns share one "Practical notes") are shown once.
The gate refuses when the best vector distance is above the calibrated cutoff.
"""

from __future__ import annotations

import copy
import math
import re
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from guide_tui.asked import DETAIL_KINDS, FOUND, SOFT_KINDS, WHEN, asked_kinds, asks_for_a_list, sections_asked
from guide_tui.chunking import Chunk
from guide_tui.embedding import english_words, recorded_sha256
from guide_tui.implied_place import DESCRIBES_A_PLACE, SETTING_OUT, ImpliedPlace, implied_place, word_forms
from guide_tui.settings import FusionSettings, RetrievalSettings
from guide_tui.spelling import Slip, find_slips, respelt, slips_note

if TYPE_CHECKING:
    from guide_tui.indexes import LoadedIndex

TOP_K = 5
MAX_QUERY_TERMS = 64
MAX_QUESTION_CHARS = 2000  # beyond this a question is truncated before embedding and analysis

EXACT_SEARCH_MAX = 10_000
"""Up to this many sentences a question's vector is compared with every one (exact); above, the HNSW
graph finds VECTOR_CANDIDATES (benchmarks/scale.py measures both)."""
VECTOR_CANDIDATES = 500
"""How many sentences the HNSW graph returns for a large index, each with its exact distance: chunks
without one count as matching nothing (distance 1), which only the fused score's scale notices."""

KEYWORD_CANDIDATES = 2_000
"""How many chunks BM25 scores at most (the best): reading every hit costs ~10 us each, 0.9 s a question at
84,000 chunks; the rest count as matching no term, which only the fused score's scale notices."""

VALUE_KINDS = [kind for kind in FOUND if kind not in SOFT_KINDS | DETAIL_KINDS]
"""Kinds of value (asked.FOUND) that earn FusionSettings.asked_value_bonus: a chunk gets it when its body holds the
first kind (the main reading) of a group the question asks for, "when"'s group aside. 60 of the 84
chunks hold a time, day, month or year, and a bonus for "how long"'s distances too put a route's
mileage above its train time (rank-1 0.879, not 0.889). Places have no pattern; reasons are said in
too many ways for one."""


FUSED_PARTS = ("vector", "keyword", "region_bonus", "asked_value_bonus", "teacher")
"""The parts of the fused score, in the order they are shown and added."""


def sum_parts(value):
    """The fused score from its parts (value(name): one part, weighted), added in the one order ranking
    adds them: float sums depend on the order, and the breakdown must give the score to the last bit."""
    return value("vector") + value("keyword") + (value("region_bonus") + value("asked_value_bonus")) + value("teacher")


@dataclass(frozen=True)
class FusedPart:
    """One part of a chunk's fused score: weight x a value scaled to 0..1 (a bonus: 0 or 1)."""

    name: str
    weight: float
    scaled: float

    @property
    def value(self) -> float:
        return self.weight * self.scaled


def rounded_values(parts: tuple[FusedPart, ...], places: int = 4) -> list[float]:
    """Each part's value rounded to `places` so that they add up to the fused score rounded the same way
    (largest remainders get the last digit), as the table and JSON show them; each is within one last digit of its value."""
    if not parts:
        return []
    unit = 10**places
    exact = [part.value * unit for part in parts]
    shown = [math.floor(x) for x in exact]
    total = sum_parts({part.name: part.value for part in parts}.__getitem__)
    short = round(round(total, places) * unit) - sum(shown)
    by_remainder = sorted(range(len(parts)), key=lambda n: shown[n] - exact[n])  # largest remainder first
    for n in by_remainder[: max(short, 0)]:
        shown[n] += 1
    for n in reversed(by_remainder[: max(-short, 0)]):
        shown[n] -= 1
    return [n / unit for n in shown]


@dataclass
class ScoreParts:
    """Every chunk's fused score as its weighted parts: ranking sums exactly these (sum_parts), so the
    breakdown a hit carries is the score, never a re-computation that could drift from it."""

    weights: dict[str, float]
    scaled: dict[str, np.ndarray]  # part name -> per chunk, 0..1
    ranked: np.ndarray  # the chunks ranked; every part is 0 for the others

    def total(self) -> np.ndarray:
        """Every chunk's fused score, added up for the ranked chunks only (the others' parts, and so their sum, are 0)."""
        fused = np.zeros(len(self.scaled["vector"]))
        fused[self.ranked] = sum_parts(lambda name: self.weights[name] * self.scaled[name][self.ranked])
        return fused

    def of_chunk(self, chunk: int) -> tuple[FusedPart, ...]:
        return tuple(FusedPart(name, self.weights[name], float(self.scaled[name][chunk])) for name in FUSED_PARTS)


class Ranking(NamedTuple):
    """Every chunk ordinal best first (repeated texts left out), with the per-chunk arrays behind the order."""

    order: list[int]
    distances: np.ndarray  # what the gate and the fusion act on: sentence_distances, or a list or section-topic question's nearer heading
    sentence_distances: np.ndarray  # of each chunk's best-matching sentence
    keyword: np.ndarray
    fused: np.ndarray
    best_unit: np.ndarray
    teacher: dict[int, float]  # teacher similarity of the pooled chunks
    question_vector: np.ndarray | None  # the question's teacher vector
    parts: ScoreParts | None  # the fused scores' parts


@dataclass(frozen=True)
class Hit:
    rank: int
    chunk: Chunk
    vector_distance: float  # of the chunk's best-matching sentence, or of its heading for a list or section-topic question when nearer
    keyword_score: float
    fused_score: float
    matched_sentence: str
    above_cutoff: bool  # True when this chunk's distance is beyond the cutoff (shown dimmed)
    ordinal: int  # the chunk's place in the index's chunks
    # teacher cosine of question and best sentence, or section heading for a list question when closer (None: not pooled)
    teacher_similarity: float | None = None
    parts: tuple[FusedPart, ...] = ()  # the fused score's parts (FUSED_PARTS order); sum_parts of their values is fused_score
    sentence_distance: float | None = None  # set when vector_distance is the heading's: then the best sentence's
    let_in: bool = False  # beyond the cutoff by distance, but let in by the teacher (FusionSettings.teacher_let_in)

    @property
    def by_heading(self) -> bool:
        """Its distance is its heading's (Retriever.heading_distances), nearer than its best sentence."""
        return self.sentence_distance is not None

    @property
    def best_sentence_distance(self) -> float:
        """The distance of its best-matching sentence, whether or not its heading was nearer."""
        return self.vector_distance if self.sentence_distance is None else self.sentence_distance

    def distance_text(self) -> str:
        """The distance as the tables show it: "0.3930h" when it is the heading's, "0.4976t" when the teacher let it in."""
        return f"{self.vector_distance:.4f}{'h' if self.by_heading else ''}{'t' if self.let_in else ''}"

    def to_json(self) -> dict:
        return {
            "rank": self.rank,
            "chunk_id": self.chunk.chunk_id,
            "file": self.chunk.file,
            "section": self.chunk.section,
            "vector_distance": round(self.vector_distance, 4),
            "distance_of": "heading" if self.by_heading else "sentence",
            "sentence_distance": round(self.best_sentence_distance, 4),
            "keyword_score": round(self.keyword_score, 4),
            "fused_score": round(self.fused_score, 4),
            "teacher_similarity": None if self.teacher_similarity is None else round(self.teacher_similarity, 4),
            "above_cutoff": self.above_cutoff,
            "let_in_by_teacher": self.let_in,
            "parts": {
                part.name: {"weight": round(part.weight, 4), "scaled": round(part.scaled, 4), "value": value}
                for part, value in zip(self.parts, rounded_values(self.parts))
            },
        }


def cutoff_text(cutoff: float | None, calibrated: float | None, uncalibrated: str = "none") -> str:
    """"0.4795", or "0.5795 (knob; calibrated 0.4795)" when the cutoff in force is not the index's calibrated one."""
    if cutoff is None:
        return uncalibrated
    moved = calibrated is not None and round(cutoff, 4) != round(calibrated, 4)
    return f"{cutoff:.4f}" + (f" (knob; calibrated {calibrated:.4f})" if moved else "")


@dataclass(frozen=True)
class Gate:
    best_distance: float  # 1.0 (no similarity at all) when the question is empty or has no word the model knows
    cutoff: float | None
    passed: bool
    calibrated: float | None = None  # the index's calibrated cutoff, which a knob (settings.json, --cutoff) may override

    def cutoff_text(self) -> str:
        return cutoff_text(self.cutoff, self.calibrated)

    def to_json(self) -> dict:
        return {
            "best_distance": round(self.best_distance, 4),
            "cutoff": None if self.cutoff is None else round(self.cutoff, 4),
            "calibrated_cutoff": None if self.calibrated is None else round(self.calibrated, 4),
            "passed": self.passed,
        }


@dataclass(frozen=True)
class Retrieval:
    question: str
    hits: list[Hit]
    gate: Gate
    teacher_query: np.ndarray | None = None  # the question's teacher vector, for scoring sentences (None: no teacher)
    implied_place: ImpliedPlace | None = None  # a town described, not named: its name is read in after the description
    slips: tuple[Slip, ...] = ()  # words read as the guide word one typing slip away

    @property
    def within_cutoff(self) -> list[Hit]:
        """The chunks an answer may use, whoever writes it: retrieved and within the relevance cutoff
        (the rows above the table's cutoff line)."""
        return [hit for hit in self.hits if not hit.above_cutoff]

    @property
    def read_as(self) -> str:
        """The question as retrieval and the answerer read it: its slips respelt, a town it describes named after the description."""
        return read_in(respelt(self.question, list(self.slips)), self.implied_place)

    @property
    def reading_notes(self) -> list[str]:
        """How the question was read when not word for word, as the app and the CLI say it."""
        return ([slips_note(list(self.slips))] if self.slips else []) + ([self.implied_place.note()] if self.implied_place else [])

    def to_json(self) -> dict:
        implied = self.implied_place.to_json() | {"read_as": self.read_as} if self.implied_place else None
        return {
            "question": self.question, "implied_place": implied, "slips": [slip.to_json() for slip in self.slips],
            "retrieved": [h.to_json() for h in self.hits], "gate": self.gate.to_json(),
        }


def query_analyzer(drop_stopwords: bool = False):
    """Exactly tantivy's en_stem tokenizer, which indexed the chunks, so every question term
    is cut and stemmed the way the index's terms were. Stopwords stay for retrieval: BM25 already
    weighs them near zero, and dropping them measured worse (keyword-only rank-1 0.72 vs 0.74);
    the extractive answerer drops them (drop_stopwords) to find what a question is about."""
    import tantivy

    builder = tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.simple()).filter(tantivy.Filter.remove_long(40))
    builder = builder.filter(tantivy.Filter.lowercase())
    if drop_stopwords:
        builder = builder.filter(tantivy.Filter.stopword("english"))
    return builder.filter(tantivy.Filter.stemmer("english")).build()


def printable(text: str) -> str:
    """Text as plain characters: escapes and control codes never reach a terminal (newlines stay)."""
    return "".join(ch if ch.isprintable() or ch == "\n" else " " for ch in text)


def clean_question(question: str) -> str:
    """Printable text only, bounded in length: control characters and escapes never reach the indexes."""
    return " ".join(printable(question[: MAX_QUESTION_CHARS * 2]).split())[:MAX_QUESTION_CHARS]


def shortened_note(question: str) -> str | None:
    """What to tell the asker when clean_question cut the question short (None when it kept it whole)."""
    if clean_question(question) == " ".join(printable(question).split()):
        return None
    return f"Question shortened to its first {MAX_QUESTION_CHARS} characters for retrieval."


NAME_WORD = re.compile(r"\w+")  # the words of a town name, as the regex \b sees them


REGION_LIST_LET_IN = 2.0
"""A list question naming no town ("which towns shut in winter?") lets in chunks within this many of the knob's margins:
its items lie in several guides' sections, which the static distance puts past the cutoff (on every set, 2 and 3: fitted
+1, held +1 -1, never-fitted +3 -1 right, no unanswerable one answered; 1: held -1)."""


def best_teacher(hits: list[Hit]) -> float | None:
    """The best teacher cosine of the top TOP_K hits (None: the teacher scored none): what FusionSettings.teacher_let_in
    is measured from, whatever the table's depth."""
    scored = [hit.teacher_similarity for hit in hits[:TOP_K] if hit.teacher_similarity is not None]
    return max(scored) if scored else None


def read_in(question: str, implied: ImpliedPlace | None) -> str:
    """The question with the town it describes named after the description: "... out to the headland (Elder Ness)?"."""
    if implied is None:
        return question
    return f"{question[: implied.end]} ({implied.town}){question[implied.end :]}"


def opening_of(chunk: Chunk) -> str:
    """The paragraphs of a guide's first chunk before its first heading (its body, past the title line)."""
    return f"\n{chunk.body}".split("\n## ", 1)[0]


def place_guides(chunks: list[Chunk]) -> dict[str, str]:
    """file -> place name for guides about one place: those named guide_<their title>.md."""
    titles = {c.file: c.title for c in chunks}  # one title per guide: each checked once
    return {file: title for file, title in titles.items() if file == f"guide_{re.sub(r'[^a-z0-9]+', '_', title.lower())}.md"}


def chunk_value_kinds(chunks: list[Chunk], towns: TownNames) -> np.ndarray:
    """Per chunk and VALUE_KINDS kind: whether its body holds a value of that kind (for FusionSettings.asked_value_bonus).
    Searched with town names masked, so bodies alike but for their towns (a region's copies) are searched once."""
    found: dict[str, list[bool]] = {}
    rows = []
    for chunk in chunks:
        body = towns.masked(chunk.body)
        if body not in found:
            found[body] = [FOUND[kind].search(body) is not None for kind in VALUE_KINDS]
        rows.append(found[body])
    return np.array(rows, dtype=bool).reshape(len(chunks), len(VALUE_KINDS))


class TownNames:
    """The towns that have a guide of their own, found in text as whole words ("Kestrelford's" too).

    One lookup for retrieval's region bonus, the eval's no-town questions and the extractive
    answerer's place rule, so all three agree on which questions name a town. Found word by word
    (a table of each name's words), so the time grows with the text, not with the number of towns;
    where names overlap the longest wins ("Upper Kestrelford Magna", never "Kestrelford" inside it).
    Holds only names (never the index), so the answerer's per-index cache can keep it without the index.
    """

    def __init__(self, names) -> None:
        self.names = sorted(set(names), key=lambda name: (-len(name), name))  # longest first: "Halden Bay" before "Halden"
        self.by_lower = {t.lower(): t for t in self.names}
        self.by_words: dict[tuple[str, ...], list[str]] = {}  # a name's lowercased words -> its lowercased forms
        for lower in self.by_lower:
            self.by_words.setdefault(tuple(NAME_WORD.findall(lower)), []).append(lower)
        self.first_words = {words[0] for words in self.by_words if words}
        self.most_words = max(map(len, self.by_words), default=0)

    def spans(self, text: str) -> list[tuple[int, int, str]]:
        """(start, end, town) of every name in the text, left to right, each the longest one starting
        there; end takes a following "'s" in."""
        if self.first_words.isdisjoint(NAME_WORD.findall(text.lower())):
            return []  # most sentences name no town: one C-speed pass says so
        words = [(m.start(), m.end(), m.group().lower()) for m in NAME_WORD.finditer(text)]
        found: list[tuple[int, int, str]] = []
        end_of_last = 0
        for n, (start, _, word) in enumerate(words):
            if start < end_of_last or word not in self.first_words:
                continue
            for count in range(min(self.most_words, len(words) - n), 0, -1):
                end = words[n + count - 1][1]
                key = tuple(w for _, _, w in words[n : n + count])
                if text[start:end].lower() in self.by_words.get(key, ()):
                    if text[end : end + 2] in ("'s", "’s", "'S", "’S") and not NAME_WORD.match(text, end + 2):
                        end += 2
                    found.append((start, end, self.by_lower[text[start : words[n + count - 1][1]].lower()]))
                    end_of_last = end
                    break
        return found

    def found_in(self, text: str) -> set[str]:
        return {town for _, _, town in self.spans(text)}

    def masked(self, text: str, spans: list[tuple[int, int, str]] | None = None, by: str = " ") -> str:
        """The text with every town name (and its "'s") replaced by a space, or `by` (spans: self.spans(text), when known)."""
        parts, at = [], 0
        for start, end, _ in self.spans(text) if spans is None else spans:
            parts += [text[at:start], by]
            at = end
        return "".join(parts) + text[at:]


def address_table(ordinals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """keyword_ordinals as a lookup, (segment_start, ordinal_of): the chunk ordinal of tantivy's document
    address is ordinal_of[segment_start[segment] + doc], for a whole page of hits in one numpy step."""
    segment, doc, ordinal = ordinals[:, 0], ordinals[:, 1], ordinals[:, 2]
    docs_in = np.zeros(int(segment.max(initial=-1)) + 1, dtype=np.int64)
    np.maximum.at(docs_in, segment, doc + 1)
    segment_start = np.concatenate([[0], np.cumsum(docs_in)])
    ordinal_of = np.full(int(segment_start[-1]), -1, dtype=np.int64)
    ordinal_of[segment_start[segment] + doc] = ordinal
    return segment_start, ordinal_of


QUESTION_VECTORS_KEPT = 1024
"""How many questions' teacher vectors a retriever keeps: the app's re-scoring asks the same labelled questions again
at every knob move, and the question's encoding is most of a retrieval's time."""


class Retriever:
    def __init__(self, index: LoadedIndex, fusion: FusionSettings = FusionSettings(), cutoff: float | None = None) -> None:
        """Reads only what the build stored per chunk (the analysis' arrays), never every chunk.
        cutoff: the gate's (None: the index's calibrated one)."""
        self.index = index
        self.fusion = fusion
        self.cutoff_setting = cutoff
        self.analyzer = query_analyzer()
        self.searcher = index.keyword.searcher()
        self.schema = index.keyword.schema
        analysis = index.analysis
        self.unit_chunk = analysis.unit_chunk
        self.chunk_count = analysis.chunk_count
        ordinals = index.document_ordinals()
        self.segment_start, self.ordinal_of = address_table(np.asarray(ordinals))
        """tantivy's document address -> chunk ordinal, stored by the build rather than read per hit on every question."""
        self.places = analysis.places
        self.towns = TownNames(self.places.values())
        self.region_wide = np.asarray(analysis.chunk_town) < 0
        self.holds_kind = analysis.holds_kind
        self.same_as = np.asarray(analysis.same_as)
        self.units_of = analysis.rows_of
        """The rows of a chunk's units (units are stored chunk by chunk, in order)."""
        self.teacher_masks_towns = (index.manifest.get("teacher") or {}).get("towns") == "masked"
        """The teacher's sentence vectors were made with town names masked (indexes.teacher_texts): so are the questions'."""
        self._teacher = None
        self._headings: dict[str, np.ndarray] = {}
        self._static_headings: np.ndarray | None = None
        self._question_vectors: dict[str, np.ndarray] = {}
        self._encoding_question = threading.Lock()
        """One question encoded at a time (prepare runs in another thread): a retrieve waits for the same question's
        vector being made rather than making it a second time beside it."""
        self._openings: dict[str, set[str]] | None = None

    @property
    def settings(self) -> RetrievalSettings:
        """The knobs this retriever ranks and gates with (the cutoff as given: None for the index's)."""
        return RetrievalSettings(self.fusion, self.cutoff_setting)

    @property
    def knobs(self) -> RetrievalSettings:
        """The knobs in force, the cutoff resolved: the index's calibrated cutoff and that value set by hand are the same
        knobs (what an outcome was run with, and what the workbench compares)."""
        return RetrievalSettings(self.fusion, self.cutoff)

    def tuned(self, settings: RetrievalSettings) -> Retriever:
        """This retriever with other knobs, sharing everything loaded (index, teacher, caches): costs microseconds,
        so the app re-ranks at every knob move without reloading anything."""
        _ = self.teacher  # loaded here once, not once per copy
        other = copy.copy(self)
        other.fusion, other.cutoff_setting = settings.fusion, settings.cutoff
        return other

    @property
    def teacher(self):
        """The teacher model, loaded at the first question of an index built with its vectors; None without."""
        if self._teacher is None and self.index.teacher_vectors is not None:
            from guide_tui.teacher import Teacher, TeacherError

            recorded = self.index.manifest["teacher"]
            try:
                teacher = Teacher()
                if recorded_sha256(teacher.folder, recorded) != recorded["sha256"]:
                    raise TeacherError(f"the teacher model in {teacher.folder} is not the one this index was built with")
            except TeacherError as err:
                self.index.notes.append(f"second stage off: {err}")
                self.index.teacher_vectors = None
                return None
            self._teacher = teacher
        return self._teacher

    def teacher_text(self, text: str) -> str:
        """What the teacher reads of a question or heading: town names masked when the index's sentences were."""
        return self.towns.masked(text) if self.teacher_masks_towns else text

    def teacher_encode(self, texts: list[str]) -> np.ndarray:
        """The teacher's vectors of question texts (teacher_text)."""
        return self.teacher.encode([self.teacher_text(text) for text in texts])

    def heading_text(self, chunk: int) -> str:
        """What a section is about, in words the teacher reads well: "What to see in Halden Bay" (teacher_text)."""
        c = self.index.chunks[chunk]
        return self.teacher_text(f"{c.section} in {self.places[c.file]}" if c.file in self.places else f"{c.title}: {c.section}")

    def heading_similarities(self, question_vector: np.ndarray, chunks: list[int]) -> np.ndarray:
        """Per chunk: the teacher cosine of the question and the chunk's heading in its place (each heading
        text encoded at the first list question that reaches a chunk with it, then kept: a region of
        renamed copies, its town names masked, has one copy's headings)."""
        texts = [self.heading_text(c) for c in chunks]
        missing = [text for text in dict.fromkeys(texts) if text not in self._headings]
        if missing:
            self._headings.update(zip(missing, self.teacher.encode(missing)))
        return np.array([float(self._headings[text] @ question_vector) for text in texts])

    def teacher_similarities(self, question_vector: np.ndarray, chunks: list[int]) -> np.ndarray:
        """Per chunk: the teacher cosine of the question and the chunk's best-matching sentence."""
        vectors = self.index.teacher_vectors
        return np.array([float(np.max(vectors[self.units_of(c).start : self.units_of(c).stop] @ question_vector, initial=-1.0)) for c in chunks])

    @property
    def cutoff(self) -> float | None:
        """The gate's cutoff: the one this retriever was given, else the index's calibrated one."""
        return self.index.cutoff if self.cutoff_setting is None else self.cutoff_setting

    def question_vector(self, question: str) -> np.ndarray:
        """The question's teacher vector, kept (QUESTION_VECTORS_KEPT): it depends on no knob."""
        with self._encoding_question:
            vector = self._question_vectors.get(question)
            if vector is None:
                if len(self._question_vectors) >= QUESTION_VECTORS_KEPT:
                    self._question_vectors.clear()
                vector = self._question_vectors[question] = self.teacher_encode([question])[0]
        return vector

    def prepare(self, question: str) -> None:
        """Make the question's teacher vector ahead of retrieve (kept: question_vector), for the question as ranking
        reads it: the app calls this while a question is being typed, so Enter does not wait for the encoding."""
        question = clean_question(question)
        if question and self.teacher is not None:
            self.question_vector(self.read(question)[0])

    def read(self, question: str) -> tuple[str, list[Slip], ImpliedPlace | None]:
        """The cleaned question as ranking reads it, its typing slips respelt and a place it describes read in; with
        those slips and that place."""
        slips = self.slips(question)
        respelt_question = respelt(question, slips)
        implied = self.implied_place(respelt_question)
        return read_in(respelt_question, implied), slips, implied

    def slips(self, question: str) -> list[Slip]:
        """The question's typing slips (spelling.find_slips), against the guides' words and the model's English words."""
        analysis = self.index.analysis
        return find_slips(question, analysis.known, english_words(), analysis.chunks_using)

    def towns_in(self, text: str) -> set[str]:
        """The towns with a guide of their own that the text names."""
        return self.towns.found_in(text)

    def query_terms(self, question: str) -> list[str]:
        terms = list(dict.fromkeys(self.analyzer.analyze(question)))
        return terms[:MAX_QUERY_TERMS]

    def keyword_scores(self, question: str) -> np.ndarray:
        """BM25 score of every chunk (0 where no term matches), or of the KEYWORD_CANDIDATES best."""
        scores = np.zeros(self.chunk_count, dtype=np.float64)
        terms = self.query_terms(question)
        if not terms:
            return scores
        import tantivy

        query = tantivy.Query.boolean_query(
            [(tantivy.Occur.Should, tantivy.Query.term_query(self.schema, "text", term)) for term in terms]
        )
        hits = self.searcher.search(query, limit=min(self.chunk_count, KEYWORD_CANDIDATES), count=False).hits
        if hits:
            segment = np.fromiter((address.segment_ord for _, address in hits), np.int64, len(hits))
            doc = np.fromiter((address.doc for _, address in hits), np.int64, len(hits))
            scores[self.ordinal_of[self.segment_start[segment] + doc]] = [score for score, _ in hits]
        return scores

    def static_vector(self, question: str) -> np.ndarray | None:
        """The question's vector by the static model (None for an empty question)."""
        return self.index.embedder.encode([question])[0] if question else None

    def vector_distances(self, question: str) -> tuple[np.ndarray, np.ndarray]:
        """Per chunk: distance of its best sentence, and which unit that was (-1: the question has no known words)."""
        return self.sentence_distances(self.static_vector(question))

    def sentence_distances(self, vector: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """vector_distances for the question's static vector."""
        n_chunks = self.chunk_count
        distances = np.ones(n_chunks)
        best_unit = np.full(n_chunks, -1, dtype=np.int64)
        if vector is None or not np.any(vector) or not len(self.index.units):
            return distances, best_unit
        found = self.nearest(vector)
        keys, found_distances = found.keys.astype(np.int64), found.distances.astype(np.float64)
        owners = self.unit_chunk[keys]
        by_chunk_then_distance = np.lexsort((found_distances, owners))
        sorted_owners = owners[by_chunk_then_distance]
        firsts = by_chunk_then_distance[np.r_[True, sorted_owners[1:] != sorted_owners[:-1]]]
        distances[owners[firsts]] = found_distances[firsts]
        best_unit[owners[firsts]] = keys[firsts]
        return distances, best_unit

    def heading_distances(self, vector: np.ndarray | None) -> np.ndarray:
        """Per chunk: distance of the question's static vector from its heading in its guide, "Brightwater, What to see" (each
        chunk's heading encoded at the first list question, then kept). A list asks for a section, and the
        static model meets "the main sights" in the heading better than in any one sentence of "What to see"."""
        if self._static_headings is None:
            self._static_headings = self.index.embedder.encode([c.context for c in self.index.chunks])
        if vector is None or not np.any(vector) or not len(self._static_headings):
            return np.ones(self.chunk_count)
        return 1.0 - self._static_headings @ vector

    def nearest(self, vector: np.ndarray):
        """Every sentence by distance (exact search) up to EXACT_SEARCH_MAX sentences; above, the
        VECTOR_CANDIDATES nearest by the HNSW graph, with their exact distances (the rest count as 1)."""
        vectors = self.index.vectors
        if len(self.index.units) <= EXACT_SEARCH_MAX:
            return vectors.search(vector, len(self.index.units), exact=True)
        vectors.expansion_search = max(vectors.expansion_search, VECTOR_CANDIDATES)
        return vectors.search(vector, VECTOR_CANDIDATES, threads=1)

    def bonuses(self, question: str, chunks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Per chunk, 1.0 where FusionSettings.region_bonus and .asked_value_bonus apply (see their docstrings), else 0;
        only the given chunks (the ranked ones) are looked at."""
        region = np.zeros(self.chunk_count)
        if not self.towns_in(question):
            region[chunks[self.region_wide[chunks]]] = 1.0
        asked_value = np.zeros(self.chunk_count)
        main_readings = [group[0] for group in asked_kinds(question) if group != WHEN]
        wanted = [VALUE_KINDS.index(kind) for kind in main_readings if kind in VALUE_KINDS]
        if wanted:
            asked_value[chunks[self.holds_kind[chunks][:, wanted].any(axis=1)]] = 1.0
        return region, asked_value

    def score_parts(self, question: str, distances: np.ndarray, keyword: np.ndarray, chunks: np.ndarray) -> ScoreParts:
        """Per chunk (0 outside `chunks`, the ranked ones): vector_weight * similarity scaled to 0..1 over all
        chunks + the rest * BM25 / best BM25 + bonuses (the teacher's part is 0 until ranking's second stage
        fills it in). A chunk left out was found by neither side: distance 1, BM25 0."""
        similarity = 1.0 - distances[chunks]
        unmatched = [0.0] if len(chunks) < self.chunk_count else []  # the similarity of a chunk neither side found
        low, high = min([similarity.min(initial=np.inf)] + unmatched), max([similarity.max(initial=-np.inf)] + unmatched)
        spread = high - low
        vector_part = np.zeros(self.chunk_count)
        vector_part[chunks] = (similarity - low) / spread if spread > 0 else 0.0
        best_keyword = keyword[chunks].max(initial=0.0)
        keyword_part = np.zeros(self.chunk_count)
        keyword_part[chunks] = keyword[chunks] / best_keyword if best_keyword > 0 else keyword[chunks]
        region, asked_value = self.bonuses(question, chunks)
        fusion = self.fusion
        weights = {
            "vector": fusion.vector_weight, "keyword": 1 - fusion.vector_weight, "region_bonus": fusion.region_bonus,
            "asked_value_bonus": fusion.asked_value_bonus, "teacher": fusion.teacher_weight,
        }  # fmt: skip
        scaled = {"vector": vector_part, "keyword": keyword_part, "region_bonus": region, "asked_value_bonus": asked_value}
        return ScoreParts(weights, scaled | {"teacher": np.zeros(self.chunk_count)}, chunks)

    def ranking(self, question: str) -> Ranking:
        """Every chunk ordinal best first (repeated texts left out), with the arrays behind the order."""
        vector = self.static_vector(question)
        sentence_distances, best_unit = self.sentence_distances(vector)
        distances = sentence_distances
        if asks_for_a_list(question) or sections_asked(question):  # a list, or a section's topic: the heading names it
            distances = np.minimum(sentence_distances, self.heading_distances(vector))
        keyword = self.keyword_scores(question)
        if best_unit.max(initial=-1) < 0 and not keyword.any():  # nothing in the question matched anything
            return Ranking([], distances, sentence_distances, keyword, np.zeros_like(keyword), best_unit, {}, None, None)
        ranked = self.ranked_chunks(best_unit, keyword)
        parts = self.score_parts(question, distances, keyword, ranked)
        fused = parts.total()
        order = self.distinct(ranked[np.lexsort((ranked, distances[ranked], -fused[ranked]))].tolist())
        teacher = self.teacher
        if teacher is None:
            return Ranking(order, distances, sentence_distances, keyword, fused, best_unit, {}, None, parts)
        question_vector = self.question_vector(question)
        pool = order[: self.fusion.teacher_pool]
        similarity = self.teacher_similarities(question_vector, pool)
        if asks_for_a_list(question):  # a list is usually a whole section: "What to see", "Eat and drink"
            similarity = np.maximum(similarity, self.heading_similarities(question_vector, pool))
        spread = similarity.max() - similarity.min() if len(pool) else 0.0
        scaled = (similarity - similarity.min()) / spread if spread > 0 else np.zeros_like(similarity)
        parts.scaled["teacher"][pool] = scaled
        fused = parts.total()
        pool = sorted(pool, key=lambda i: (-fused[i], distances[i], i))
        teacher_of = dict(zip(order[: len(pool)], similarity))
        return Ranking(pool + order[len(pool) :], distances, sentence_distances, keyword, fused, best_unit, teacher_of, question_vector, parts)

    def ranked_chunks(self, best_unit: np.ndarray, keyword: np.ndarray) -> np.ndarray:
        """The chunks put in order: all of them when every sentence was compared with the question (up to
        EXACT_SEARCH_MAX sentences); above, those the vector search or BM25 found (any other could score only
        its bonuses), so sorting grows with the candidates, not with the index."""
        if len(self.unit_chunk) <= EXACT_SEARCH_MAX:
            return np.arange(self.chunk_count)
        return np.flatnonzero((best_unit >= 0) | (keyword > 0))

    def distinct(self, order: list[int]) -> list[int]:
        """The order with every text repeated word for word in several guides kept once, at its best copy."""
        if not order:
            return []
        _, firsts = np.unique(np.asarray(self.same_as)[order], return_index=True)
        return np.asarray(order)[np.sort(firsts)].tolist()

    @property
    def openings(self) -> dict[str, set[str]]:
        """town -> the words of its guide's opening paragraph (implied_place.word_forms), read at the first
        question that describes a place, not at load."""
        if self._openings is None:
            firsts = np.unique(self.index.analysis.chunk_town, return_index=True)[1]
            chunks = [self.index.chunks[int(n)] for n in firsts]
            self._openings = {self.places[c.file]: word_forms(opening_of(c)) for c in chunks if c.file in self.places}
        return self._openings

    def implied_place(self, question: str) -> ImpliedPlace | None:
        """The town a question describes but does not name ("the headland"), if any."""
        if not DESCRIBES_A_PLACE.search(question):
            return None
        named = self.towns.spans(question)
        if any(not SETTING_OUT.search(question[:start]) for start, _, _ in named):
            return None  # a town named as what the question is about
        found = implied_place(question, self.openings)
        return None if found is None or found.town in {town for _, _, town in named} else found

    def retrieve(self, question: str, k: int = TOP_K) -> Retrieval:
        question = clean_question(question)
        cutoff = self.cutoff
        if not question:
            return Retrieval(question, [], Gate(1.0, cutoff, False, self.index.cutoff))
        asked = question
        question, slips, implied = self.read(question)
        ranked = self.ranking(question)
        distances, best_unit = ranked.distances, ranked.best_unit
        hits = [
            Hit(
                rank=r + 1,
                chunk=self.index.chunks[i],
                ordinal=i,
                vector_distance=float(distances[i]),
                keyword_score=float(ranked.keyword[i]),
                fused_score=float(ranked.fused[i]),
                matched_sentence=self.index.units[best_unit[i]].text if best_unit[i] >= 0 else "",
                above_cutoff=cutoff is not None and float(distances[i]) > cutoff,
                teacher_similarity=ranked.teacher.get(i),
                parts=ranked.parts.of_chunk(i),
                sentence_distance=float(ranked.sentence_distances[i]) if distances[i] < ranked.sentence_distances[i] else None,
            )
            for r, i in enumerate(ranked.order[:k])
        ]
        best = float(distances.min())
        gate = Gate(best, cutoff, bool(hits) and (cutoff is None or best <= cutoff), self.index.cutoff)
        if gate.passed:
            hits = self.let_in(question, hits)
        return Retrieval(asked, hits, gate, ranked.question_vector, implied, tuple(slips))

    def let_in_margin(self, question: str, towns: set[str]) -> float | None:
        """How far below the best top chunk's teacher cosine a chunk beyond the cutoff is let in: the knob's margin for a
        question naming a town (towns: towns_in(question)), REGION_LIST_LET_IN of it for a list question naming none;
        None for any other question naming no town, where nothing says which chunks are its own."""
        if towns:
            return self.fusion.teacher_let_in
        return self.fusion.teacher_let_in * REGION_LIST_LET_IN if asks_for_a_list(question) else None

    def let_in(self, question: str, hits: list[Hit]) -> list[Hit]:
        """The hits with those beyond the cutoff that the teacher vouches for let in (FusionSettings.teacher_let_in):
        within let_in_margin of the best top chunk's teacher cosine and, when the question names a town, about it (its
        guide, or a region-wide chunk naming it)."""
        towns = self.towns_in(question)
        margin, best = self.let_in_margin(question, towns), best_teacher(hits)
        if margin is None or best is None:
            return hits
        return [
            replace(hit, above_cutoff=False, let_in=True)
            if hit.above_cutoff and hit.rank <= TOP_K and hit.teacher_similarity is not None and hit.teacher_similarity >= best - margin
            and (not towns or self.about(hit.chunk, towns))
            else hit
            for hit in hits
        ]

    def about(self, chunk: Chunk, towns: set[str]) -> bool:
        """Is the chunk about one of the towns: from its guide, or from a region-wide guide and naming it?"""
        town = self.places.get(chunk.file)
        return town in towns if town is not None else bool(self.towns_in(chunk.text) & towns)
