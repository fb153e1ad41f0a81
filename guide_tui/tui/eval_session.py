"""The labelled questions in the app (F2-F4 stepping, F8/F9 misses, run all, the results view): where we are and how each came back."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from guide_tui.answers import Answer
from guide_tui.questions import Question
from guide_tui.settings import RetrievalSettings

if TYPE_CHECKING:  # evaluation is imported when the first answer is judged, not at start-up
    from guide_tui.evaluation import QuestionResult


@dataclass(frozen=True)
class EvalOutcome:
    """How one labelled question came back: hit or miss at a glance, and eval's failure class (`result`)."""

    question: Question
    expected_rank: int | None  # rank of the best-ranked expected chunk in the top 5
    ranked_chunk: str | None  # that chunk (the one the rank is of), None when no expected chunk came back
    phrase_found: bool
    refused: bool
    result: QuestionResult  # what `guide-tui eval` makes of it: the failure class and where the expected chunk went
    knobs: RetrievalSettings | None = None  # the retrieval knobs it was run with

    @property
    def rank1(self) -> bool:
        return self.expected_rank == 1

    @property
    def refusal_correct(self) -> bool:
        return self.refused != self.question.in_corpus

    @property
    def failure_class(self) -> str:
        return self.result.failure_class

    @property
    def right(self) -> bool:
        return self.result.failure_class == "right"

    def expected_line(self) -> str:
        """"expected guide_corry_vale.md#6 → rank 8, distance 0.5078", or "expected a refusal → answered"."""
        if not self.question.in_corpus:
            return f"expected a refusal → {'refused' if self.refused else 'answered'}"
        return self.result.expected_line.replace(" -> ", " → ")


def judge(retriever, question: Question, answer: Answer) -> EvalOutcome:
    """The hit rules and failure class of `guide-tui eval` (evaluation.py), applied to one answer in the app."""
    from guide_tui.evaluation import Outcome, expected_rank, outcome_result, phrase_in_answer

    chunk_ids = [hit.chunk.chunk_id for hit in answer.retrieval.hits]
    rank = expected_rank(question, chunk_ids)
    ranked = None if rank is None else chunk_ids[rank - 1]
    result = outcome_result(retriever, Outcome(1, question, answer))
    return EvalOutcome(question, rank, ranked, phrase_in_answer(question, answer), answer.refused, result, retriever.knobs)


@dataclass
class RunAll:
    """Every labelled question run in the background (Ctrl+R): how far it got, and the switch that stops it."""

    total: int
    done: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    started: float = field(default_factory=time.perf_counter)


@dataclass
class EvalSession:
    questions: list[Question]
    position: int = -1  # -1: not started
    outcomes: dict[str, EvalOutcome] = field(default_factory=dict)  # by question id; a re-run replaces
    run_all: RunAll | None = None  # a run over every question going on now
    knobs: RetrievalSettings | None = None  # the knobs in force: outcomes run with others are not counted in the tally

    def earlier(self, outcome: EvalOutcome) -> bool:
        """Whether the outcome was run with other knobs than those in force (moving a knob since)."""
        return self.knobs is not None and outcome.knobs is not None and outcome.knobs != self.knobs

    @property
    def current(self) -> Question | None:
        return self.questions[self.position] if 0 <= self.position < len(self.questions) else None

    def misses(self) -> list[EvalOutcome]:
        return [o for o in self.outcomes.values() if not o.right]

    def tally(self) -> str:
        """The counts `guide-tui eval` reports, over the questions run so far (rank-1 over those with expected chunks,
        the phrase over those with a phrase, refusals over near misses and off-topic ones), with the knobs in force."""
        outcomes = [o for o in self.outcomes.values() if not self.earlier(o)]
        stale = len(self.outcomes) - len(outcomes)
        ranked = [o for o in outcomes if o.question.in_corpus and o.question.expected_chunks]
        phrased = [o for o in outcomes if o.question.in_corpus and o.question.expected_phrase]
        unanswerable = [o for o in outcomes if not o.question.in_corpus]
        where = f"run all {self.run_all.done}/{self.run_all.total}" if self.run_all else f"eval {self.position + 1}/{len(self.questions)}"
        if stale:
            where += f" · {stale} stale: earlier knobs"
        return (
            f"{where} · rank-1 hits {sum(o.rank1 for o in ranked)}/{len(ranked)}"
            f" · phrase hits {sum(o.phrase_found for o in phrased)}/{len(phrased)}"
            f" · refusals correct {sum(o.refusal_correct for o in unanswerable)}/{len(unanswerable)}"
        )

    def next_miss(self, direction: int) -> int | None:
        """The position of the next (direction 1) or previous (-1) question whose last outcome was not right, going
        round the list; None when no question run so far was a miss."""
        count = len(self.questions)
        start = self.position if self.position >= 0 else (-1 if direction > 0 else count)
        for step in range(1, count + 1):
            position = (start + direction * step) % count
            outcome = self.outcomes.get(self.questions[position].id)
            if outcome is not None and not outcome.right:
                return position
        return None

    def no_miss_message(self) -> str:
        """Why F8 / F9 found nothing: every question right, or only some run (suggest running all)."""
        run = sum(q.id in self.outcomes for q in self.questions)
        if run == len(self.questions):
            return f"No miss: all {run} labelled questions came back right."
        if run == 0:
            return f"No known miss: no labelled question has been run yet; Ctrl+R runs all {len(self.questions)}."
        return f"No known miss: the {run} of {len(self.questions)} labelled questions run so far came back right; Ctrl+R runs all."
