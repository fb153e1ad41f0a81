"""The results view (F10): every labelled question with its failure class, filterable by class and kind; Enter opens one."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from guide_tui.evaluation import FAILURE_CLASSES, failure_class_markdown
from guide_tui.questions import KINDS, Question
from guide_tui.report import save_export
from guide_tui.retrieval import printable
from guide_tui.tui.commands import ScreenCommands
from guide_tui.tui.eval_session import EvalSession
from guide_tui.tui.text import literal

CLASS_FILTERS = {None: "all", "not_right": "not right", **FAILURE_CLASSES, "not_run": "not run"}
"""What `c` cycles through: every question, those not right, one failure class, those not run yet."""

KIND_FILTERS = (None, *KINDS)
NOT_RIGHT, NOT_RUN = "bold red", "dim italic"  # the class cell's style (a question that came back right is plain)


def class_of(session: EvalSession, question: Question) -> str:
    """The question's FAILURE_CLASSES key from its last outcome, or "not_run"."""
    outcome = session.outcomes.get(question.id)
    return "not_run" if outcome is None else outcome.failure_class


def keeps(class_filter: str | None, kind_filter: str | None, question: Question, failure_class: str) -> bool:
    if kind_filter is not None and question.kind != kind_filter:
        return False
    if class_filter == "not_right":
        return failure_class not in ("right", "not_run")
    return class_filter is None or failure_class == class_filter


class ResultsTable(DataTable):
    """The results' rows; Enter opens the question under the cursor (shown in the footer)."""

    BINDINGS = [Binding("enter", "select_cursor", "Open", tooltip="Open the selected question in the main screen")]


class ResultsScreen(Screen):
    """Every labelled question of the session: id, kind, failure class, expected → came back (or not run yet)."""


    COMMANDS = {ScreenCommands}
    BINDINGS = [
        Binding("c", "cycle_class", "Class", tooltip="Show the next failure class only"),
        Binding("k", "cycle_kind", "Kind", tooltip="Show the next kind of question only"),
        Binding("m", "write_markdown", "Markdown", tooltip="Write the results view as Markdown to a new file here"),
        Binding("escape,f10", "close", "Back", tooltip="Back to the main screen"),
    ]

    def __init__(self, session: EvalSession) -> None:
        super().__init__()
        self.session = session
        self.class_filter: str | None = None
        self.kind_filter: str | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="results-head")
        yield ResultsTable(id="results", cursor_type="row", zebra_stripes=True)
        yield Static(id="results-message")
        yield Footer()

    def on_mount(self) -> None:
        table = self.query_one("#results", ResultsTable)
        table.add_columns("question", "kind", "class", "expected → came back")  # "guide_x.md#3 → rank 1, distance 0.31", "a refusal → answered"
        self.fill()
        table.focus()

    def shown(self) -> list[tuple[Question, str]]:
        """The questions the filters keep, each with its failure class (or "not_run"), in the session's order."""
        rows = [(q, class_of(self.session, q)) for q in self.session.questions]
        return [(q, failure_class) for q, failure_class in rows if keeps(self.class_filter, self.kind_filter, q, failure_class)]

    def fill(self) -> None:
        """Rebuild the rows from the session's outcomes (run all calls this as results come in), keeping the cursor's question."""
        table = self.query_one("#results", ResultsTable)
        selected = self.selected_id()
        table.clear()
        for question, failure_class in self.shown():
            outcome = self.session.outcomes.get(question.id)
            if outcome is None:
                style, came_back = NOT_RUN, Text("not run yet", style=NOT_RUN)
            else:
                style, came_back = "" if outcome.right else NOT_RIGHT, Text(printable(outcome.expected_line().removeprefix("expected ")))
            stale = outcome is not None and self.session.earlier(outcome)  # a knob moved since: not in the tally until run again
            label = Text(CLASS_FILTERS[failure_class] + (" (stale)" if stale else ""), style=NOT_RUN if stale else style)
            table.add_row(Text(printable(question.id)), Text(question.kind), label, came_back, key=question.id)
        if selected is not None and selected in {q.id for q, _ in self.shown()}:
            table.move_cursor(row=table.get_row_index(selected))
        self.query_one("#results-head", Static).update(self.head())

    def head(self) -> Content:
        outcomes = [self.session.outcomes.get(q.id) for q in self.session.questions]
        fresh = [o for o in outcomes if o is not None and not self.session.earlier(o)]
        right, not_run = sum(o.right for o in fresh), outcomes.count(None)
        stale = len(outcomes) - not_run - len(fresh)
        counts = f"{len(outcomes)} labelled questions: {right} right · {len(fresh) - right} not right · {not_run} not run"
        counts += f" · {stale} stale (earlier knobs)" if stale else ""
        hint = " (Ctrl+R runs all)" if not_run and self.session.run_all is None else ""
        filters = f"class: {CLASS_FILTERS[self.class_filter]} (c) · kind: {self.kind_filter or 'all'} (k) · {len(self.shown())} shown"
        return Content.assemble((counts + hint, "bold"), "\n", literal(filters), "  │  ", literal(self.session.tally(), "italic"))

    def selected_id(self) -> str | None:
        table = self.query_one("#results", ResultsTable)
        if table.row_count == 0:
            return None
        return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value

    def say(self, message: str, kind: str = "info") -> None:
        widget = self.query_one("#results-message", Static)
        widget.set_classes(kind)
        widget.update(literal(message))

    def action_cycle_class(self) -> None:
        """Show only the next failure class (all, not right, each class, not run)."""
        keys = list(CLASS_FILTERS)
        self.class_filter = keys[(keys.index(self.class_filter) + 1) % len(keys)]
        self.fill()

    def action_cycle_kind(self) -> None:
        """Show only the next kind of question (all, answerable, near_miss, off_topic)."""
        self.kind_filter = KIND_FILTERS[(KIND_FILTERS.index(self.kind_filter) + 1) % len(KIND_FILTERS)]
        self.fill()

    def action_close(self) -> None:
        """Back to the main screen."""
        self.app.pop_screen()

    @on(DataTable.RowSelected, "#results")
    def open_selected(self, event: DataTable.RowSelected) -> None:
        self.app.pop_screen()
        self.app.open_question(event.row_key.value)

    def action_write_markdown(self) -> None:
        """Write the rows shown as Markdown (eval's own failure-class section) to a new file in the working directory."""
        shown = self.shown()
        results = [self.session.outcomes[q.id].result for q, _ in shown if q.id in self.session.outcomes]
        not_run = len(shown) - len(results)
        lines = [
            f"# guide-tui results view ({datetime.now():%Y-%m-%d %H:%M})", "",
            f"class: {CLASS_FILTERS[self.class_filter]} · kind: {self.kind_filter or 'all'} · {len(results)} questions"
            + (f" ({not_run} not run yet, left out)" if not_run else ""),
            *failure_class_markdown(results),
        ]  # fmt: skip
        try:
            path = save_export("\n".join(lines) + "\n", f"guide-tui results {datetime.now():%Y%m%d %H%M%S}")  # -2, -3... rather than overwrite
        except OSError as err:
            self.say(f"cannot write the results to {Path.cwd()}: {err.strerror or err}", "error")
            return
        self.say(f"Results written to {path}")

