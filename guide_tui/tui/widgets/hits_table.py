"""The top-5 table (top 20 with F7): above the cutoff line exactly the chunks the answer may use."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import DataTable

from guide_tui.answers import Answer
from guide_tui.inspection import LOOK_PAST
from guide_tui.report import cutoff_split, teacher_cell
from guide_tui.retrieval import TOP_K, Hit, Retrieval, printable
from guide_tui.tui.widgets.chunk_detail import QUOTED_MARK


class HitsTable(DataTable):
    """The top 5 (or 20) chunks with every number behind their order, split by the cutoff line as `guide-tui
    retrieve` splits them (report.cutoff_split): the chunks the answer may use, the line, then every other one."""

    # Fixed widths (a header measured from its rows can be left drawn at the old widths); the numbers'
    # columns never shrink, the source column takes what the terminal has left.
    NUMBERS = (("best-sentence\ndistance", 13), ("keyword\nBM25", 8), ("teacher\ncosine", 7), ("fused", 6))
    RANK_WIDTH = 5  # "20 ◆❝": the rank, the expected chunk's mark and the answer's quotation mark
    MIN_SOURCE_WIDTH = 20
    HEADER_HEIGHT = 2
    ROWS = TOP_K + 1  # the hits and the cutoff row; wider, the table scrolls inside this height

    compact = reactive(False)  # a small terminal: no border
    look_past = reactive(False)  # F7: the top LOOK_PAST, not the top TOP_K

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", header_height=self.HEADER_HEIGHT, **kwargs)
        self.hits: dict[str, Hit] = {}
        self.source_width = 0
        self.retrieval: Retrieval | None = None  # the answer's (top TOP_K)
        self.shown: Retrieval | None = None  # the rows: the answer's retrieval, or the question's top LOOK_PAST
        self.expected: tuple[str, ...] = ()
        self.below: set[int] = set()  # the ranks of the rows below the cutoff line
        self.answer: Answer | None = None  # once the answer to the question shown has come
        self.watch_compact(False)

    def watch_compact(self, compact: bool) -> None:
        """As tall as its header, every row it can show and its border: fixed, so filling it never re-lays out the screen."""
        self.styles.height = self.HEADER_HEIGHT + self.ROWS + (0 if compact else 2)

    def watch_look_past(self, look_past: bool) -> None:
        self.border_title = f"top {LOOK_PAST if look_past else TOP_K} chunks" + (f" (the answer is given the top {TOP_K})" if look_past else "")

    def on_mount(self) -> None:
        self.watch_look_past(self.look_past)

    def on_resize(self) -> None:
        columns = 2 + len(self.NUMBERS)
        fixed = self.RANK_WIDTH + sum(width for _, width in self.NUMBERS) + 2 * self.cell_padding * columns
        width = max(self.MIN_SOURCE_WIDTH, self.scrollable_content_region.width - fixed)
        if width != self.source_width:
            self.source_width = width
            self.clear(columns=True)
            for label, width in (("#", self.RANK_WIDTH), ("source: file § section", width), *self.NUMBERS):
                self.add_column(Text(label), width=width, key=label)
            if self.shown:
                self.fill()

    def show(self, retrieval: Retrieval, expected: tuple[str, ...] = (), wide: Retrieval | None = None) -> None:
        """The answer's retrieval, or with `wide` (the same question's top LOOK_PAST, whose first TOP_K are the
        answer's) that one's rows: the chunks the answer may use, the cutoff line, every other chunk dimmed
        (✗ beyond the cutoff). The answer's quotation marks stay while the retrieval is the same (F7)."""
        if retrieval is not self.retrieval:
            self.answer = None
        self.retrieval, self.expected = retrieval, expected
        self.shown = wide or retrieval
        self.fill()

    def fill(self) -> None:
        self.clear()
        self.hits = {}
        retrieval = self.shown
        cutoff = retrieval.gate.cutoff
        within, below = cutoff_split(retrieval)
        self.below = {hit.rank for hit in below}
        for hit in within:
            self.add_hit_row(hit)
        if retrieval.hits and (cutoff is not None or below):  # unlike the CLI, the app shows the line below an all-within top 5 too
            self.add_cutoff_row(cutoff)  # and with no cutoff (--no-gate), the line under the top 5 of the top 20
        for hit in below:
            self.add_hit_row(hit)
        marks = ["h: the heading's distance (a list or a section's topic)"] * any(hit.by_heading for hit in retrieval.hits)
        marks += ["t: let in past the cutoff by the teacher"] * any(hit.let_in for hit in retrieval.hits)
        self.border_subtitle = " · ".join(marks)

    def show_answer(self, answer: Answer) -> None:
        """Mark the rows the answer quoted (when it answers the question shown)."""
        if self.retrieval is None or answer.retrieval.question != self.retrieval.question:
            return
        self.answer = answer
        for key, hit in self.hits.items():
            self.update_cell(key, "#", self.rank_cell(hit))

    def quoted(self) -> set[str]:
        """The chunk ids the answer quoted."""
        if self.answer is None or self.answer.refused:
            return set()
        return {citation.chunk_id for citation in self.answer.citations}

    BEYOND_CUTOFF = "italic grey62"  # not "dim": in 256 colours that drew grey 237 on grey 234; italic survives NO_COLOR

    def add_cutoff_row(self, cutoff: float | None) -> None:
        style = "bold red"
        shown = "none" if cutoff is None else f"{cutoff:.4f}"
        label = Text(f"── cutoff {shown} ──", style=style)
        self.add_row(Text(""), label, Text("" if cutoff is None else f"> {shown} ✗", style=style), Text(""), Text(""), Text(""), key="cutoff")

    def rank_cell(self, hit: Hit) -> Text:
        rank = Text(str(hit.rank), style=self.row_style(hit))
        if hit.chunk.chunk_id in self.expected:
            rank.append(" ◆", style="bold green")
        if hit.chunk.chunk_id in self.quoted():
            rank.append(("" if hit.chunk.chunk_id in self.expected else " ") + QUOTED_MARK, style="bold")
        return rank

    def row_style(self, hit: Hit) -> str:
        return self.BEYOND_CUTOFF if hit.rank in self.below else ""

    def add_hit_row(self, hit: Hit) -> None:
        style = self.row_style(hit)
        key = f"hit-{hit.rank}"
        self.hits[key] = hit
        self.add_row(
            self.rank_cell(hit),
            Text(printable(f"{hit.chunk.chunk_id} § {hit.chunk.section}"), style=style),
            Text(f"{hit.distance_text()}{' ✗' if hit.above_cutoff else ''}", style=style),
            Text(f"{hit.keyword_score:.3f}", style=style),
            Text(teacher_cell(hit), style=style),
            Text(f"{hit.fused_score:.4f}", style=style),
            key=key,
        )

    def hit_at_cursor(self) -> Hit | None:
        if not self.row_count:
            return None
        row_key, _ = self.coordinate_to_cell_key(self.cursor_coordinate)
        return self.hits.get(row_key.value)

    def move_to(self, hit: Hit | None) -> None:
        """Put the cursor on this hit's row (the first row when it is not shown)."""
        rows = [key.value for key in self.rows]
        key = next((key for key, shown in self.hits.items() if hit is not None and shown.chunk.chunk_id == hit.chunk.chunk_id), None)
        self.move_cursor(row=rows.index(key) if key in rows else 0)
