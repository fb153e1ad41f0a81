"""Set the relevance cutoff from the labelled questions: `guide-tui calibrate`.

Every labelled question is retrieved and its best vector distance recorded. The
cutoff must let in-corpus ("answerable") questions through - at most the question file's
`answerable_refused_max` target of them may be refused - and, within that, refuse as many
off-topic questions as possible. Near-miss questions ("Is there a cinema in
Kestrelford?") sit as close to the guides as answerable ones by design; the
answerability check refuses those, so they are reported here but never move the
cutoff. The chosen value goes into the index manifest, where the retriever reads it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table
from rich.text import Text

from guide_tui.embedding import Embedder
from guide_tui.indexes import load_index, set_cutoff, timestamp
from guide_tui.questions import Question, QuestionSet, load_questions
from guide_tui.report import open_retriever
from guide_tui.retrieval import Retriever

REFUSED_MAX_TARGET = "answerable_refused_max"  # the question file's [targets] entry: the share of in-corpus questions the gate may refuse
HISTOGRAM_BIN = 0.02
HISTOGRAM_BAR_MAX = 40  # characters for the tallest bar on a wide terminal
KIND_LABELS = {"answerable": "in-corpus", "near_miss": "near-miss", "off_topic": "off-topic"}
BAR_CHARS = {"answerable": "█", "near_miss": "▒", "off_topic": "░"}
BAR_STYLES = {"answerable": "green", "near_miss": "yellow", "off_topic": "red"}


@dataclass(frozen=True)
class Measured:
    question: Question
    best_distance: float


@dataclass(frozen=True)
class Choice:
    """A cutoff and what it does to the two classes it is chosen on."""

    value: float
    method: str
    separated: bool  # every in-corpus question passes and every off-topic one is refused
    in_corpus_refused: int
    off_topic_passed: int
    margin_in_corpus: float | None  # cutoff minus the highest in-corpus distance that passes
    margin_off_topic: float | None  # lowest off-topic distance that is refused minus the cutoff
    refused_max: float = 0.0  # the share of in-corpus questions it was allowed to refuse


def refused_max_of(question_set: QuestionSet) -> float:
    """The share of in-corpus questions the gate may refuse: the question file's target; none when it sets no target."""
    return float(question_set.targets.get(REFUSED_MAX_TARGET, 0.0))


def choose_cutoff(in_corpus: list[float], off_topic: list[float], refused_max: float) -> Choice:
    """The cutoff that lets through all but at most `refused_max` of the in-corpus distances and,
    within that, the fewest off-topic ones; it sits midway in the gap above the last in-corpus
    distance it keeps, so both sides get the same margin. Rounded to 4 places, never below that
    distance: rounding must not refuse the very question the cutoff was chosen to keep."""
    if not in_corpus:
        raise ValueError("calibration needs at least one in-corpus (answerable) question")
    kept_sorted = sorted(in_corpus)
    off_sorted = sorted(off_topic)
    allowed = math.floor(refused_max * len(kept_sorted))
    best: Choice | None = None
    for refused in range(allowed + 1):
        highest_kept = kept_sorted[len(kept_sorted) - 1 - refused]
        above = [d for d in off_sorted if d > highest_kept]
        if above:
            value = (highest_kept + above[0]) / 2
            method = f"midpoint between the {nth_highest(refused)} in-corpus distance and the next off-topic one above it"
        else:
            value = highest_kept
            method = f"the {nth_highest(refused)} in-corpus distance (no off-topic question lies above it)"
        value = max(round(value, 4), round_up(highest_kept, 4))
        passed = sum(d <= value for d in off_sorted)
        choice = Choice(
            value=value,
            method=method,
            separated=refused == 0 and passed == 0 and bool(off_sorted),
            in_corpus_refused=sum(d > value for d in kept_sorted),
            off_topic_passed=passed,
            margin_in_corpus=round(value - max(d for d in kept_sorted if d <= value), 4),
            margin_off_topic=round(min(d for d in off_sorted if d > value) - value, 4) if passed < len(off_sorted) else None,
            refused_max=refused_max,
        )
        if best is None or choice.off_topic_passed < best.off_topic_passed:
            best = choice  # refusing one more in-corpus question must buy at least one more off-topic refusal
    return best


def round_up(value: float, places: int) -> float:
    """The smallest number of `places` decimals that is not below value."""
    rounded = round(value, places)
    return rounded if rounded >= value else round(rounded + 10**-places, places)


def nth_highest(skipped: int) -> str:
    return "highest" if skipped == 0 else f"{skipped + 1}{'nd' if skipped == 1 else 'rd' if skipped == 2 else 'th'}-highest"


def measure(retriever: Retriever, questions: list[Question]) -> list[Measured]:
    measured = []
    for question in questions:
        gate = retriever.retrieve(question.text).gate
        measured.append(Measured(question, gate.best_distance))
    return measured


def distances_of(measured: list[Measured], kind: str) -> list[float]:
    return [m.best_distance for m in measured if m.question.kind == kind]


def measure_and_choose(retriever: Retriever, question_set: QuestionSet) -> tuple[list[Measured], Choice | None]:
    """Every labelled question's best distance, and the cutoff they give (None: no in-corpus question to calibrate on)."""
    measured = measure(retriever, question_set.questions)
    if not distances_of(measured, "answerable"):
        return measured, None
    in_corpus, off_topic = distances_of(measured, "answerable"), distances_of(measured, "off_topic")
    return measured, choose_cutoff(in_corpus, off_topic, refused_max_of(question_set))


def near_miss_passed(measured: list[Measured], cutoff: float) -> int:
    return sum(d <= cutoff for d in distances_of(measured, "near_miss"))


def record_cutoff(index_dir: Path, choice: Choice, measured: list[Measured]) -> None:
    set_cutoff(Path(index_dir), manifest_record(choice, measured))


def manifest_record(choice: Choice, measured: list[Measured]) -> dict:
    """What the manifest keeps about the cutoff: the value, how it was chosen, and on what."""
    counts = {kind: len(distances_of(measured, kind)) for kind in KIND_LABELS}
    return {
        "value": choice.value,
        "method": choice.method,
        "questions": len(measured),
        "answerable": counts["answerable"],
        "off_topic": counts["off_topic"],
        "near_miss": counts["near_miss"],
        "answerable_refused": choice.in_corpus_refused,
        "answerable_refused_max": choice.refused_max,
        "off_topic_passed": choice.off_topic_passed,
        "near_miss_passed": near_miss_passed(measured, choice.value),
        "separated": choice.separated,
        "margin_in_corpus": choice.margin_in_corpus,
        "margin_off_topic": choice.margin_off_topic,
        "calibrated_at": timestamp(),
    }


def calibrate_index(index_dir: Path, questions_file: Path | None = None, embedder: Embedder | None = None) -> float | None:
    """Calibrate an index silently and record the cutoff in its manifest."""
    record = calibration_record(index_dir, load_questions(questions_file), embedder)
    if record is None:
        return None
    set_cutoff(Path(index_dir), record)
    return record["value"]


def calibration_record(index_dir: Path, question_set: QuestionSet, embedder: Embedder | None = None) -> dict | None:
    """The manifest's cutoff record for an index, written nowhere (`guide-tui index` calibrates the new index
    before it is swapped in, with the embedder it built with); None with no in-corpus question to calibrate on."""
    retriever = Retriever(load_index(index_dir, embedder, rebuild_if_stale=False))
    measured, choice = measure_and_choose(retriever, question_set)
    return None if choice is None else manifest_record(choice, measured)


# ---------------------------------------------------------------- the report


def distance_table(measured: list[Measured], cutoff: float) -> Table:
    """Every question by best distance, the cutoff drawn where the distances cross it."""
    table = Table(title="best vector distance per labelled question", expand=False)
    table.add_column("distance", justify="right")
    table.add_column("kind")
    table.add_column("split")
    table.add_column("gate")
    table.add_column("question", overflow="fold")
    cutoff_row = (Text(f"{cutoff:.4f}", style="bold red"), Text("── cutoff ──", style="bold red"), "", "", "")
    drawn = False
    for m in sorted(measured, key=lambda m: (m.best_distance, m.question.id)):
        if not drawn and m.best_distance > cutoff:
            table.add_row(*cutoff_row)
            drawn = True
        passed = m.best_distance <= cutoff
        unexpected = (m.question.kind == "answerable") != passed and m.question.kind != "near_miss"
        gate = Text("passes" if passed else "refused", style="bold red" if unexpected else "")
        table.add_row(
            f"{m.best_distance:.4f}",
            Text(KIND_LABELS[m.question.kind], style=BAR_STYLES[m.question.kind]),
            m.question.split,
            gate,
            Text(m.question.text),
        )
    if not drawn:
        table.add_row(*cutoff_row)
    return table


HISTOGRAM_LEGENDS = ("out-of-scope (▒ near-miss, ░ off-topic)", "▒ near-miss ░ off-topic")  # the first that fits


def histogram(measured: list[Measured], cutoff: float, columns: int = 120, bin_width: float = HISTOGRAM_BIN) -> list[Text]:
    """One line per distance bin: in-corpus bars, then out-of-scope bars (near-miss, off-topic).
    Bins are aligned on the cutoff, so the cutoff line falls exactly between two of them."""
    distances = [m.best_distance for m in measured]
    low = cutoff - math.ceil((cutoff - min(distances)) / bin_width + 1e-9) * bin_width
    bins = max(1, math.ceil((max(distances) - low) / bin_width + 1e-9))
    counts = [{kind: 0 for kind in KIND_LABELS} for _ in range(bins)]
    for m in measured:
        index = min(bins - 1, max(0, math.ceil((m.best_distance - low) / bin_width - 1e-9) - 1))
        counts[index][m.question.kind] += 1
    in_max = max(c["answerable"] for c in counts) or 1
    out_max = max(c["near_miss"] + c["off_topic"] for c in counts) or 1
    bar_max = max(8, min(HISTOGRAM_BAR_MAX, (columns - 20) // 2))  # both bars and their counts fit on one line
    scale = bar_max / max(in_max, out_max)
    in_width = math.ceil(in_max * scale)
    places = next(n for n in (2, 3, 4) if abs(round(cutoff, n) - cutoff) < 1e-9 or n == 4)  # bin edges as exact as the cutoff
    label_width = 2 * (places + 2) + 1
    rule = Text(f"{'─' * label_width}  cutoff {cutoff:.4f} {'─' * (in_width + 4)}", style="bold red")
    head = f"{'distance':<{label_width}}  {'in-corpus':<{in_width + 4}} "
    legend = next((text for text in HISTOGRAM_LEGENDS if len(head) + len(text) <= columns), None)
    if legend is None:  # a narrow pane: the legend on a line of its own, as far right as fits
        legend = "\n" + " " * max(0, min(label_width + 2, columns - len(HISTOGRAM_LEGENDS[-1]))) + HISTOGRAM_LEGENDS[-1]
    lines = [Text(head + legend, style="bold")]
    for n, count in enumerate(counts):
        start, end = low + n * bin_width, low + (n + 1) * bin_width
        if abs(start - cutoff) < 1e-9:
            lines.append(rule)
        line = Text(f"{start:.{places}f}–{end:.{places}f}  ")
        bar = BAR_CHARS["answerable"] * math.ceil(count["answerable"] * scale)
        line.append(f"{bar:<{in_width}}", style=BAR_STYLES["answerable"])
        line.append(f" {count['answerable'] or '':>3} ")
        for kind in ("near_miss", "off_topic"):
            line.append(BAR_CHARS[kind] * math.ceil(count[kind] * scale), style=BAR_STYLES[kind])
        out = count["near_miss"] + count["off_topic"]
        line.append(f" {out or ''}")
        lines.append(line)
    if abs(low + bins * bin_width - cutoff) < 1e-9:
        lines.append(rule)
    return lines


def split_summary(measured: list[Measured], cutoff: float) -> Table:
    """Passed/refused per kind and split: the holdout column is the over-fitting check."""
    table = Table(title="gate at this cutoff", expand=False)
    table.add_column("kind")
    for split in ("tune", "holdout", "all"):
        table.add_column(split, justify="right")
    for kind, label in KIND_LABELS.items():
        if not distances_of(measured, kind):
            continue
        cells = []
        for split in ("tune", "holdout", "all"):
            chosen = [m for m in measured if m.question.kind == kind and split in (m.question.split, "all")]
            passed = sum(m.best_distance <= cutoff for m in chosen)
            cells.append(f"{passed}/{len(chosen)} pass" if kind == "answerable" else f"{len(chosen) - passed}/{len(chosen)} refused")
        table.add_row(Text(label, style=BAR_STYLES[kind]), *cells)
    return table


def explanation(choice: Choice, measured: list[Measured]) -> list[str]:
    in_corpus = distances_of(measured, "answerable")
    off_topic = distances_of(measured, "off_topic")
    near = distances_of(measured, "near_miss")
    lines = [
        f"rule: keep every in-corpus question passing (at most {choice.refused_max:.0%} may be refused, "
        f"i.e. {math.floor(choice.refused_max * len(in_corpus))} of {len(in_corpus)}), and within that refuse as many "
        "off-topic questions as possible; the cutoff sits midway in the gap so both sides get the same margin",
        f"chosen: {choice.value:.4f} = {choice.method}",
    ]
    if not off_topic:
        lines.append("no off-topic questions are labelled, so nothing pulls the cutoff down: it is the highest in-corpus distance")
    elif choice.separated:
        lines.append(
            f"separated: all {len(in_corpus)} in-corpus questions pass and all {len(off_topic)} off-topic ones are refused; "
            f"margin {choice.margin_in_corpus:.4f} above the highest in-corpus distance ({max(in_corpus):.4f}), "
            f"{choice.margin_off_topic:.4f} below the lowest off-topic distance ({min(off_topic):.4f})"
        )
    else:
        lines.append(
            f"NO cutoff separates in-corpus from off-topic questions: this one refuses {choice.in_corpus_refused} of "
            f"{len(in_corpus)} in-corpus questions and lets {choice.off_topic_passed} of {len(off_topic)} off-topic ones through"
        )
        margins = []
        if choice.margin_in_corpus is not None:
            margins.append(f"{choice.margin_in_corpus:.4f} above the highest in-corpus distance it keeps")
        if choice.margin_off_topic is not None:
            margins.append(f"{choice.margin_off_topic:.4f} below the lowest off-topic distance it refuses")
        if margins:
            lines.append("margins: " + "; ".join(margins))
    if near:
        lines.append(
            f"near-miss questions are not separable by distance (by design): {near_miss_passed(measured, choice.value)} "
            f"of {len(near)} pass this gate, and the answerability check has to refuse them"
        )
    return lines


def run_calibrate(index_dir: Path, write: bool = True, questions_file: Path | None = None) -> int:
    """`guide-tui calibrate`: the full report, then the cutoff written to the manifest (unless a dry run)."""
    console = Console(highlight=False)
    retriever = open_retriever(index_dir, rebuild_if_stale=False, gate=False)
    try:
        question_set = load_questions(questions_file)
    except (OSError, ValueError) as err:
        Console(stderr=True).print(Text(f"guide-tui: cannot read the labelled questions: {err}"))
        return 2
    measured, choice = measure_and_choose(retriever, question_set)
    if choice is None:
        console.print("no answerable questions in the labelled set: nothing to calibrate on")
        return 1
    console.print(distance_table(measured, choice.value))
    console.print()
    for line in histogram(measured, choice.value, console.width):
        console.print(line)
    console.print()
    console.print(split_summary(measured, choice.value))
    for line in explanation(choice, measured):
        console.print(Text(line))
    previous = retriever.index.cutoff
    was = "none" if previous is None else f"{previous:.4f}"
    if write:
        record_cutoff(index_dir, choice, measured)
        console.print(Text(f"cutoff {choice.value:.4f} written to {Path(index_dir) / 'manifest.json'} (was {was})"))
    else:
        console.print(Text(f"dry run: cutoff {choice.value:.4f} not written (the manifest keeps {was})"))
    return 0
