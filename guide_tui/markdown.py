"""Markdown exports of what the screen shows: one question's table and answer, and the eval's per-question
results, so a tuner can paste them into an issue or a note (the JSON outputs stay the machine format)."""

from __future__ import annotations

from guide_tui.evaluation import FAILURE_CLASSES, QuestionResult, cell
from guide_tui.report import cutoff_split, no_hits_message, teacher_cell, why_lines
from guide_tui.retrieval import Retrieval, Retriever


def question_markdown(retriever: Retriever, retrieval: Retrieval, answer=None, why: bool = False) -> str:
    """The question, its gate, its table (the cutoff line where the answer's chunks end, as on screen), each
    row's explanation when `why`, and the answer with its sources when one is given."""
    gate = retrieval.gate
    cutoff = "none" if gate.cutoff is None else f"{gate.cutoff:.4f}"
    lines = [f"## {cell(retrieval.question or '(empty question)')}", ""]
    if message := no_hits_message(retrieval):
        lines += [message, ""]
    else:
        verdict = "passed" if gate.passed else "refused"
        lines += [f"Gate {verdict}: best distance {gate.best_distance:.4f}, cutoff {cutoff}. Rows above the cutoff line are what the answer may use; ✗ = beyond the cutoff.", ""]
        quoted = set() if answer is None or answer.refused else {c.chunk_id for c in answer.citations}
        header = ["#", "chunk", "section", "distance (best sentence)", "keyword BM25", "teacher cosine", "fused"]
        header += ["quoted"] if answer is not None else []
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        within, beyond = cutoff_split(retrieval)
        for n, hit in enumerate(within + beyond):
            if n == len(within):
                lines.append("| " + " | ".join(["", f"**cutoff {cutoff}**", "", f"> {cutoff}"] + [""] * (len(header) - 4)) + " |")
            row = [
                str(hit.rank), f"`{hit.chunk.chunk_id}`", cell(hit.chunk.section),
                f"{hit.vector_distance:.4f}{' ✗' if hit.above_cutoff else ''}", f"{hit.keyword_score:.4f}",
                teacher_cell(hit), f"{hit.fused_score:.4f}",
            ]  # fmt: skip
            row += (["✓" if hit.chunk.chunk_id in quoted else ""] if answer is not None else [])
            lines.append("| " + " | ".join(row) + " |")
        lines.append("")
        if why:
            lines += ["```", *why_lines(retriever, retrieval, answer), "```", ""]
    if answer is not None:
        lines += answer_markdown(answer)
    return "\n".join(lines).rstrip() + "\n"


def answer_markdown(answer) -> list[str]:
    """The answer as a quotation block, then its sources, or the refusal and why."""
    said = "Refused" + (f" ({answer.refusal_reason})" if answer.refusal_reason else "") if answer.refused else f"Answer ({answer.generator})"
    lines = [f"**{said}:**", ""] + [f"> {line}" if line else ">" for line in answer.text.splitlines()] + [""]
    for sentence in answer.unsupported:
        lines.append(f"- Not supported by the guides: {sentence}")
    if answer.sources():
        lines.append("Sources: " + ", ".join(f"{file} ({section})" for file, section in answer.sources()))
    return lines


def results_markdown(results: list[QuestionResult]) -> str:
    """The eval's results view: every question with its kind, failure class and where its expected chunk went."""
    lines = ["| question | kind | class | expected | came back |", "|---|---|---|---|---|"]
    for r in results:
        run = f" (run {r.run})" if r.run > 1 else ""
        lines.append(
            f"| `{cell(r.id)}`{run} | {cell(r.kind)} | {FAILURE_CLASSES[r.failure_class]} | {cell(r.expected_line)} | {cell(r.came_back)} |"
        )
    return "\n".join(lines) + "\n"
