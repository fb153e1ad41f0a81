"""The eval line: the running tally and this labelled question's verdict."""

from __future__ import annotations

from typing import Callable

from textual.content import Content
from textual.widgets import Static

from guide_tui.answers import Answer
from guide_tui.questions import Question
from guide_tui.retrieval import clean_question
from guide_tui.tui.eval_session import EvalOutcome, EvalSession, judge
from guide_tui.tui.text import literal


class EvalBar(Static):
    """The labelled questions stepped through (F2-F4): hidden until the first step, then the tally and each verdict."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: EvalSession | None = None

    def step(self, position: int, questions: Callable[[], list[Question]]) -> Question | None:
        """Go to the labelled question at position (kept within the list; the first step shows the bar and reads
        the questions); None when there are none."""
        if self.session is None:
            self.session = EvalSession(questions())
            self.add_class("-active")
        if not self.session.questions:
            return None
        self.session.position = max(0, min(position, len(self.session.questions) - 1))
        return self.session.current

    def question_for(self, question: str) -> Question | None:
        """The current eval question, when the question asked is its text (typed questions are not scored)."""
        current = self.session.current if self.session else None
        return current if current is not None and clean_question(current.text) == question else None

    def show(self, outcome: EvalOutcome | None, labelled: bool = True) -> None:
        if self.session is not None:
            self.update(eval_content(self.session, outcome, labelled))

    def record(self, answer: Answer) -> None:
        """Judge an answer to the current labelled question, and show the verdict."""
        question = self.question_for(answer.retrieval.question)
        if question is not None:
            outcome = judge(question, answer)
            self.session.outcomes[question.id] = outcome
            self.show(outcome)



def eval_content(session: EvalSession, outcome: EvalOutcome | None, labelled: bool = True) -> Content:
    """The running tally, then this question's expected chunk and phrase beside what came back.
    labelled=False: the question asked is the user's own, which is not scored."""
    question = session.current
    if question is None:
        return Content("")
    if not labelled:
        return Content.assemble(
            (session.tally(), "bold"), "\n", literal("your own question: not scored (F4 / F3 / F2 step through the labelled ones)", "italic")
        )
    head = literal(question.id if question.in_corpus else f"{question.id} ({question.kind.replace('_', ' ')})", "bold")
    if outcome is None:
        verdict = literal("running…", "italic")
    elif question.in_corpus:
        expected = len(question.expected_chunks)
        if outcome.ranked_chunk is None:
            found = Content.assemble(literal(question.expected_chunks[0] + (f" (+{expected - 1})" if expected > 1 else ""), "bold"), " → not in the top 5 ")
        else:
            of = f" ({expected} expected)" if expected > 1 else ""
            found = Content.assemble(literal(outcome.ranked_chunk, "bold"), f"{of} → rank {outcome.expected_rank} ")
        verdict = Content.assemble(
            "expected chunk ◆ ", found, mark(outcome.rank1), " · phrase ", literal(f"“{question.expected_phrase}”", "bold"),
            " in the answer " if outcome.phrase_found else " not in the answer ", mark(outcome.phrase_found),
        )  # fmt: skip
    else:
        verdict = Content.assemble("expected a refusal → ", "refused " if outcome.refused else "answered ", mark(outcome.refusal_correct))
    return Content.assemble((session.tally(), "bold"), "  │  ", head, "\n", verdict)


def mark(ok: bool) -> Content:
    return Content.styled("✓ hit", "bold $success") if ok else Content.styled("✗ miss", "bold $error")
