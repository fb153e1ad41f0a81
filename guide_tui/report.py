"""Plain CLI output for `retrieve` and `ask`: Rich tables for people, JSON lines for programs."""

from __future__ import annotations

import itertools
import json
import re
import sys
from pathlib import Path

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from guide_tui.answerability import verdict_lines
from guide_tui.indexes import load_index, require_cutoff
from guide_tui.retrieval import TOP_K, Hit, Retrieval, Retriever, shortened_note
from guide_tui.settings import RetrievalSettings


def open_retriever(
    index_dir: Path, rebuild_if_stale: bool = True, gate: bool = True, settings: RetrievalSettings = RetrievalSettings()
) -> Retriever:
    """Load the index (raising IndexLoadError with a fix) and say any notes about it on stderr.
    rebuild_if_stale goes to load_index (calibration wants the index as built, not rebuilt);
    gate: refuse an index without a cutoff (off for --no-gate, calibrate and eval); settings: the retrieval knobs."""
    index = load_index(index_dir, rebuild_if_stale=rebuild_if_stale)
    if gate:
        require_cutoff(index, index_dir)
    for note in index.notes:
        Console(stderr=True).print(Text(f"note: {note}"))
    return Retriever(index, settings.fusion, settings.cutoff)


def cutoff_split(retrieval: Retrieval) -> tuple[list[Hit], list[Hit]]:
    """The rows above the cutoff line, exactly the chunks an answer may use (within the cutoff among the top
    TOP_K, which is all an answer is given, however far the table looks), and the rows below it, every other
    hit; each in rank order. Every table draws its line between."""
    within = [hit for hit in retrieval.hits[:TOP_K] if not hit.above_cutoff]
    return within, [hit for hit in retrieval.hits if hit.rank > TOP_K or hit.above_cutoff]


def retrieval_table(retrieval: Retrieval) -> Table:
    """The top-k table: the chunks the answer may use in rank order, the cutoff line, then every other
    chunk (dimmed; ✗ beyond the cutoff) in rank order (cutoff_split). Chunk ids never wrap (they are what
    you copy); section names wrap on narrow terminals."""
    gate = retrieval.gate
    cutoff = gate.cutoff_text()
    verdict = "passed" if gate.passed else "refused"
    past = f"; rows past the top {TOP_K} are below the line too (an answer is given the top {TOP_K})" if len(retrieval.hits) > TOP_K else ""
    table = Table(
        title=Text(retrieval.question or "(empty question)"),
        caption=(
            f"gate {verdict}: best distance {gate.best_distance:.4f}, cutoff {cutoff}; above the line: what the answer may use; ✗ dimmed = beyond the cutoff"
            + distance_notes(retrieval) + past
        ),
        title_justify="left",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
    )
    table.add_column("#", justify="right", no_wrap=True)
    table.add_column("chunk", no_wrap=True, min_width=max([len(h.chunk.chunk_id) for h in retrieval.hits] or [5]))
    table.add_column("section", overflow="fold", ratio=1)
    table.add_column("distance\n(best\nsentence)", justify="right", no_wrap=True)
    table.add_column("keyword\nBM25", justify="right", no_wrap=True)
    table.add_column("teacher\ncosine", justify="right", no_wrap=True)
    table.add_column("fused", justify="right", no_wrap=True)
    within, beyond = cutoff_split(retrieval)
    for n, hit in enumerate(within + beyond):
        if n == len(within):
            table.add_row("", Text(f"── cutoff {cutoff} ──", style="bold red"), "", Text(f"> {cutoff}", style="bold red"), "", "", "")
        table.add_row(
            str(hit.rank),
            Text(hit.chunk.chunk_id),
            Text(hit.chunk.section),
            f"{hit.distance_text()}{' ✗' if hit.above_cutoff else '  '}",
            f"{hit.keyword_score:.4f}",
            teacher_cell(hit),
            f"{hit.fused_score:.4f}",
            style="dim" if n >= len(within) else None,
        )
    return table


def why_lines(retriever: Retriever, retrieval: Retrieval, answer=None) -> list[str]:
    """Every row's explanation (inspection.explain), in the table's order: `#rank chunk`, then its lines indented."""
    from guide_tui.inspection import explain

    within, beyond = cutoff_split(retrieval)
    lines = []
    for hit in within + beyond:
        lines.append(f"#{hit.rank} {hit.chunk.chunk_id}{below_the_line(hit)}")
        lines += [f"    {line}" for line in explain(retriever, retrieval, hit, answer).lines()]
    return lines


def below_the_line(hit: Hit) -> str:
    """Why a row is below the cutoff line, for its why heading ("" for a row above it)."""
    if hit.above_cutoff:
        return " (beyond the cutoff)"
    return f" (past the top {TOP_K}: not given to the answer)" if hit.rank > TOP_K else ""


def retrieval_json(retriever: Retriever, retrieval: Retrieval, why: bool) -> dict:
    """`retrieve --json`: Retrieval.to_json (each hit's fused score in its parts) and the chunks above the
    cutoff line; with --why each hit's matched terms and best sentence too."""
    from guide_tui.inspection import explain

    record = retrieval.to_json()
    for row, hit in zip(record["retrieved"], retrieval.hits):
        if why:
            explanation = explain(retriever, retrieval, hit)
            row["matched_terms"] = list(explanation.matched_terms)
            row["best_sentence"] = explanation.best_sentence
    record["within_cutoff"] = [hit.chunk.chunk_id for hit in cutoff_split(retrieval)[0]]  # the rows above the cutoff line
    return record


def distance_notes(retrieval: Retrieval) -> str:
    """The distance marks a table uses, explained: "; h = ..." for a heading's distance, "; t = ..." for a row the
    teacher let in past the cutoff ("" for none)."""
    notes = []
    if any(h.by_heading for h in retrieval.hits):
        notes.append("h = the distance of the chunk's heading (a list question, or one after a section's topic), nearer than its best sentence")
    if any(h.let_in for h in retrieval.hits):
        notes.append("t = beyond the cutoff but let in: about the town asked, and the teacher finds it nearly as close as the best row")
    return "".join(f"; {note}" for note in notes)


def teacher_cell(hit: Hit) -> str:
    """The teacher's cosine for the table: "-" for a chunk it did not re-score (outside its pool, or no teacher)."""
    return "-" if hit.teacher_similarity is None else f"{hit.teacher_similarity:.4f}"


ECHOED = 80  # a question echoed in a message is cut to this many characters: a pasted page would fill the screen


def clipped(text: str, limit: int) -> str:
    """The text, or its first limit - 1 characters and "…" when it is longer than limit."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def no_hits_message(retrieval: Retrieval) -> str | None:
    """Why there is no table to show, or None when there is one."""
    if not retrieval.question:
        return "empty question: nothing to look up (ask something about the guides)"
    if not retrieval.hits:
        return f"{clipped(retrieval.question, ECHOED)!r}: no word of it matches anything in the guides; refused"
    return None


def say_how_it_was_read(asked: str, retrieval: Retrieval) -> None:
    """A note on stderr when the question was not read word for word ('read "the headland" as Elder Ness', or cut short)."""
    shortened = shortened_note(asked)
    for note in ([shortened] if shortened else []) + retrieval.reading_notes:
        print(f"note: {note}", file=sys.stderr, flush=True)


def print_retrievals(
    index_dir: Path, questions: list[str], as_json: bool, gate: bool = True, k: int = TOP_K, why: bool = False, markdown: bool = False,
    settings: RetrievalSettings = RetrievalSettings(),
) -> int:
    """`guide-tui retrieve`: the top-k table (with --why each row's explanation under it), or JSON, or Markdown."""
    retriever = open_retriever(index_dir, gate=gate, settings=settings)
    console = Console(highlight=False)
    for n, question in enumerate(questions):
        retrieval = retriever.retrieve(question, k=k)
        if not as_json:
            say_how_it_was_read(question, retrieval)
        if as_json:
            print(json.dumps(retrieval_json(retriever, retrieval, why), ensure_ascii=False), flush=True)
        elif markdown:
            print(("\n" if n else "") + question_markdown(retriever, retrieval, why=why), flush=True)
        elif message := no_hits_message(retrieval):
            console.print(Text(message))
        else:
            console.print(retrieval_table(retrieval))
            if why:
                print("\n".join(why_lines(retriever, retrieval)) + "\n", flush=True)
    return 0


def print_answers(
    index_dir: Path, questions: list[str], as_json: bool, generator: str, model: str | None, show_prompt: bool, gate: bool = True,
    markdown: bool = False, settings: RetrievalSettings = RetrievalSettings(),
) -> int:
    """`guide-tui ask`: each answer, then `Sources: file.md (Section), ...` (none for a refusal);
    --json: one Answer.to_json object a line; --markdown: the table and the answer (question_markdown).
    Plain print, unwrapped: guide and question text is
    shown as written (no Rich markup), and lines can be copied whole. Why Ollama was not used is said on stderr
    once per distinct reason, not once per question."""
    from guide_tui.answering import answer_question

    retriever = open_retriever(index_dir, gate=gate, settings=settings)
    fallbacks_said: set[str] = set()
    for n, question in enumerate(questions):
        retrieval = retriever.retrieve(question)
        prompt = ollama_prompt(retrieval) if show_prompt else None
        answer = answer_question(retriever, question, generator=generator, model=model, retrieval=retrieval)
        if answer.fallback_reason and answer.fallback_reason not in fallbacks_said:
            fallbacks_said.add(answer.fallback_reason)
            print(f"note: {answer.fallback_reason}", file=sys.stderr, flush=True)
        if not as_json:
            say_how_it_was_read(question, retrieval)
        if answer.refused and not as_json and (why := no_hits_message(answer.retrieval)):  # as `retrieve` explains it
            print(f"note: {why}", file=sys.stderr, flush=True)
        if as_json:
            record = answer.to_json() | ({"prompt": prompt} if show_prompt else {})
            print(json.dumps(record, ensure_ascii=False), flush=True)
            continue
        if markdown:
            print(("\n" if n else "") + question_markdown(retriever, retrieval, answer), flush=True)
            continue
        lines = [f"Q: {answer.question or '(empty question)'}"] if len(questions) > 1 else []
        if prompt is not None:
            lines += [prompt, "----- answer -----"]
        lines.append(answer.text)
        lines += flag_lines(answer)
        if answer.sources():
            lines.append("Sources: " + ", ".join(f"{file} ({section})" for file, section in answer.sources()))
        if answer.check_note:
            lines.append(f"Claim check: {answer.check_note}")
        print(("\n" if n else "") + "\n".join(lines), flush=True)
    return 0


def flag_lines(answer) -> list[str]:
    """Each unsupported sentence, and under it why and the guide sentence it was compared with."""
    lines = []
    reasons = {flag.sentence: flag for flag in answer.flags}
    for sentence in answer.unsupported:
        lines.append(f"Not supported by the guides: {sentence}")
        flag = reasons.get(sentence)
        if flag is not None:
            source = f'; the guide: "{flag.source.quote}" ({flag.source.file}, {flag.source.section})' if flag.source else ""
            lines.append(f"  why: {flag.reason}{source}")
    return lines


def ollama_prompt(retrieval: Retrieval) -> str:
    """The prompt exactly as Ollama is sent it for this retrieval (it is sent only when the question
    passes the gate and the answerability check and Ollama is the generator)."""
    try:
        from guide_tui.ollama_answerer import build_prompt, format_prompt
    except ImportError as err:
        return f"(no prompt: Ollama support is not available: {err})"
    if not retrieval.within_cutoff:
        return "(no prompt: no retrieved chunk is within the cutoff, so nothing would be sent to Ollama)"
    return format_prompt(build_prompt(retrieval, retrieval.question))


# ---------------------------------------------------------------- Markdown exports


def cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def question_markdown(retriever: Retriever, retrieval: Retrieval, answer=None, why: bool = False) -> str:
    """The question, its gate, its table (the cutoff line where the answer's chunks end, as on screen), each
    row's explanation when `why`, and the answer with its sources when one is given."""
    gate = retrieval.gate
    cutoff = gate.cutoff_text()
    lines = [f"## {cell(retrieval.question or '(empty question)')}", ""]
    if retrieval.reading_notes:
        lines += [f"Retrieval and the answer {cell('; '.join(retrieval.reading_notes))}: {cell(retrieval.read_as)}", ""]
    if message := no_hits_message(retrieval):
        lines += [message, ""]
    else:
        verdict = "passed" if gate.passed else "refused"
        gate_line = f"Gate {verdict}: best distance {gate.best_distance:.4f}, cutoff {cutoff}."
        lines += [f"{gate_line} Rows above the cutoff line are what the answer may use; ✗ = beyond the cutoff{distance_notes(retrieval)}.", ""]
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
                f"{hit.distance_text()}{' ✗' if hit.above_cutoff else ''}", f"{hit.keyword_score:.4f}",
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


def export_stem(question: str, most: int = 60) -> str:
    """A safe file name for the question's export: its letters and digits, lower-cased, words joined by "-"."""
    words = re.findall(r"[a-z0-9]+", question.lower())
    stem = ""
    for word in words:
        if stem and len(stem) + 1 + len(word) > most:
            break
        stem = f"{stem}-{word}" if stem else word[:most]
    return stem or "question"


def save_export(markdown: str, question: str, folder: Path | None = None) -> Path:
    """Write the Markdown to <folder, default the current one>/<export_stem>.md, never over a file already
    there (-2, -3, ... are added); the full path written. Raises OSError when the folder cannot be written."""
    folder = Path.cwd() if folder is None else folder
    stem = export_stem(question)
    for n in itertools.count(1):
        path = (folder / (stem if n == 1 else f"{stem}-{n}")).with_suffix(".md").absolute()
        try:
            with path.open("x", encoding="utf-8") as out:
                out.write(markdown)
        except FileExistsError:
            continue
        return path


def answer_markdown(answer) -> list[str]:
    """The answer as a quotation block, then its sources, or the refusal and why, then the answerability model's word
    on each part as the app's answer pane gives it (answerability.verdict_lines)."""
    said = "Refused" + (f" ({answer.refusal_reason})" if answer.refusal_reason else "") if answer.refused else f"Answer ({answer.generator})"
    lines = [f"**{said}:**", ""] + [f"> {line}" if line else ">" for line in answer.text.splitlines()] + [""]
    for sentence in answer.unsupported:
        lines.append(f"- Not supported by the guides: {sentence}")
    if answer.sources():
        lines.append("Sources: " + ", ".join(f"{file} ({section})" for file, section in answer.sources()))
    verdicts = verdict_lines(answer.verdicts)
    return lines + ([""] + [f"- {line}" for line in verdicts] if verdicts else [])
