"""The tuning panel (Ctrl+T): the labelled questions whose outcome changed against the start settings, and the
histogram of best distances with the cutoff in force marked."""

from __future__ import annotations

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from guide_tui.calibration import histogram
from guide_tui.tui.text import literal
from guide_tui.tui.tuning import Scores, changes

PANEL_BIN = 0.04  # twice calibrate's bins: the panel has a dozen rows, not a terminal's length


class HistogramBox(VerticalScroll):
    """Scrolls the histogram's bars; when it takes a new width (the changed list shown or hidden beside it, the
    terminal resized), the bars are drawn again to fill it."""

    def on_resize(self) -> None:
        self.query_ancestor(TuningPanel).redraw()


class TuningPanel(Vertical):
    """Takes the answer and chunk panes' place while shown. Enter on a changed question opens it (app.open_question)."""

    drawn: tuple[Scores, float] | None = None  # what the histogram shows, redrawn at a new width

    def compose(self) -> ComposeResult:
        yield Static(id="tuning-summary")
        with Horizontal(id="tuning-body"):
            yield OptionList(id="tuning-changed")
            with Vertical(id="tuning-histogram-side"):
                yield Static(id="tuning-histogram-head")  # the legend stays in view while the bars scroll
                with HistogramBox(id="tuning-histogram-box"):
                    yield Static(id="tuning-histogram")

    def on_mount(self) -> None:
        self.border_title = "tuning (Ctrl+T hides it)"

    def show(self, baseline: Scores | None, scores: Scores | None, cutoff: float | None, questions: int) -> None:
        """The changed questions of `scores` against `baseline`, and the baseline's best distances around the cutoff."""
        summary = self.query_one("#tuning-summary", Static)
        changed_list = self.query_one("#tuning-changed", OptionList)
        plot = self.query_one("#tuning-histogram", Static)
        if baseline is None or scores is None:
            summary.update(literal(f"scoring the {questions} labelled questions in the background…", "italic"))
            changed_list.clear_options()
            plot.update("")
            self.query_one("#tuning-histogram-head", Static).update("")
            return
        changed = changes(baseline, scores)
        summary.update(Content.assemble(
            (f"{len(changed)} of {len(scores.questions)} labelled questions changed", "bold"),
            " against the start settings" if not changed else " (Enter opens one)",
        ))  # fmt: skip
        # the row being read stays highlighted while the list has the keys; else the first one is
        highlighted = changed_list.highlighted_option.id if changed_list.highlighted_option and changed_list.has_focus else None
        changed_list.clear_options()
        changed_list.add_options([Option(literal(change.line()), id=change.after.question.id) for change in changed])
        ids = [change.after.question.id for change in changed]
        changed_list.display = bool(ids)  # none changed: the histogram gets the whole width
        if ids:
            changed_list.highlighted = ids.index(highlighted) if highlighted in ids else 0
        if cutoff is None:
            plot.update(literal("no cutoff: this index was never calibrated", "italic"))
            return
        self.call_after_refresh(self.draw_histogram, baseline, cutoff)  # once the list has taken its width (or none)

    def redraw(self) -> None:
        if self.drawn is not None:  # the bars take the new width, with the cutoff of the latest show() (read when it runs)
            self.call_after_refresh(lambda: self.draw_histogram(*self.drawn))

    def draw_histogram(self, baseline: Scores, cutoff: float) -> None:
        """calibrate's histogram of the baseline's best distances, scrolled to keep the cutoff line in the middle.
        Not before the box has a width: its first resize draws it then (HistogramBox)."""
        self.drawn = (baseline, cutoff)
        box = self.query_one("#tuning-histogram-box", HistogramBox)
        if not box.scrollable_content_region.width:
            return
        lines = histogram(baseline.measured(), cutoff, columns=box.scrollable_content_region.width, bin_width=PANEL_BIN)
        head, *lines = lines
        self.query_one("#tuning-histogram-head", Static).update(Content.from_rich_text(head))
        self.query_one("#tuning-histogram", Static).update(Content("\n").join(Content.from_rich_text(line) for line in lines))
        rule = next((n for n, line in enumerate(lines) if "cutoff" in line.plain), 0)
        self.call_after_refresh(lambda: box.scroll_to(y=max(0, rule - box.scrollable_content_region.height // 2), animate=False))

    @on(OptionList.OptionSelected, "#tuning-changed")
    def open_changed(self, event: OptionList.OptionSelected) -> None:
        self.app.open_question(event.option.id)
