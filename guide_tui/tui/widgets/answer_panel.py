"""The answer pane: the question, the answer as it streams, its sources, or the refusal and why."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from guide_tui.answerability import verdict_lines
from guide_tui.answers import REFUSAL, Answer
from guide_tui.report import clipped
from guide_tui.retrieval import printable
from guide_tui.tui.text import emphasised, literal

QUESTION_SHOWN_CHARS = 300  # a huge question is shown shortened in the answer panel


class AnswerPanel(VerticalScroll):
    """The question, the answer as it streams, then its sources (or the refusal and why)."""

    def compose(self) -> ComposeResult:
        yield Static(id="answer-text")

    def on_mount(self) -> None:
        self.streamed = ""
        self.heading = Content("")
        self.show(literal("Ask a question about the guides, or press F4 to step through the labelled questions.", "italic"))
        self.border_title = "answer"

    def show(self, content: Content) -> None:
        self.query_one("#answer-text", Static).update(content)

    def begin(self, question: str, answerer: str, read_as: str | None = None) -> None:
        """read_as: a note on how the question was read, when not word for word ('read "the headland" as Elder Ness')."""
        shown = clipped(question, QUESTION_SHOWN_CHARS)
        note = literal(f"\n({read_as})", "italic") if read_as else ""
        self.heading = Content.assemble(("Question: ", "bold"), literal(shown, "bold"), note, "\n\n")
        self.streamed = ""
        self.show(self.heading + literal(f"Answering ({answerer})…", "italic"))

    def add_text(self, piece: str) -> None:
        self.streamed += printable(piece)  # printable works character by character: cleaning each piece is cleaning the whole
        self.show(self.heading + Content(self.streamed))
        self.scroll_end(animate=False)

    def stopped(self) -> None:
        self.show(self.heading + Content(self.streamed) + Content.assemble(
            "\n\n", ("■ stopped (Esc): the text above is unfinished and was not checked against the guides", "bold $text-warning"),
        ))  # fmt: skip

    def failed(self, err: Exception) -> None:
        self.show(literal(f"No answer: {err}"))

    def finish(self, answer: Answer) -> None:
        self.show(self.heading + answer_content(answer))
        self.scroll_home(animate=False)  # the whole answer reads from its question down


def answer_content(answer: Answer) -> Content:
    """A refusal with its reason, or the answer (unsupported sentences flagged), its sources and who wrote it."""
    if answer.refused:
        parts: list = [("REFUSED", "bold reverse $error"), " ", literal(refusal_reason(answer)), "\n\n", literal(REFUSAL, "bold")]
        parts += ["\n\n", ("No sources.", "italic")]
    else:
        parts = [marked_answer(answer.text, answer.unsupported), "\n"]
        if answer.unsupported:
            count = len(answer.unsupported)
            parts += ["\n", (f"⚠ {count} sentence{'s' * (count != 1)} not supported by the retrieved guides (marked)", "bold $error"), "\n"]
            parts += flag_reasons(answer)
        if answer.invented_citations:
            cited = ", ".join(answer.invented_citations)
            parts += ["\n" if not answer.unsupported else "", literal(f"⚠ cites {cited}, which the model was not shown", "bold $error"), "\n"]
        parts += ["\n", ("Sources", "bold underline"), "\n"]
        for citation in answer.citations:
            unshown = "" if citation.shown else " (a chunk the model was not shown)"
            parts += ["• ", literal(f"{citation.file} § {citation.section}{unshown}", "bold"), "\n  ", emphasised(f"“{citation.quote}”", "italic"), "\n"]
        if not answer.citations:
            parts += [("none", "italic"), "\n"]
        parts += ["\n", literal(f"answered by {answer.generator}", "dim")]
        if answer.check_note:
            parts += ["\n", literal(f"claim check: {answer.check_note}", "$text-warning")]
    if answer.fallback_reason:
        parts += ["\n", literal(f"fallback: {answer.fallback_reason}", "$text-warning")]
    for line in verdict_lines(answer.verdicts):
        parts += ["\n", literal(line, "dim")]
    return Content.assemble(*parts)


def refusal_reason(answer: Answer) -> str:
    gate = answer.retrieval.gate
    reasons = {
        "gate": "gate: no chunk shares a word or a meaning with the question"
        if not answer.retrieval.hits
        else f"gate: the best-sentence distance {gate.best_distance:.4f} is over the cutoff "
        + ("(none)" if gate.cutoff is None else f"{gate.cutoff:.4f}"),
        "answerability": "answerability: the retrieved chunks are close, but none of them answers this question"
        + (f" ({answer.refusal_detail})" if answer.refusal_detail else ""),
        "model": "model refused: the model found no answer in the retrieved chunks",
        "empty question": "empty question: nothing to search for",
    }
    return reasons.get(answer.refusal_reason or "", answer.refusal_reason or "refused")


def flag_reasons(answer: Answer) -> list:
    """Under the warning, each flagged sentence with why, and the guide sentence it was compared with."""
    parts: list = []
    for flag in answer.flags:
        parts += ["  • ", literal(f"“{shortened(flag.sentence)}”", "italic"), literal(f": {flag.reason}"), "\n"]
        if flag.source:
            parts += ["    ", literal(f"{flag.source.file} § {flag.source.section}: ", "dim"), literal(f"“{flag.source.quote}”", "dim italic"), "\n"]
    return parts


def shortened(text: str, limit: int = 70) -> str:
    return text if len(text) <= limit else text[: limit - 1].rsplit(" ", 1)[0] + "…"


def marked_answer(text: str, unsupported: list[str]) -> Content:
    """The answer with each sentence the claim check could not support flagged and underlined."""
    spans = []
    for sentence in unsupported:
        start = text.find(sentence)
        if start < 0:  # "... 8:30. [guide_x.md]" is checked as "... 8:30 [guide_x.md].": mark its words
            sentence = sentence.split(" [")[0].split(" (")[0].rstrip(".!?")
            start = text.find(sentence)
        if start >= 0 and sentence:
            spans.append((start, start + len(sentence)))
    parts, position = [], 0
    for start, end in sorted(spans):
        if start < position:
            continue
        parts += [emphasised(text[position:start]), ("⚠ ", "bold $error"), emphasised(text[start:end], "underline $error")]
        position = end
    parts.append(emphasised(text[position:]))
    return Content.assemble(*parts)
