"""The eval line: the running tally and this labelled question's verdict with its failure class."""

from __future__ import annotations

from typing import Callable

from textual.content import Content
from textual.widgets import Static

from guide_tui.answers import Answer
from guide_tui.evaluation import FAILURE_CLASSES
from guide_tui.questions import Question
from guide_tui.retrieval import clean_question
from guide_tui.tui.eval_session import EvalOutcome, EvalSession, judge
from guide_tui.tui.text import literal


class EvalBar(Static):
    """The labelled questions (F2-F4, F8/F9, run all): hidden until first used, then the tally and each verdict."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.session: EvalSession | None = None
        self.outcome: EvalOutcome | None = None  # the verdict shown (None: running, or not yet asked)
        self.labelled = True  # False: the question asked is the user's own

    def on_unmount(self) -> None:
        """Quitting mid-run: the run's process stops, and its last outcomes, still on their way, are dropped."""
        if self.session is not None and self.session.run_all is not None:
            self.session.run_all.stop.set()

    def open(self, questions: Callable[[], list[Question]]) -> EvalSession:
        """The session, started (the questions read, the bar shown) the first time it is needed."""
        if self.session is None:
            self.session = EvalSession(questions())
            self.add_class("-active")
            self.redraw(layout=True)
        return self.session

    def step(self, position: int, questions: Callable[[], list[Question]]) -> Question | None:
        """Go to the labelled question at position (kept within the list); None when there are none."""
        session = self.open(questions)
        if not session.questions:
            return None
        session.position = max(0, min(position, len(session.questions) - 1))
        return session.current

    def question_for(self, question: str) -> Question | None:
        """The current eval question, when the question asked is its text (typed questions are not scored)."""
        current = self.session.current if self.session else None
        return current if current is not None and clean_question(current.text) == question else None

    def show(self, outcome: EvalOutcome | None, labelled: bool = True) -> None:
        self.outcome, self.labelled = outcome, labelled
        self.redraw(layout=True)

    def redraw(self, layout: bool = False) -> None:
        """Draw the tally and the verdict shown again: run all moves the tally on without laying the screen out anew
        (a layout for every question it runs would slow typing down), a new verdict may take other lines."""
        if self.session is not None:
            self.update(eval_content(self.session, self.outcome, self.labelled), layout=layout)

    def record(self, retriever, answer: Answer) -> None:
        """Judge an answer to the current labelled question, and show the verdict."""
        question = self.question_for(answer.retrieval.question)
        if question is not None:
            outcome = judge(retriever, question, answer)
            self.session.outcomes[question.id] = outcome
            self.show(outcome)


KEYS_HINT = "F4 / F3 / F2 step through the labelled questions · F8 / F9 next / previous miss · F10 results · Ctrl+R runs all"


def eval_content(session: EvalSession, outcome: EvalOutcome | None, labelled: bool = True) -> Content:
    """The running tally, then this question's failure class, its expected chunk and phrase beside what came back.
    labelled=False: the question asked is the user's own, which is not scored."""
    question = session.current
    if question is None:
        return Content.assemble((session.tally(), "bold"), "\n", literal(KEYS_HINT, "italic"))
    if not labelled:
        return Content.assemble(
            (session.tally(), "bold"), "\n", literal("your own question: not scored (F4 / F3 / F2 step through the labelled ones)", "italic")
        )
    head = literal(question.id if question.in_corpus else f"{question.id} ({question.kind.replace('_', ' ')})", "bold")
    if outcome is None:
        verdict = literal("running…", "italic")
    elif question.in_corpus:
        expected = len(question.expected_chunks)
        if outcome.ranked_chunk is None:  # not in the top 5: where it went (searched to LOOK_PAST)
            place = outcome.result.place
            chunk = place.chunk_id if place is not None else question.expected_chunks[0]
            where = place.line().split(" -> ", 1)[1] if place is not None else "not in the top 5"
            others = f" (+{expected - 1})" if expected > 1 and (place is None or place.rank is None) else ""
            found = Content.assemble(literal(chunk + others, "bold"), f" → {where} ")
        else:
            of = f" ({expected} expected)" if expected > 1 else ""
            found = Content.assemble(literal(outcome.ranked_chunk, "bold"), f"{of} → rank {outcome.expected_rank} ")
        chunk = (Content.assemble(" · expected chunk ◆ ", found, mark(outcome.rank1)), outcome.rank1)
        phrase = (Content.assemble(
            " · phrase ", literal(f"“{question.expected_phrase}”", "bold"),
            " in the answer " if outcome.phrase_found else " not in the answer ", mark(outcome.phrase_found),
        ), outcome.phrase_found)  # fmt: skip
        # a miss before a hit: at 80 columns the line is cut, and the part that decided the class must show
        verdict = Content.assemble(class_label(outcome), *(part for part, _ in sorted((chunk, phrase), key=lambda p: p[1])))
    else:
        verdict = Content.assemble(
            class_label(outcome), " · expected a refusal → ", "refused " if outcome.refused else "answered ", mark(outcome.refusal_correct)
        )
    return Content.assemble((session.tally(), "bold"), "  │  ", head, "\n", verdict)


def class_label(outcome: EvalOutcome) -> Content:
    """The failure class, as `guide-tui eval` names it."""
    return Content.styled(FAILURE_CLASSES[outcome.failure_class], "bold $success" if outcome.right else "bold $error")


def mark(ok: bool) -> Content:
    return Content.styled("✓ hit", "bold $success") if ok else Content.styled("✗ miss", "bold $error")
