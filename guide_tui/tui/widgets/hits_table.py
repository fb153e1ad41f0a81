"""The top-5 table."""

from __future__ import annotations

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import DataTable

from guide_tui.report import cutoff_row_at, teacher_cell
from guide_tui.retrieval import TOP_K, Hit, Retrieval, printable


class HitsTable(DataTable):
    """The top-5 chunks with every number behind their order; the cutoff is a row where the distances cross it."""

    # Fixed widths (a header measured from its rows can be left drawn at the old widths); the numbers'
    # columns never shrink, the source column takes what the terminal has left.
    NUMBERS = (("best-sentence\ndistance", 13), ("keyword\nBM25", 8), ("teacher\ncosine", 7), ("fused", 6))
    RANK_WIDTH = 3
    MIN_SOURCE_WIDTH = 20
    HEADER_HEIGHT = 2
    ROWS = TOP_K + 1  # the hits and the cutoff row

    compact = reactive(False)  # a small terminal: no border

    def __init__(self, **kwargs) -> None:
        super().__init__(cursor_type="row", header_height=self.HEADER_HEIGHT, **kwargs)
        self.hits: dict[str, Hit] = {}
        self.source_width = 0
        self.shown: tuple[Retrieval, tuple[str, ...]] | None = None
        self.watch_compact(False)

    def watch_compact(self, compact: bool) -> None:
        """As tall as its header, every row it can show and its border: fixed, so filling it never re-lays out the screen."""
        self.styles.height = self.HEADER_HEIGHT + self.ROWS + (0 if compact else 2)

    def on_mount(self) -> None:
        self.border_title = f"top {TOP_K} chunks"

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
                self.show(*self.shown)

    def show(self, retrieval: Retrieval, expected: tuple[str, ...] = ()) -> None:
        """Rows in fused order; as in `guide-tui retrieve`, the cutoff row goes where the distances cross it
        for good, and every chunk beyond the cutoff is dimmed and marked ✗ (the fused order may put a
        closer chunk below a farther one)."""
        self.clear()
        self.hits = {}
        self.shown = (retrieval, expected)
        hits = retrieval.hits
        cutoff = retrieval.gate.cutoff
        crossing = cutoff_row_at(hits)
        for n, hit in enumerate(hits):
            if n == crossing:  # a hit beyond the cutoff means there is a cutoff
                self.add_cutoff_row(cutoff)
            self.add_hit_row(hit, expected)
        if crossing is None and cutoff is not None and hits:  # unlike the CLI, the app shows the cutoff below an all-within top 5
            self.add_cutoff_row(cutoff)

    BEYOND_CUTOFF = "italic grey62"  # not "dim": in 256 colours that drew grey 237 on grey 234; italic survives NO_COLOR

    def add_cutoff_row(self, cutoff: float) -> None:
        style = "bold red"
        label = Text(f"── cutoff {cutoff:.4f} ──", style=style)
        self.add_row(Text(""), label, Text(f"> {cutoff:.4f} ✗", style=style), Text(""), Text(""), Text(""), key="cutoff")

    def add_hit_row(self, hit: Hit, expected: tuple[str, ...]) -> None:
        style = self.BEYOND_CUTOFF if hit.above_cutoff else ""
        rank = Text(str(hit.rank), style=style)
        if hit.chunk.chunk_id in expected:
            rank.append(" ◆", style="bold green")
        key = f"hit-{hit.rank}"
        self.hits[key] = hit
        self.add_row(
            rank,
            Text(printable(f"{hit.chunk.chunk_id} § {hit.chunk.section}"), style=style),
            Text(f"{hit.vector_distance:.4f}{' ✗' if hit.above_cutoff else ''}", style=style),
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
