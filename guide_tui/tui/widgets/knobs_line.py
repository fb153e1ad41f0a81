"""The knobs line: every live knob's value (marked where it differs from the saved settings) and the eval Δ."""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

from guide_tui.settings import RetrievalSettings
from guide_tui.tui.tuning import LIVE_KNOBS, MEASURES, Scores, knob_values

CHANGED = "bold $accent"


class KnobsLine(Static):
    """Hidden until the knobs are first moved (or the panel opened, or saved knobs differ from the defaults); then
    two lines: the knobs, and the Δ of the labelled questions against the settings the app started with."""

    shown: tuple | None = None  # what show() was last given, drawn again at a new width

    def show(self, settings: RetrievalSettings, saved: RetrievalSettings, index_cutoff: float | None, delta: Content) -> None:
        """The knobs on one line (compact when the full line is wider than the widget: wrapped, it would push the Δ out)."""
        self.add_class("-active")
        self.shown = (settings, saved, index_cutoff, delta)
        line = knobs_content(settings, saved, index_cutoff)
        if line.cell_length > self.content_region.width > 0:
            line = knobs_content(settings, saved, index_cutoff, compact=True)
        self.update(Content.assemble(line, "\n", delta))

    def on_resize(self) -> None:
        if self.shown is not None:
            self.show(*self.shown)


def knobs_content(settings: RetrievalSettings, saved: RetrievalSettings, index_cutoff: float | None, compact: bool = False) -> Content:
    """ "knobs cutoff 0.4845*  vector 0.70  ...": a value that differs from the saved one is bold and starred.
    Compact ("cutoff 0.4845* vector 0.70 ..."): every knob fits 80 columns."""
    now, before = knob_values(settings, index_cutoff), knob_values(saved, index_cutoff)
    gap = " " if compact else "  "
    pieces: list = [] if compact else [("knobs ", "bold")]
    for n, knob in enumerate(LIVE_KNOBS):
        value = now[knob.name]
        text = "none" if value is None else f"{value:.4f}" if knob.name == "cutoff" else f"{value:.2f}"
        changed = value != before[knob.name]
        pieces += [gap if n else "", f"{knob.label} ", (text + ("*" if changed else ""), CHANGED if changed else "")]
    if now != before:
        pieces.append((f"{gap}(*: not saved; Ctrl+S saves)", "italic"))
    return Content.assemble(*pieces)


def delta_content(baseline: Scores | None, scores: Scores | None, questions: int, scoring: bool) -> Content:
    """ "Δ rank-1 94/99 +1  hit@5 ...", or what is being computed (scoring: a re-score is waiting or running)."""
    if baseline is None or scores is None:
        if scoring:
            return Content.styled(f"Δ: scoring the {questions} labelled questions in the background…", "italic")
        return Content.styled(f"Δ: a knob move (or Ctrl+T) scores the {questions} labelled questions against these settings", "italic")
    pieces: list = [("Δ " + ("(re-scoring…) " if scoring else ""), "bold")]
    for n, measure in enumerate(MEASURES):
        passed, total = scores.count(measure)
        change = passed - baseline.count(measure)[0]
        style = "bold $success" if change > 0 else "bold $error" if change < 0 else ""
        pieces += ["  " if n else "", f"{measure} {passed}/{total} ", (f"{change:+d}", style)]
    pieces.append(("  against the start settings", "italic"))
    return Content.assemble(*pieces)
