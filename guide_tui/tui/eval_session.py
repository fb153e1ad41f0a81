"""Stepping through the labelled questions in the app (F2-F4): where we are and how each came back."""

from __future__ import annotations

from dataclasses import dataclass, field

from guide_tui.answers import Answer
from guide_tui.questions import Question


@dataclass(frozen=True)
class EvalOutcome:
    """How one labelled question came back: hit or miss at a glance."""

    question: Question
    expected_rank: int | None  # rank of the best-ranked expected chunk in the top 5
    ranked_chunk: str | None  # that chunk (the one the rank is of), None when no expected chunk came back
    phrase_found: bool
    refused: bool

    @property
    def rank1(self) -> bool:
        return self.expected_rank == 1

    @property
    def refusal_correct(self) -> bool:
        return self.refused != self.question.in_corpus


def judge(question: Question, answer: Answer) -> EvalOutcome:
    """The same hit rules as `guide-tui eval`: any expected chunk at rank 1, the phrase in an answer that is not a refusal."""
    from guide_tui.evaluation import expected_rank, phrase_in_answer

    chunk_ids = [hit.chunk.chunk_id for hit in answer.retrieval.hits]
    rank = expected_rank(question, chunk_ids)
    ranked = None if rank is None else chunk_ids[rank - 1]
    return EvalOutcome(question, rank, ranked, phrase_in_answer(question, answer), answer.refused)


@dataclass
class EvalSession:
    questions: list[Question]
    position: int = -1  # -1: not started
    outcomes: dict[str, EvalOutcome] = field(default_factory=dict)  # by question id; a re-run replaces

    @property
    def current(self) -> Question | None:
        return self.questions[self.position] if 0 <= self.position < len(self.questions) else None

    def tally(self) -> str:
        answerable = [o for o in self.outcomes.values() if o.question.in_corpus]
        unanswerable = [o for o in self.outcomes.values() if not o.question.in_corpus]
        return (
            f"eval {self.position + 1}/{len(self.questions)} · rank-1 hits {sum(o.rank1 for o in answerable)}/{len(answerable)}"
            f" · phrase hits {sum(o.phrase_found for o in answerable)}/{len(answerable)}"
            f" · refusals correct {sum(o.refusal_correct for o in unanswerable)}/{len(unanswerable)}"
        )
