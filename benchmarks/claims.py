"""Score the claim check on the labelled model-style sentences (tests/data/claim_sentences.jsonl).

    .venv/bin/python benchmarks/claims.py                 # rates per half and per failure kind, timing, the curve
    .venv/bin/python benchmarks/claims.py --show design   # every design-half sentence with its verdict and reason

Each sentence is labelled supported or unsupported against what retrieval shows for its
question (the chunks within the cutoff). The sentences of one question form one answer,
checked as `ask --generator ollama` checks it. The set is split by a fixed rule: odd ids
are the design half (thresholds and word lists were set looking at these only), even ids
the held-out half. Each record's "added" says which set it came in: sets 2 to 6 were written
after the check had been fitted on the sets before them, and first measured before any rule
looked at them. Targets: at least 90% of unsupported sentences flagged, at most 5% of supported
ones; the check under 20 ms per answer in process.

An answer to a question with no chunk within the cutoff is left out (and counted): the app refuses such a
question before it asks the model, so no such answer is ever checked.

The writers labelled against the whole guides, but an answer's evidence is only what retrieval
showed for its question. The rates are also printed for the sentences whose fact was shown: the
chunk of the cited guide that the app's own retrieval ranks first for the sentence itself (or a
word-for-word copy of it) is within the cutoff for the question. A model shown only that evidence
could not have written the others; the rule reads no label.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from guide_tui import claims  # noqa: E402
from guide_tui.claims import DEFAULT_SETTINGS, ClaimSettings, answer_sentences, check_claims, guides_of, without_citations  # noqa: E402
from guide_tui.indexes import BUNDLED_INDEX, load_index  # noqa: E402
from guide_tui.retrieval import Retriever  # noqa: E402

SENTENCES = ROOT / "tests" / "data" / "claim_sentences.jsonl"
HALVES = ("design", "held-out")
CURVES = {
    "support": [0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75],
    "align": [0.45, 0.5, 0.55, 0.6, 0.65],
    "added_words": [1, 2, 3],
    "telling_word": [0.0, 3.0, 3.5, 4.0],
    "similar_word": [0.35, 0.45, 0.55, 0.65],
    "value_margin": [0.05, 0.1, 0.2, 0.3, 1.0],
    "related": [0.35, 0.4, 0.45, 0.5],
    "moved_clause": [0.1, 0.15, 0.2, 0.3],
    "unshown_chunks": [False, True],
}
"""Settings whose trade-off --curve prints (each moved alone, the others at their defaults)."""


def half_of(record: dict) -> str:
    """The fixed split: odd ids design, even ids held out."""
    return HALVES[0] if record["id"] % 2 else HALVES[1]


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def answers(records: list[dict]) -> dict[tuple[int, str], list[dict]]:
    """Records grouped by set and question, in file order: each group is one answer (two sets may ask the same)."""
    grouped: dict[tuple[int, str], list[dict]] = defaultdict(list)
    for record in records:
        grouped[record.get("added", 1), record["question"]].append(record)
    return grouped


def run(retriever: Retriever, grouped: dict[tuple[int, str], list[dict]], settings: ClaimSettings, cold: bool = False, ahead: bool = False):
    """Each record with (flagged, reason), and the check's time per answer in ms (wall, CPU). `cold`: each answer's
    chunks read afresh within the check; `ahead`: read afresh before it, untimed, as the Ollama answerer does while
    the model writes."""
    verdicts: dict[int, tuple[bool, str]] = {}
    times = []
    chunks = retriever.index.chunks
    for (_, question), records in grouped.items():
        hits = retriever.retrieve(question).within_cutoff
        text = " ".join(r["sentence"] for r in records)
        if cold or ahead:
            claims.READ_CHUNKS.clear()
        if ahead:
            claims.read_evidence(hits, retriever.index.embedder, chunks)
        start, cpu = time.perf_counter(), time.process_time()
        check = check_claims(text, hits, retriever.index.embedder, chunks=chunks, settings=settings)
        times.append(((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000))
        reasons = {flag.sentence: f"{flag.kind}: {flag.reason}" for flag in check.flags}
        for record in records:
            (sentence,) = answer_sentences(record["sentence"])
            verdicts[record["id"]] = (sentence in reasons, reasons.get(sentence, ""))
    return verdicts, times


def facts_shown(retriever: Retriever, grouped: dict[tuple[int, str], list[dict]]) -> dict[int, bool]:
    """Per record: whether its sentence's own best chunk in the cited guide was within the cutoff for its question."""
    chunks = retriever.index.chunks
    guides = guides_of(tuple(chunks))
    shown = {}
    for (_, question), records in grouped.items():
        within = {copy.body for hit in retriever.retrieve(question).within_cutoff for copy in guides.copies(hit.chunk)}
        for record in records:
            ranked = retriever.retrieve(without_citations(record["sentence"]), k=len(chunks)).hits
            cited = [hit for hit in ranked if record["guide"] in {copy.file for copy in guides.copies(hit.chunk)}]
            shown[record["id"]] = bool(cited) and cited[0].chunk.body in within
    return shown


def rates(records: list[dict], verdicts: dict) -> tuple[str, str]:
    wrong = [r for r in records if r["label"] == "unsupported"]
    right = [r for r in records if r["label"] == "supported"]
    caught = sum(verdicts[r["id"]][0] for r in wrong)
    false = sum(verdicts[r["id"]][0] for r in right)
    return fraction(caught, len(wrong)), fraction(false, len(right))


def fraction(n: int, total: int) -> str:
    return f"{n}/{total} ({n / total:.0%})" if total else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--show", choices=[*HALVES, "all"], help="print every sentence of a half with its verdict")
    parser.add_argument("--sentences", type=Path, default=SENTENCES)
    parser.add_argument("--set", type=int, help="report only the sentences of this set (all sets are still checked, as answers)")
    parser.add_argument("--curve", choices=[*CURVES, "none"], default="support", help="the setting whose trade-off to print")
    args = parser.parse_args(argv)

    records = load(args.sentences)
    retriever = Retriever(load_index(BUNDLED_INDEX))
    grouped = answers(records)
    unasked = [key for key in grouped if not retriever.retrieve(key[1]).within_cutoff]  # the app refuses these before the model
    left_out = {r["id"] for key in unasked for r in grouped.pop(key)}
    records = [r for r in records if r["id"] not in left_out]
    verdicts, _ = run(retriever, grouped, DEFAULT_SETTINGS)
    _, cold = run(retriever, grouped, DEFAULT_SETTINGS, cold=True)
    _, ahead = run(retriever, grouped, DEFAULT_SETTINGS, ahead=True)
    _, warm = run(retriever, grouped, DEFAULT_SETTINGS)

    if args.set is not None:
        records = [r for r in records if r.get("added", 1) == args.set]
        print(f"set {args.set} only:")
    print(f"{len(records)} sentences in {len(grouped)} answers; {sum(r['label'] == 'unsupported' for r in records)} unsupported")
    print(f"left out: {len(left_out)} sentences in {len(unasked)} answers to questions with no chunk within the cutoff (the app refuses them unasked)")
    print(f"\n{'':10} {'wrong sentences flagged':>26} {'right sentences flagged':>26}")
    for name, part in [(h, [r for r in records if half_of(r) == h]) for h in HALVES] + [("all", records)]:
        caught, false = rates(part, verdicts)
        print(f"{name:10} {caught:>26} {false:>26}")

    shown = facts_shown(retriever, grouped)
    print("\nonly the sentences whose fact was within what the answer was shown (see above), and the others")
    for name, part in [(h, [r for r in records if half_of(r) == h]) for h in HALVES] + [("all", records)]:
        for within in (True, False):
            caught, false = rates([r for r in part if shown[r["id"]] == within], verdicts)
            print(f"{name:10} {'shown' if within else 'not shown':>10} {caught:>26} {false:>26}")

    print("\nper set, in the order they were added (each measured before the rules were fitted on its design half)")
    for added in sorted({r.get("added", 1) for r in records}):
        cells = []
        for half in HALVES:
            caught, false = rates([r for r in records if r.get("added", 1) == added and half_of(r) == half], verdicts)
            cells.append(f"{caught} / {false}")
        ids = [r["id"] for r in records if r.get("added", 1) == added]
        print(f"  set {added} (#{min(ids)}-{max(ids)}): design {cells[0]}; held-out {cells[1]}")

    print("\nper kind (label: flagged / all, design | held-out)")
    for label in ("unsupported", "supported"):
        for kind in sorted({r["kind"] for r in records if r["label"] == label}):
            cells = []
            for half in HALVES:
                part = [r for r in records if r["label"] == label and r["kind"] == kind and half_of(r) == half]
                cells.append(fraction(sum(verdicts[r["id"]][0] for r in part), len(part)))
            print(f"  {label:12} {kind:20} {cells[0]:>14} | {cells[1]:>14}")

    print("\nflags by the check that raised them (wrong caught | right flagged), design | held-out")
    for check in sorted({reason.split(":")[0] for flagged, reason in verdicts.values() if flagged}):
        cells = []
        for half in HALVES:
            part = [r for r in records if half_of(r) == half and verdicts[r["id"]][1].startswith(check + ":")]
            cells.append(f"{sum(r['label'] == 'unsupported' for r in part)} | {sum(r['label'] == 'supported' for r in part)}")
        print(f"  {check:12} {cells[0]:>10}   {cells[1]:>10}")

    load_average = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\ncheck time per answer, in process (load average {load_average:.1f}), wall / CPU ms:")
    for name, measured in (
        ("as answered (chunks read while the model writes)", ahead),
        ("cold (each answer's chunks read in the check)", cold),
        ("warm (chunks read by earlier answers)", warm),
    ):
        cells = []
        for n, label in ((0, "wall"), (1, "CPU")):
            values = [t[n] for t in measured]
            cells.append(f"{label} p50 {statistics.median(values):.1f}, p95 {percentile(values, 95):.1f}, max {max(values):.1f}")
        print(f"  {name:50} {'; '.join(cells)}")

    if args.curve != "none":
        name, points = args.curve, CURVES[args.curve]
        print(f"\ntrade-off: ClaimSettings.{name} (default {getattr(DEFAULT_SETTINGS, name)})")
        print(f"  {name:>12} " + " ".join(f"{h + ' wrong / right flagged':>32}" for h in (*HALVES, "all")))
        for point in points:
            moved, _ = run(retriever, grouped, replace(DEFAULT_SETTINGS, **{name: point}))
            cells = []
            for part in [[r for r in records if half_of(r) == h] for h in HALVES] + [records]:
                caught, false = rates(part, moved)
                cells.append(f"{caught.split()[0]} {caught.split()[1]} / {false.split()[0]} {false.split()[1]}")
            print(f"  {point:>12} " + " ".join(f"{c:>32}" for c in cells))

    if args.show:
        print()
        for record in records:
            if args.show != "all" and half_of(record) != args.show:
                continue
            flagged, reason = verdicts[record["id"]]
            right = flagged == (record["label"] == "unsupported")
            mark = "ok " if right else "BAD"
            hidden = "" if shown[record["id"]] else " (fact not shown)"
            print(f"{mark} #{record['id']} {record['label'][:5]} {record['kind']}{hidden}: {record['sentence']}")
            if reason:
                print(f"      {reason}")
    return 0


def percentile(values: list[float], q: int) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


if __name__ == "__main__":
    sys.exit(main())
