"""The live knobs: moving one a step, and the labelled questions re-scored with the new settings (off the screen's
thread) against the settings the app started with, judged as `guide-tui eval` judges them."""

from __future__ import annotations

import threading
from dataclasses import dataclass

from guide_tui.answering import answer_question
from guide_tui.calibration import Measured
from guide_tui.evaluation import expected_rank, phrase_in_answer
from guide_tui.questions import Question
from guide_tui.retrieval import Retriever
from guide_tui.settings import KNOB_BY_NAME, KNOBS, RetrievalSettings

LIVE_KNOBS = tuple(knob for knob in KNOBS if knob.name != "teacher_pool")
"""The knobs the app moves (keys and palette) and its knobs line shows; the pool size is set in settings.json only."""
RESCORE_DELAY = 0.3
"""Seconds a knob must rest before the labelled questions are re-scored: holding Alt+Up re-ranks the table at every
step, but only the last step is re-scored."""
MEASURES = ("rank-1", "hit@5", "phrase", "refusals")
"""What the Δ counts, as `guide-tui eval` measures it: expected chunk ranked first, expected chunk in the top 5, the
expected phrase in the answer (answerable questions), and refusals of the near-miss and off-topic ones."""


def knob_values(settings: RetrievalSettings, index_cutoff: float | None) -> dict[str, float | None]:
    """Each live knob's value in force: a cutoff of None is the index's calibrated one."""
    values = settings.to_json()
    values["cutoff"] = index_cutoff if settings.cutoff is None else settings.cutoff
    return {knob.name: values[knob.name] for knob in LIVE_KNOBS}


def moved(settings: RetrievalSettings, index_cutoff: float | None, name: str, steps: int) -> RetrievalSettings | str:
    """The settings with one knob moved `steps` steps, kept within its bounds; a sentence saying why not when it cannot move."""
    knob = KNOB_BY_NAME[name]
    current = knob_values(settings, index_cutoff)[name]
    if current is None:
        return "This index has no cutoff to move (it was never calibrated and opened with --no-gate)."
    value = min(knob.high, max(knob.low, round(current + steps * knob.step, 4)))
    if value == current:
        return f"The {knob.label} knob is at its {'highest' if steps > 0 else 'lowest'} value, {value:g}."
    return settings.with_value(name, value)


def to_save(settings: RetrievalSettings, index_cutoff: float | None) -> RetrievalSettings:
    """What settings.json keeps: a cutoff equal to the index's calibrated one is saved as None, so it follows a recalibration."""
    return settings.with_value("cutoff", None) if settings.cutoff == index_cutoff else settings


@dataclass(frozen=True)
class QuestionScore:
    """How one labelled question came back with some settings: what the Δ counts, and its best distance (the histogram's)."""

    question: Question
    expected_rank: int | None
    phrase_found: bool
    refused: bool
    best_distance: float

    def passes(self, measure: str) -> bool | None:
        """Whether it counts for a measure (None: the measure does not apply to this question)."""
        q = self.question
        answerable = q.kind == "answerable"
        if measure in ("rank-1", "hit@5"):
            if not (answerable and q.expected_chunks):
                return None
            return self.expected_rank == 1 if measure == "rank-1" else self.expected_rank is not None
        if measure == "phrase":
            return self.phrase_found if answerable and q.expected_phrase else None
        return None if answerable else self.refused

    def outcome(self) -> tuple:
        return (self.expected_rank, self.phrase_found, self.refused)


@dataclass(frozen=True)
class Scores:
    settings: RetrievalSettings
    questions: dict[str, QuestionScore]  # by question id, in the questions' order

    def count(self, measure: str) -> tuple[int, int]:
        """(passed, of how many) for one of MEASURES."""
        verdicts = [v for v in (s.passes(measure) for s in self.questions.values()) if v is not None]
        return sum(verdicts), len(verdicts)

    def measured(self) -> list[Measured]:
        """Each question's best distance, as calibration measures it (the histogram's input)."""
        return [Measured(s.question, s.best_distance) for s in self.questions.values()]


def score_questions(retriever: Retriever, questions: list[Question], cancel: threading.Event) -> Scores | None:
    """Every question retrieved and answered extractively with the retriever's settings, judged as `guide-tui eval`
    judges (evaluation.expected_rank, phrase_in_answer); None once cancel is set (a newer knob move)."""
    scored = {}
    for question in questions:
        if cancel.is_set():
            return None
        answer = answer_question(retriever, question.text, generator="extractive")
        chunk_ids = [hit.chunk.chunk_id for hit in answer.retrieval.hits]
        scored[question.id] = QuestionScore(
            question, expected_rank(question, chunk_ids), phrase_in_answer(question, answer), answer.refused, answer.retrieval.gate.best_distance
        )
    return Scores(retriever.settings, scored)


@dataclass(frozen=True)
class Change:
    """A question whose outcome differs from the baseline's."""

    before: QuestionScore
    after: QuestionScore

    def line(self) -> str:
        """ "id: rank 3 → 1, phrase ✗ → ✓" (only what changed)."""
        b, a = self.before, self.after
        parts = []
        if b.expected_rank != a.expected_rank:
            parts.append(f"rank {b.expected_rank or '-'} → {a.expected_rank or '-'}")
        if b.phrase_found != a.phrase_found:
            parts.append(f"phrase {mark(b.phrase_found)} → {mark(a.phrase_found)}")
        if b.refused != a.refused:
            parts.append("answered → refused" if a.refused else "refused → answered")
        return f"{a.question.id}: {', '.join(parts)}"


def mark(found: bool) -> str:
    return "✓" if found else "✗"


def changes(baseline: Scores, scores: Scores) -> list[Change]:
    """The questions whose outcome (expected chunk's rank, phrase, refusal) differs, in the questions' order."""
    return [
        Change(baseline.questions[qid], after)
        for qid, after in scores.questions.items()
        if qid in baseline.questions and baseline.questions[qid].outcome() != after.outcome()
    ]


class Tuning:
    """The baseline (the labelled questions scored with the settings the app started with, once, at first need) and
    the latest re-score; both are computed in daemon threads."""

    def __init__(self, start: Retriever, questions: list[Question]) -> None:
        self.start = start
        self.questions = questions
        self.baseline: Scores | None = None
        self.latest: Scores | None = None
        self.lock = threading.Lock()  # one baseline, however many re-scores ask for it at once

    def baseline_scores(self) -> Scores:
        with self.lock:
            if self.baseline is None:
                self.baseline = score_questions(self.start, self.questions, threading.Event())  # never cancelled: every Δ needs it
        return self.baseline

    def rescore(self, retriever: Retriever, cancel: threading.Event) -> Scores | None:
        """The questions scored with the retriever's settings (the baseline first, when it is not there yet); None when cancelled."""
        baseline = self.baseline_scores()
        if retriever.settings == baseline.settings:
            return baseline
        return score_questions(retriever, self.questions, cancel)
