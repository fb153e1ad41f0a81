"""The app's screens: the main one, where everything happens, and the one saying why the index cannot be opened."""

from __future__ import annotations

from pathlib import Path

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static

from guide_tui.answers import Answer
from guide_tui.indexes import IndexLoadError
from guide_tui.inspection import explain
from guide_tui.report import no_hits_message
from guide_tui.retrieval import Retrieval
from guide_tui.tui.text import literal
from guide_tui.tui.widgets import AnswerPanel, DetailPane, EvalBar, HitsTable, KnobsLine, QuestionInput, StatusLine, TuningPanel

COMPACT_SIZE = (100, 32)  # below either: the compact layout
MIN_SIZE = (70, 20)  # below either: only a message asking for a larger window


class MainScreen(Screen):
    """The question, the top-5 table, the eval line, the answer and chunk panes and the status line; it fits them
    to the terminal and keeps the chunk pane on the table's selected row."""

    def __init__(self, status: StatusLine) -> None:
        super().__init__()
        self.status = status

    def on_key(self, event: events.Key) -> None:
        """A letter typed while the table or a pane has the keys goes to the end of the question, which takes them."""
        if event.is_printable and event.character and not isinstance(self.focused, Input):
            event.stop()
            self.query_one("#question", QuestionInput).type_in(event.character)

    def compose(self) -> ComposeResult:
        yield QuestionInput(placeholder="Ask about the region: opening times, prices, buses, walks…", id="question")
        yield Static(id="message")
        yield HitsTable(id="hits")
        yield EvalBar(id="eval")
        yield KnobsLine(id="knobs")
        with Horizontal(id="main"):
            yield AnswerPanel(id="answer")
            yield DetailPane(id="detail")
            yield TuningPanel(id="tuning")
        yield self.status
        yield Static(id="too-small")
        yield Footer()

    def on_mount(self) -> None:
        self.fit_layout(self.app.size.width, self.app.size.height)
        self.query_one("#question", Input).focus()
        self.app.started()

    def fit_layout(self, width: int, height: int) -> None:
        """Compact below COMPACT_SIZE (one-line status, table without a border), a message below MIN_SIZE."""
        if not self.query("#hits"):  # a resize before the screen is composed, or while it closes
            return
        compact = width < COMPACT_SIZE[0] or height < COMPACT_SIZE[1]
        too_small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.set_class(compact, "-compact")
        for footer in self.query(Footer):
            footer.compact = compact  # less space between the keys: at 80 columns Esc (Stop) fits beside the others
        self.set_class(too_small, "-too-small")
        if too_small:
            self.query_one("#too-small", Static).update(literal(
                f"The terminal is {width}x{height}: guide-tui needs at least {MIN_SIZE[0]}x{MIN_SIZE[1]}. "
                "Make the window larger (Ctrl+Q quits)."
            ))  # fmt: skip
        self.query_one("#hits", HitsTable).compact = compact
        self.status.compact = compact

    def say(self, message: str, kind: str = "info") -> None:
        widget = self.query_one("#message", Static)
        widget.set_classes(kind)
        # one line: no re-layout of the screen; one that wraps (an exported file's path at 80 columns) or replaces one that did: re-laid out
        widget.update(literal(message), layout=len(message) > widget.content_region.width or widget.size.height > 1)

    def show_retrieval(self, retrieval: Retrieval, wide: Retrieval | None = None) -> None:
        """The answer's retrieval in the table, or with `wide` the question's top LOOK_PAST; the cursor stays on
        the row it was on when the retrieval is the one shown (F7), else goes to the first row."""
        table = self.query_one("#hits", HitsTable)
        selected = table.hit_at_cursor() if retrieval is table.retrieval else None
        question = self.query_one("#eval", EvalBar).question_for(retrieval.question)
        table.show(retrieval, question.expected_chunks if question else (), wide)
        table.move_to(selected)
        if message := no_hits_message(retrieval):
            self.say(message, "warning")
        self.update_detail()

    def show_answer(self, answer: Answer) -> None:
        """Mark what the answer quoted, in the table and in the chunk pane."""
        self.query_one("#hits", HitsTable).show_answer(answer)
        self.update_detail()

    def toggle_tuning(self) -> bool:
        """Show or hide the tuning panel in the answer and chunk panes' place; True when it is shown now."""
        main = self.query_one("#main")
        main.toggle_class("-tuning")
        return main.has_class("-tuning")

    def toggle_detail(self) -> None:
        detail = self.query_one("#detail", DetailPane)
        detail.shown = not detail.shown
        self.update_detail()

    @on(DataTable.RowSelected, "#hits")
    def row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value in self.query_one("#hits", HitsTable).hits:
            self.query_one("#detail", DetailPane).shown = True
            self.update_detail()

    @on(DataTable.RowHighlighted, "#hits")
    def update_detail(self) -> None:
        """The chunk pane follows the table's selected row: why it ranks there (inspection.explain)."""
        table, detail = self.query_one("#hits", HitsTable), self.query_one("#detail", DetailPane)
        if detail.shown and (hit := table.hit_at_cursor()) is not None:
            detail.show_why(explain(self.app.retriever, table.shown, hit, table.answer))


class IndexErrorScreen(Screen):
    """The index cannot be used: say why and what fixes it; the app stays up."""

    BINDINGS = [Binding("q", "app.quit", "Quit")]

    def __init__(self, error: IndexLoadError, index_dir: Path) -> None:
        super().__init__()
        self.error = error
        self.index_dir = index_dir

    def compose(self) -> ComposeResult:
        message = str(self.error)  # "<problem>; <fix>": the fix comes last, and the problem may hold "; " itself
        problem, _, fix = message.rpartition("; ") if "; " in message else (message, "", "")
        body = Content.assemble(
            ("The index cannot be opened", "bold $error"), "\n\n", literal(problem), "\n\n",
            ("How to fix it", "bold"), "\n", literal(fix or "rebuild the index: guide-tui index --out DIR"), "\n\n",
            literal("Or open the bundled index: guide-tui (no --index). Press q to quit.", "italic"),
        )  # fmt: skip
        yield Static(body, id="error-text")
        yield Footer()
