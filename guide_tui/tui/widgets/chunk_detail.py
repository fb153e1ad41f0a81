"""The chunk pane: why the table's selected row ranks where it does, then its chunk's full text with the
matched words, the best-matching sentence and the answer's quotations marked."""

from __future__ import annotations

import re
from bisect import bisect_left

from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widgets import Static

from guide_tui.inspection import LOOK_PAST, RankExplanation
from guide_tui.report import below_the_line, teacher_cell
from guide_tui.retrieval import FusedPart, Hit
from guide_tui.tui.text import literal

MATCHED_WORD = "bold $text-warning"  # bold survives NO_COLOR
BEST_SENTENCE = "reverse $accent"
QUOTED = "underline $text-success"
QUOTED_MARK = "❝"  # a row the answer quoted, in the table's rank column and here


def sentence_pattern(sentence: str) -> re.Pattern | None:
    """A sentence as it sits in the chunk text: its words with any whitespace between."""
    words = sentence.split()
    return re.compile(r"\s+".join(map(re.escape, words))) if words else None


KEEPS_ITS_LINE = re.compile(r"\s*(?:#|[-*+] |\d+[.)] |\|)")  # headings, list items, table rows


def reflow(text: str) -> tuple[str, list[int]]:
    """A guide's hard-wrapped paragraphs as one line each, so the pane wraps them to its own width, and where
    each character of that was in the text (a joining space: the line break it stands for)."""
    lines: list[tuple[str, list[int]]] = []  # each line shown, and its characters' places in the text
    start = 0
    for line in text.split("\n"):
        last = lines[-1][0] if lines else ""
        if last.strip() and line.strip() and not KEEPS_ITS_LINE.match(line) and not last.lstrip().startswith("#"):
            lead, body = len(line) - len(line.lstrip()), line.strip()
            shown, where = lines[-1]
            lines[-1] = (f"{shown} {body}", where + [start - 1] + list(range(start + lead, start + lead + len(body))))
        else:
            lines.append((line, [start - 1] * bool(lines) + list(range(start, start + len(line)))))  # its line break first
        start += len(line) + 1
    return "\n".join(line for line, _ in lines), [place for _, where in lines for place in where]


def reflowed(text: str) -> str:
    return reflow(text)[0]


def why_detail(why: RankExplanation) -> Content:
    """The row's rank and fused score, the fused score as the sum of its weighted parts (each with the table's
    number it was scaled from), the terms matched, whether the answer quoted it; then the chunk text marked up."""
    hit = why.hit
    place = f"below the cutoff line{below_the_line(hit)}" if below_the_line(hit) else "above the cutoff line (the answer may use it)"
    if hit.let_in:
        place += "\n" + why.let_in_line()
    quoted = f" · {QUOTED_MARK} quoted" if why.quoted else " · not quoted"
    parts: list = [
        literal(hit.chunk.chunk_id, "bold"), literal(f" · {hit.chunk.section} · rank {hit.rank}\n"),
        literal(place), literal(quoted, "bold" if why.quoted else "italic"), "\n",
        literal(f"fused {hit.fused_score:.4f} =", "bold"), "\n",
    ]  # fmt: skip
    for n, (part, term) in enumerate(zip(why.parts, why.part_terms())):
        source = scaled_from(part, hit)
        parts += [literal(f"{'  ' if n == 0 else '+ '}{term}"), literal(f" {source}" if source else "", "dim"), "\n"]
    parts += [
        literal(SCALING, "italic dim"), "\n",
        "terms matched: ", literal(", ".join(why.matched_terms) or "none", MATCHED_WORD), "\n",
        ("bold: a term · ", "italic dim"), ("reversed", f"italic {BEST_SENTENCE}"), (": best sentence · ", "italic dim"),
        ("underlined", f"italic {QUOTED}"), (": quoted", "italic dim"), "\n\n",
    ]  # fmt: skip
    return Content.assemble(*parts) + marked_text(why)


def scaled_from(part: FusedPart, hit: Hit) -> str:
    """The table's number a part was scaled from ("" for a bonus, which is 0 or 1)."""
    if part.name == "vector":
        if hit.by_heading:
            return f"(distance {hit.vector_distance:.4f} of its heading; its best sentence's {hit.best_sentence_distance:.4f})"
        return f"(distance {hit.vector_distance:.4f})"
    if part.name == "keyword":
        return f"(BM25 {hit.keyword_score:.3f} ÷ {hit.keyword_score / part.scaled:.3f})" if part.scaled > 0 else "(BM25 0)"
    if part.name == "teacher":
        return f"(cosine {teacher_cell(hit)})"
    return ""


SCALING = f"scaled 0..1: 1 − distance over the chunks, BM25 ÷ best, cosine over the top {LOOK_PAST}"


def marked_text(why: RankExplanation) -> Content:
    """The chunk's text reflowed, its matched words, best-matching sentence and quoted sentences styled."""
    text, origins = reflow(why.hit.chunk.text)
    content = literal(text)
    for sentence, style in [(why.best_sentence, BEST_SENTENCE)] + [(quote, QUOTED) for quote in why.quoted]:
        pattern = sentence_pattern(sentence)
        if pattern and (found := pattern.search(text)):
            content = content.stylize(style, found.start(), found.end())
    for start, end in why.matched_words:
        content = content.stylize(MATCHED_WORD, bisect_left(origins, start), bisect_left(origins, end))
    return content


class DetailPane(VerticalScroll):
    """Why the table's selected row ranks there and its chunk in full, without leaving the screen; beside the
    answer while shown (F6, Enter on a row)."""

    shown = reactive(False)

    def watch_shown(self, shown: bool) -> None:
        self.set_class(shown, "-shown")

    def on_mount(self) -> None:
        self.border_title = "why this rank"

    def compose(self) -> ComposeResult:
        yield Static(literal("Select a row in the table to see why it ranks there.", "italic"), id="detail-text")

    def show_why(self, why: RankExplanation) -> None:
        self.query_one("#detail-text", Static).update(why_detail(why))
        self.scroll_home(animate=False)
