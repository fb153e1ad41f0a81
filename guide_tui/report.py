"""Plain CLI output for `retrieve` and `ask`: Rich tables for people, JSON lines for programs."""

from __future__ import annotations

import json
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from guide_tui.indexes import load_index
from guide_tui.retrieval import Retrieval, Retriever


def open_retriever(index_dir: Path) -> Retriever:
    """Load the index (raising IndexLoadError with a fix) and say any notes about it on stderr."""
    index = load_index(index_dir)
    for note in index.notes:
        Console(stderr=True).print(Text(f"note: {note}"))
    return Retriever(index)


def retrieval_table(retrieval: Retrieval) -> Table:
    """The top-5 table; the cutoff row sits where the distances cross it."""
    gate = retrieval.gate
    cutoff = "none" if gate.cutoff is None else f"{gate.cutoff:.4f}"
    verdict = "passed" if gate.passed else "refused"
    table = Table(title=Text(retrieval.question or "(empty question)"), caption=f"gate {verdict}: best distance {gate.best_distance:.4f}, cutoff {cutoff}")
    for name, justify in (
        ("#", "right"),
        ("chunk", "left"),
        ("section", "left"),
        ("best-sentence distance", "right"),
        ("keyword BM25", "right"),
        ("fused (RRF)", "right"),
    ):
        table.add_column(name, justify=justify)
    cutoff_drawn = False
    for hit in sorted(retrieval.hits, key=lambda h: h.rank):
        if hit.above_cutoff and not cutoff_drawn:
            table.add_row("", Text(f"── cutoff {cutoff} ──", style="bold red"), "", "", "", "")
            cutoff_drawn = True
        table.add_row(
            str(hit.rank),
            Text(hit.chunk.chunk_id),
            Text(hit.chunk.section),
            f"{hit.vector_distance:.4f}",
            f"{hit.keyword_score:.3f}",
            f"{hit.fused_score:.4f}",
            style="dim" if hit.above_cutoff else None,
        )
    return table


def print_retrievals(index_dir: Path, questions: list[str], as_json: bool) -> int:
    retriever = open_retriever(index_dir)
    console = Console(highlight=False)
    for question in questions:
        retrieval = retriever.retrieve(question)
        if as_json:
            print(json.dumps(retrieval.to_json(), ensure_ascii=False), flush=True)
        else:
            console.print(retrieval_table(retrieval))
    return 0


def print_answers(index_dir: Path, questions: list[str], as_json: bool, generator: str, model: str | None, show_prompt: bool) -> int:
    raise NotImplementedError("ask lands with the answerer")
