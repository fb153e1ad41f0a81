"""`guide-tui eval`: run the labelled questions end to end and measure every claim the project makes.

Each question goes through the same path as `guide-tui ask` (retrieval, gate,
answerability, answerer), once per run. The criteria below are computed per run
and over all runs pooled; the report goes to results/ (paths.reports_dir) as Markdown with a JSON
sidecar (the sidecar is what --compare reads, so the Markdown stays free to change).
The exit status is 1 when a target from the questions file's [targets] is missed,
so the command can gate a change.
"""

from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from itertools import combinations
from pathlib import Path
from typing import Callable

from guide_tui.answering import answer_question
from guide_tui.corpus import HEADING, guide_text
from guide_tui.indexes import LoadedIndex, resolve_corpus
from guide_tui.inspection import ExpectedPlace, chunks_of_sections, locate_expected
from guide_tui.paths import CHECKOUT, default_index, reports_dir
from guide_tui.questions import QUESTIONS_FILE, Question, load_questions
from guide_tui.report import cell, clipped
from guide_tui.retrieval import TOP_K
from guide_tui.settings import chosen_knobs

MISS_TEXT_CHARS = 160


@dataclass(frozen=True)
class Outcome:
    """What came back for one question in one run."""

    run: int
    question: Question
    answer: object  # answering.Answer; its .retrieval holds the hits and the gate

    @property
    def top5(self) -> tuple[str, ...]:
        return tuple(hit.chunk.chunk_id for hit in self.answer.retrieval.hits)

    @property
    def gate_passed(self) -> bool:
        return self.answer.retrieval.gate.passed

    @property
    def best_distance(self) -> float:
        return self.answer.retrieval.gate.best_distance

    @property
    def refused(self) -> bool:
        return self.answer.refused

    def rank_of_expected(self) -> int | None:
        return expected_rank(self.question, self.top5)

    def came_back(self) -> str:
        return came_back(self.answer)


def came_back(answer) -> str:
    """One line: the answer (or refusal and why) and the top 5, for the misses list."""
    if answer.refused:
        said = f"refused ({answer.refusal_reason or 'no reason given'})"
    else:
        sources = ", ".join(f"{f} › {s}" for f, s in answer.sources()) or "no source"
        said = f"answered {shorten(answer.text)!r} citing {sources}"
    gate = answer.retrieval.gate
    top = ", ".join(hit.chunk.chunk_id for hit in answer.retrieval.hits) or "none"
    return f"{said}; gate {'passed' if gate.passed else 'refused'} at distance {gate.best_distance:.4f}; top 5: {top}"


@dataclass
class Criterion:
    """One measured rate (or mean) with its misses; value None when nothing could be measured."""

    key: str
    label: str
    value: float | None
    count: int = 0  # what the value counts: questions passed (refusals, for answerable_refused)
    total: int = 0
    misses: list[tuple[str, str]] = field(default_factory=list)  # (question id / chunk id / need, what came back)

    def shown(self) -> str:
        if self.value is None:
            return "n/a"
        counts = f" ({self.count}/{self.total})" if self.total else ""
        return f"{self.value:.3f}{counts}"


# key -> (label, definition); the order here is the order of every table
CRITERIA = {
    "retrieved_has_answer": ("retrieved chunk contains the answer", "answerable: the expected phrase is in some top-5 chunk"),
    "answer_names_source": ("every answer names a source", "every answer that is not a refusal cites at least one file and section"),
    "gate_stops_off_topic": ("gate stops out-of-corpus questions", "off-topic: the relevance gate alone refuses"),
    "whole_sections": ("chunks are whole sections", "every indexed chunk is exactly one `##` section of its corpus file"),
    "no_town_region_guide": ("no-town questions reach a region-wide guide", "answerable questions naming no town: a region-wide guide in the top 5"),
    "rank1": ("expected chunk ranked first", "answerable: the top chunk is one of the expected chunks"),
    "best_chunk_first": ("best expected chunk ranked first", "answerable: the top chunk is the first (best) expected chunk"),
    "mrr": ("mean reciprocal rank (top 5)", "answerable: mean of 1/rank of the first expected chunk in the top 5 (0 if none)"),
    "hit_at_5": ("expected chunk in top 5", "answerable: some expected chunk is in the top 5"),
    "expected_phrase": ("answer contains the expected phrase", "answerable: the answer text contains the expected phrase (refusal = miss)"),
    "near_miss_refused": ("near-miss questions refused", "near-miss: refused end to end (gate, answerability or model)"),
    "off_topic_refused": ("off-topic questions refused", "off-topic: refused end to end"),
    "answerable_refused": ("answerable questions refused", "answerable: refused end to end (lower is better)"),
    "refusals_name_no_source": ("no source named on refusals", "every refusal is exactly the refusal sentence with no citation"),
    "claims_in_cited_chunk": (
        "every claim found in its cited chunk",
        "answers: every citation quote is verbatim (whitespace-normalised) in the chunk it names, and no sentence is unsupported",
    ),
    "same_top1_per_need": ("rank stability: same top-1 per need", "answerable needs with 2+ rephrasings: every rephrasing has the same top chunk"),
    "top5_overlap_per_need": (
        "rank stability: top-5 overlap per need", "answerable needs with 2+ rephrasings: mean shared top-5 chunks / 5 over pairs of rephrasings"
    ),
}
# target name in questions.toml -> (criterion key, True when the value must be at least the target)
TARGETS = {
    "rank1": ("rank1", True),
    "hit_at_5": ("hit_at_5", True),
    "expected_phrase": ("expected_phrase", True),
    "near_miss_refused": ("near_miss_refused", True),
    "off_topic_refused": ("off_topic_refused", True),
    "answerable_refused_max": ("answerable_refused", False),
}


FAILURE_CLASSES = {
    "right": "right",
    "retrieval_miss": "retrieval miss",
    "ranked_low": "ranked low",
    "cut_by_gate": "cut by the gate",
    "wrong_quote": "wrong quote",
    "wrongly_refused": "wrongly refused",
    "unanswerable_answered": "unanswerable answered",
}
"""What became of a question, named by the first step that failed it (README "Failure classes"): key -> label."""


def failure_class(answerable: bool, right: bool, refused: bool, place: ExpectedPlace | None) -> str:
    """The FAILURE_CLASSES key of one question's outcome. right: the answer holds what was expected (answerable)
    or the question was refused or corrected (unanswerable); place: where its expected chunk ranked (None: no label)."""
    if right:
        return "right"
    if not answerable:
        return "unanswerable_answered"
    if place is not None:
        if place.rank is None:
            return "retrieval_miss"  # not in the top LOOK_PAST
        if place.rank > TOP_K:
            return "ranked_low"  # retrieved, but not among the chunks the answer is given
        if not place.within_cutoff:
            return "cut_by_gate"
    return "wrongly_refused" if refused else "wrong_quote"


@dataclass(frozen=True)
class QuestionResult:
    """One question's line in the results view: its failure class and where its expected chunk went."""

    id: str
    kind: str
    text: str
    run: int
    failure_class: str
    place: ExpectedPlace | None
    came_back: str

    @property
    def expected_line(self) -> str:
        return self.place.line() if self.place is not None else ""

    def to_json(self) -> dict:
        return {
            "id": self.id, "question": self.text, "kind": self.kind, "run": self.run, "failure_class": self.failure_class,
            "expected": None if self.place is None else self.place.to_json(), "came_back": self.came_back,
        }  # fmt: skip


def outcome_result(retriever, outcome: Outcome) -> QuestionResult:
    """The results-view line of a labelled question (questions.toml)."""
    q, answer = outcome.question, outcome.answer
    answerable = q.kind == "answerable"
    right = (phrase_in_answer(q, answer) if q.expected_phrase else not answer.refused) if answerable else answer.refused
    place = locate_expected(retriever, q.text, q.expected_chunks, shown=answer.retrieval) if answerable else None
    kind = failure_class(answerable, right, answer.refused, place)
    return QuestionResult(q.id, q.kind, q.text, outcome.run, kind, place, came_back(answer))


def class_counts_text(results: list[QuestionResult]) -> str:
    """Questions per kind and failure class, as a plain table (classes no question fell into left out)."""
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for r in results:
        counts[r.kind][r.failure_class] += 1
    classes = [key for key in FAILURE_CLASSES if any(key in row for row in counts.values())]
    width = max([len("kind"), *map(len, counts)])
    lines = ["  ".join([f"{'kind':{width}}", *(f"{FAILURE_CLASSES[c]:>{max(5, len(FAILURE_CLASSES[c]))}}" for c in classes)])]
    for kind in sorted(counts):
        cells = (f"{counts[kind][c]:>{max(5, len(FAILURE_CLASSES[c]))}}" for c in classes)
        lines.append("  ".join([f"{kind:{width}}", *cells]))
    return "\n".join(lines)


def failing_lines(results: list[QuestionResult]) -> list[str]:
    """One line per question that was not right: id, kind, class, and where its expected chunk went."""
    return [
        f"{r.id}{f' (run {r.run})' if r.run > 1 else ''} [{r.kind}]: {FAILURE_CLASSES[r.failure_class]}"
        + (f"; {r.expected_line}" if r.expected_line else "")
        for r in results
        if r.failure_class != "right"
    ]


def normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


def expected_rank(question: Question, chunk_ids: tuple[str, ...] | list[str]) -> int | None:
    """1-based rank of the first retrieved chunk that is one of the expected ones; None when none is."""
    expected = set(question.expected_chunks)
    return next((n for n, chunk_id in enumerate(chunk_ids, 1) if chunk_id in expected), None)


def phrase_in_answer(question: Question, answer) -> bool:
    """The expected phrase is in an answer that is not a refusal (case and spacing ignored)."""
    return bool(question.expected_phrase) and not answer.refused and normalise(question.expected_phrase) in normalise(answer.text)


def shorten(text: str) -> str:
    return clipped(" ".join(text.split()), MISS_TEXT_CHARS)


def rate(key: str, results: list[tuple[str, bool, str]]) -> Criterion:
    """A pass rate from (name, passed, what came back) rows."""
    label = CRITERIA[key][0]
    if not results:
        return Criterion(key, label, None)
    passed = sum(ok for _, ok, _ in results)
    misses = [(name, detail) for name, ok, detail in results if not ok]
    return Criterion(key, label, passed / len(results), passed, len(results), misses)


# ------------------------------------------------------------------ per-index checks


def whole_section_problems(index: LoadedIndex) -> list[tuple[str, str]] | None:
    """Every chunk checked against its corpus file's text: one `##` section, whole, nothing more.

    None when the corpus folder is not there to check against.
    """
    corpus_dir = resolve_corpus(index.folder, index.manifest)
    if not corpus_dir.is_dir():
        return None
    by_file: dict[str, list] = defaultdict(list)
    for chunk in index.chunks:
        by_file[chunk.file].append(chunk)
    problems = []
    for file, chunks in by_file.items():
        try:
            text, _ = guide_text((corpus_dir / file).read_bytes())
        except (OSError, UnicodeDecodeError) as err:
            problems += [(c.chunk_id, f"{file} cannot be read: {err}") for c in chunks]
            continue
        for chunk in chunks:
            problem = section_problem(chunk, text)
            if problem:
                problems.append((chunk.chunk_id, problem))
        covered = [(c.start, c.end) for c in chunks]
        for match in HEADING.finditer(text):
            following = HEADING.search(text, match.end())
            body = text[match.end() : following.start() if following else len(text)]
            if body.strip() and not any(start <= match.start() < end for start, end in covered):
                problems.append((f"{file} › {match.group(1)}", "section has no chunk"))
    return problems


def section_problem(chunk, text: str) -> str | None:
    """Why this chunk is not exactly one whole section of the file text, or None."""
    span = text[chunk.start : chunk.end]
    headings = HEADING.findall(span)
    if headings != [chunk.section]:
        return f"its span holds headings {headings}, not just '## {chunk.section}'"
    heading_line = f"## {chunk.section}"
    from_heading_in_file = span[HEADING.search(span).start() :]
    from_heading_in_chunk = chunk.text[chunk.text.index(f"\n{heading_line}\n") + 1 :]
    if normalise(from_heading_in_file) != normalise(from_heading_in_chunk):
        return "its text differs from the section in the file"
    following = HEADING.search(text, chunk.end)
    if text[chunk.end : following.start() if following else len(text)].strip():
        return "the section continues past the end of the chunk"
    opening_in_chunk = chunk.text[: chunk.text.index(f"\n{heading_line}\n")]
    opening_in_file = span[: HEADING.search(span).start()] if chunk.start == 0 else f"# {chunk.title}"
    if normalise(opening_in_chunk) != normalise(opening_in_file):
        return "its title/preamble differs from the file"
    return None


# ------------------------------------------------------------------ criteria


def citation_problem(citation, chunks_by_id: dict) -> str | None:
    chunk = chunks_by_id.get(citation.chunk_id)
    if chunk is None:
        return f"cites {citation.chunk_id}, which is not in the index"
    if (citation.file, citation.section) != (chunk.file, chunk.section):
        return f"cites {citation.file} › {citation.section} for chunk {chunk.chunk_id} ({chunk.file} › {chunk.section})"
    if normalise(citation.quote) not in normalise(chunk.text):
        return f"quote {shorten(citation.quote)!r} is not in {chunk.chunk_id}"
    return None


def answer_claim_problem(outcome: Outcome, chunks_by_id: dict) -> str | None:
    answer = outcome.answer
    if not answer.citations:
        return f"no citation for {shorten(answer.text)!r}"
    for citation in answer.citations:
        problem = citation_problem(citation, chunks_by_id)
        if problem:
            return problem
    if answer.unsupported:
        return f"unsupported: {shorten(answer.unsupported[0])!r}"
    return None


def stability(outcomes: list[Outcome]) -> tuple[Criterion, Criterion]:
    """Same top-1 and top-5 overlap across the rephrasings of one need (per run, pooled)."""
    groups: dict[tuple[int, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        if o.question.kind == "answerable" and o.question.need:
            groups[(o.run, o.question.need)].append(o)
    groups = {key: group for key, group in groups.items() if len(group) > 1}
    same_top1 = []
    overlaps = []
    overlap_misses = []
    for (run, need), group in sorted(groups.items()):
        tops = {o.question.id: (o.top5[0] if o.top5 else "none") for o in group}
        detail = "; ".join(f"{qid} -> {top}" for qid, top in tops.items())
        same_top1.append((need, len(set(tops.values())) == 1, f"top 1 differs: {detail}"))
        pair_overlaps = [len(set(a.top5) & set(b.top5)) / 5 for a, b in combinations(group, 2)]
        overlaps.extend(pair_overlaps)
        if min(pair_overlaps) < 0.6:
            low = min(combinations(group, 2), key=lambda ab: len(set(ab[0].top5) & set(ab[1].top5)))
            overlap_misses.append(
                (need, f"{low[0].question.id}: {', '.join(low[0].top5)} vs {low[1].question.id}: {', '.join(low[1].top5)}")
            )
    top1 = rate("same_top1_per_need", same_top1)
    mean_overlap = sum(overlaps) / len(overlaps) if overlaps else None
    overlap = Criterion("top5_overlap_per_need", CRITERIA["top5_overlap_per_need"][0], mean_overlap, misses=overlap_misses)
    return top1, overlap


def compute_criteria(outcomes: list[Outcome], retriever, section_problems: list | None) -> dict[str, Criterion]:
    """Every criterion over a list of outcomes (one run, one split, or all runs pooled).

    Towns and region-wide guides are the retriever's own (Retriever.towns_in, retrieval.place_guides), so the
    no-town criterion measures exactly the notion the region bonus acts on.
    """
    index = retriever.index
    answerable = [o for o in outcomes if o.question.kind == "answerable"]
    near_miss = [o for o in outcomes if o.question.kind == "near_miss"]
    off_topic = [o for o in outcomes if o.question.kind == "off_topic"]
    answered = [o for o in outcomes if not o.refused]
    refused = [o for o in outcomes if o.refused]
    chunks_by_id = {c.chunk_id: c for c in index.chunks}
    region = {c.file for c in index.chunks} - set(retriever.places)

    def top5_has_phrase(o: Outcome) -> bool:
        phrase = normalise(o.question.expected_phrase)
        return any(phrase in normalise(chunks_by_id[c].text) for c in o.top5 if c in chunks_by_id)

    found = {}
    found["retrieved_has_answer"] = rate(
        "retrieved_has_answer", [(o.question.id, top5_has_phrase(o), o.came_back()) for o in answerable if o.question.expected_phrase]
    )
    found["answer_names_source"] = rate("answer_names_source", [(o.question.id, bool(o.answer.sources()), o.came_back()) for o in answered])
    found["gate_stops_off_topic"] = rate("gate_stops_off_topic", [(o.question.id, not o.gate_passed, o.came_back()) for o in off_topic])
    if section_problems is None:
        found["whole_sections"] = Criterion("whole_sections", CRITERIA["whole_sections"][0], None, misses=[("corpus", "corpus folder not found")])
    else:
        bad = dict(section_problems)
        rows = [(c.chunk_id, c.chunk_id not in bad, bad.get(c.chunk_id, "")) for c in index.chunks]
        rows += [(name, False, why) for name, why in section_problems if name not in chunks_by_id]
        found["whole_sections"] = rate("whole_sections", rows)
    no_town = [o for o in answerable if not retriever.towns_in(o.question.text)]
    found["no_town_region_guide"] = rate(
        "no_town_region_guide", [(o.question.id, any(c.split("#")[0] in region for c in o.top5), o.came_back()) for o in no_town]
    )
    labelled = [o for o in answerable if o.question.expected_chunks]
    expected_line = {o.question.id: f"expected {', '.join(o.question.expected_chunks)}; got {o.came_back()}" for o in labelled}
    found["rank1"] = rate("rank1", [(o.question.id, o.rank_of_expected() == 1, expected_line[o.question.id]) for o in labelled])
    found["best_chunk_first"] = rate(
        "best_chunk_first",
        [(o.question.id, bool(o.top5) and o.top5[0] == o.question.expected_chunks[0], expected_line[o.question.id]) for o in labelled],
    )
    reciprocal = [1 / o.rank_of_expected() if o.rank_of_expected() else 0.0 for o in labelled]
    found["mrr"] = Criterion("mrr", CRITERIA["mrr"][0], sum(reciprocal) / len(reciprocal) if reciprocal else None)
    found["hit_at_5"] = rate("hit_at_5", [(o.question.id, o.rank_of_expected() is not None, expected_line[o.question.id]) for o in labelled])
    found["expected_phrase"] = rate(
        "expected_phrase",
        [
            (o.question.id, phrase_in_answer(o.question, o.answer), f"expected {o.question.expected_phrase!r}; {o.came_back()}")
            for o in answerable
            if o.question.expected_phrase
        ],
    )
    found["near_miss_refused"] = rate("near_miss_refused", [(o.question.id, o.refused, o.came_back()) for o in near_miss])
    found["off_topic_refused"] = rate("off_topic_refused", [(o.question.id, o.refused, o.came_back()) for o in off_topic])
    # lower is better here: the value and count are the refusals, the misses the refused questions
    answered_rate = rate("answerable_refused", [(o.question.id, not o.refused, o.came_back()) for o in answerable])
    if answered_rate.value is not None:
        answered_rate.value, answered_rate.count = 1 - answered_rate.value, answered_rate.total - answered_rate.count
    found["answerable_refused"] = answered_rate
    found["refusals_name_no_source"] = rate("refusals_name_no_source", [(o.question.id, refusal_is_clean(o.answer), o.came_back()) for o in refused])
    claim_rows = []
    for o in answered:
        problem = answer_claim_problem(o, chunks_by_id)
        claim_rows.append((o.question.id, problem is None, problem or ""))
    found["claims_in_cited_chunk"] = rate("claims_in_cited_chunk", claim_rows)
    found["same_top1_per_need"], found["top5_overlap_per_need"] = stability(outcomes)
    return {key: found[key] for key in CRITERIA}


def refusal_is_clean(answer) -> bool:
    from guide_tui.answers import REFUSAL

    return answer.text == REFUSAL and not answer.citations and not answer.sources()


# ------------------------------------------------------------------ running


def ask_one(retriever, question: Question, run: int, generator: str, model: str | None) -> Outcome:
    from guide_tui.answering import answer_question

    answer = answer_question(retriever, question.text, generator=generator, model=model, on_text=None)
    return Outcome(run, question, answer)


def run_questions(
    retriever, questions: list[Question], runs: int, generator: str, model: str | None, step: Callable[[], None] = lambda: None
) -> list[Outcome]:
    outcomes = []
    for run in range(1, runs + 1):
        for question in questions:
            outcomes.append(ask_one(retriever, question, run, generator, model))
            step()
    return outcomes


@dataclass
class Evaluation:
    """Everything the report shows: settings, criteria per run / split / overall, targets."""

    settings: dict
    runs: list[dict[str, Criterion]]
    overall: dict[str, Criterion]
    splits: dict[str, dict[str, Criterion]]
    targets: list[dict]  # {name, criterion, target, value, at_least, met}
    results: list[QuestionResult] = field(default_factory=list)  # per question and run, in asking order

    def to_json(self) -> dict:
        def values(criteria: dict[str, Criterion]) -> dict:
            return {key: c.value for key, c in criteria.items()}

        return {
            "settings": self.settings,
            "overall": values(self.overall),
            "splits": {name: values(found) for name, found in self.splits.items()},
            "runs": [values(found) for found in self.runs],
            "targets": self.targets,
            "questions": [r.to_json() for r in self.results],
        }


def check_targets(targets: dict, overall: dict[str, Criterion]) -> tuple[list[dict], list[str]]:
    """Each target with its verdict; unknown target names come back as warnings."""
    checked, warnings = [], []
    for name, target in targets.items():
        if name not in TARGETS:
            warnings.append(f"unknown target {name!r} in the questions file (known: {', '.join(TARGETS)}); ignored")
            continue
        key, at_least = TARGETS[name]
        value = overall[key].value
        met = None if value is None else (value >= float(target) if at_least else value <= float(target))
        checked.append({"name": name, "criterion": key, "target": float(target), "value": value, "at_least": at_least, "met": met})
    return checked, warnings


def evaluate(
    retriever,
    questions_path: Path | None,
    runs: int,
    generator: str,
    model: str | None,
    now: datetime,
    step: Callable[[], None],
    question_set,
    command: str,
) -> Evaluation:
    index = retriever.index
    started = time.perf_counter()
    outcomes = run_questions(retriever, question_set.questions, runs, generator, model, step)
    seconds = time.perf_counter() - started
    sections = whole_section_problems(index)
    per_run = [compute_criteria([o for o in outcomes if o.run == run], retriever, sections) for run in range(1, runs + 1)]
    overall = compute_criteria(outcomes, retriever, sections)
    splits = {
        split: compute_criteria([o for o in outcomes if o.question.split == split], retriever, sections)
        for split in sorted({q.split for q in question_set.questions}, key=lambda name: (name != "tune", name))
    }
    targets, warnings = check_targets(question_set.targets, overall)
    known = {c.chunk_id for c in index.chunks}
    for question in question_set.questions:
        unknown = [chunk_id for chunk_id in question.expected_chunks if chunk_id not in known]
        if unknown:
            warnings.append(f"question {question.id} expects {', '.join(unknown)}, not a chunk of this index (a label typo?)")
    settings = describe_settings(index, questions_path, question_set, runs, generator, model, now, outcomes, seconds, command)
    settings |= run_settings(retriever)
    fell_back = sum(settings["fallbacks"].values())
    if fell_back:
        reasons = "; ".join(settings["fallbacks"])
        warnings.append(f"{fell_back} of {len(outcomes)} answers fell back to the extractive answerer ({reasons})")
    settings["warnings"] = warnings
    results = [outcome_result(retriever, o) for o in outcomes]
    return Evaluation(settings, per_run, overall, splits, targets, results)


def describe_settings(index, questions_path, question_set, runs, generator, model, now, outcomes, seconds, command) -> dict:
    manifest = index.manifest
    kinds = defaultdict(int)
    for q in question_set.questions:
        kinds[q.kind] += 1
    used = defaultdict(int)
    fallbacks = defaultdict(int)
    for o in outcomes:
        used[o.answer.generator] += 1
        if o.answer.fallback_reason:
            fallbacks[o.answer.fallback_reason] += 1
    return {
        "date": now.strftime("%Y-%m-%d %H:%M"),
        "command": command,
        "generator": generator,
        "model": model,
        "generators_used": dict(used),
        "fallbacks": dict(fallbacks),
        "runs": runs,
        "questions_file": str(questions_path or QUESTIONS_FILE),
        "questions": dict(kinds),
        "index": str(index.folder),
        "index_built_at": manifest.get("built_at"),
        "index_counts": manifest.get("counts", {}),
        "model_sha256": manifest.get("model", {}).get("sha256", "")[:12],
        "cutoff": index.cutoff,  # the index's calibrated one; the one used is in "retrieval"
        "index_notes": list(index.notes),
        "git_commit": git_commit(),
        "python": platform.python_version(),
        "seconds": round(seconds, 3),
        "seconds_per_question": round(seconds / max(1, len(outcomes)), 5),
    }


def git_commit() -> str | None:
    """The commit the code and index came from, marked when guide_tui/, index/ or corpus/ differ from it
    (None for an installed guide-tui: no checkout to ask)."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(CHECKOUT), *args], capture_output=True, text=True, timeout=5).stdout.strip()

    if CHECKOUT is None:
        return None
    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--", "guide_tui", "index", "corpus")
    except (OSError, subprocess.SubprocessError):
        return None
    return (commit + (" + uncommitted changes" if changed else "")) or None


# ------------------------------------------------------------------ the report


def kinds_text(counts: dict) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in counts.items()) or "none"


def target_for(key: str, targets: list[dict]) -> dict | None:
    return next((t for t in targets if t["criterion"] == key), None)


def target_text(target: dict | None) -> tuple[str, str]:
    if target is None:
        return "", ""
    sign = "≥" if target["at_least"] else "≤"
    verdict = {True: "met", False: "MISSED", None: "not measured"}[target["met"]]
    return f"{sign} {target['target']:g}", verdict


def cutoff_text(settings: dict) -> str:
    """The cutoff a report's answers were gated with, and the index's calibrated one when the knobs set another."""
    used, calibrated = settings["retrieval"].get("cutoff", settings["cutoff"]), settings["cutoff"]
    if used is None:
        return "none (gate passes everything)"
    if used == calibrated:
        return f"{used:.4f}"
    return f"{used:.4f} (set by the knobs; the index's calibrated cutoff is {'none' if calibrated is None else f'{calibrated:.4f}'})"


def markdown_report(evaluation: Evaluation, comparison: list[tuple] | None, compared_with: str | None) -> str:
    s = evaluation.settings
    lines = [f"# Evaluation {s['date']} ({s['generator']})", "", "## Settings", ""]
    counts = s["index_counts"]
    rows = [
        ("command", f"`{s['command']}`" if s["command"] else "(run from Python)"),
        ("generator asked for", s["generator"] + (f" (model {s['model']})" if s["model"] else "")),
        ("generators used", ", ".join(f"{name} × {n}" for name, n in s["generators_used"].items())),
        ("fallbacks", ", ".join(f"{why} × {n}" for why, n in s["fallbacks"].items()) or "none"),
        ("runs", s["runs"]),
        ("questions", f"{s['questions_file']}: {kinds_text(s['questions'])}"),
        ("index", f"{s['index']} built {s['index_built_at']}: {counts.get('guides')} guides, {counts.get('chunks')} chunks, "
                  f"{counts.get('sentences')} sentence vectors"),
        ("embedding model sha256", s["model_sha256"]),
        ("cutoff", cutoff_text(s)),
        ("knobs", settings_line(s)),
        ("index notes", "; ".join(s["index_notes"]) or "none"),
        ("git commit", s["git_commit"] or "unknown"),
        ("python", s["python"]),
        ("time", f"{s['seconds']:.2f} s ({s['seconds_per_question'] * 1000:.2f} ms a question, whole path)"),
    ]
    lines += ["| setting | value |", "|---|---|"] + [f"| {k} | {cell(v)} |" for k, v in rows]
    for warning in s["warnings"]:
        lines += ["", f"Warning: {warning}"]
    lines += ["", "## Summary", "", summary_markdown(evaluation)]
    if comparison is not None:
        lines += ["", f"## Compared with {compared_with}", "", comparison_markdown(comparison)]
    lines += failure_class_markdown(evaluation.results)
    lines += ["", "## Criteria", ""]
    for key, (label, definition) in CRITERIA.items():
        lines += [f"### {label}", "", f"{definition}.", "", "| run | value | count | of |", "|---|---|---|---|"]
        for n, found in enumerate(evaluation.runs, 1):
            c = found[key]
            lines.append(f"| {n} | {'n/a' if c.value is None else f'{c.value:.3f}'} | {c.count if c.total else ''} | {c.total or ''} |")
        misses = collect_misses(evaluation, key)
        lines += ["", f"Misses: {len(misses)}" if misses else "Misses: none", ""]
        for name, (detail, runs) in misses.items():
            where = "" if len(evaluation.runs) == 1 else f" (runs {', '.join(map(str, runs))})"
            lines.append(f"- `{name}`{where}: {detail}")
        if misses:
            lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def results_markdown(results: list[QuestionResult]) -> str:
    """The eval's results view: every question with its kind, failure class and where its expected chunk went."""
    lines = ["| question | kind | class | expected | came back |", "|---|---|---|---|---|"]
    for r in results:
        run = f" (run {r.run})" if r.run > 1 else ""
        lines.append(
            f"| `{cell(r.id)}`{run} | {cell(r.kind)} | {FAILURE_CLASSES[r.failure_class]} | {cell(r.expected_line)} | {cell(r.came_back)} |"
        )
    return "\n".join(lines) + "\n"


def failure_class_markdown(results: list[QuestionResult]) -> list[str]:
    """The report's "Failure classes" section: counts per kind and class, then every question's line."""
    if not results:
        return []
    return ["", "## Failure classes", "", "```", class_counts_text(results), "```", "", results_markdown(results).rstrip()]


def collect_misses(evaluation: Evaluation, key: str) -> dict[str, tuple[str, list[int]]]:
    """Each miss once, with the runs it happened in and what came back the first time."""
    misses: dict[str, tuple[str, list[int]]] = {}
    for n, found in enumerate(evaluation.runs, 1):
        for name, detail in found[key].misses:
            if name in misses:
                misses[name][1].append(n)
            else:
                misses[name] = (detail, [n])
    return misses


def summary_rows(evaluation: Evaluation) -> list[tuple[str, ...]]:
    split_names = list(evaluation.splits)
    rows = []
    for key, (label, _) in CRITERIA.items():
        target, verdict = target_text(target_for(key, evaluation.targets))
        by_split = (evaluation.splits[s][key] for s in split_names)
        rows.append((label, evaluation.overall[key].shown(), *("n/a" if c.value is None else f"{c.value:.3f}" for c in by_split), target, verdict))
    return rows


def summary_header(evaluation: Evaluation) -> list[str]:
    runs = len(evaluation.runs)
    return ["criterion", "all" if runs == 1 else f"all ({runs} runs pooled)", *evaluation.splits, "target", "verdict"]


def summary_markdown(evaluation: Evaluation) -> str:
    header = summary_header(evaluation)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in summary_rows(evaluation)]
    return "\n".join(lines)


def read_earlier(path: Path) -> dict:
    """The JSON sidecar of an earlier report (REPORT.md -> REPORT.json), or the JSON itself."""
    sidecar = path if path.suffix == ".json" else path.with_suffix(".json")
    try:
        data = json.loads(sidecar.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise EvalInputError(f"cannot compare: {sidecar} not found (--compare takes a report written by guide-tui eval)") from err
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise EvalInputError(f"cannot compare: {sidecar} is unreadable ({err})") from err
    if not isinstance(data, dict) or not isinstance(data.get("overall"), dict):
        raise EvalInputError(f"cannot compare: {sidecar} is not an eval report sidecar")
    return data


def compare(earlier: dict, evaluation: Evaluation) -> list[tuple[str, str, str, str]]:
    """(criterion, before, after, change) for every criterion either report measured."""
    rows = []
    for key, (label, _) in CRITERIA.items():
        before = earlier["overall"].get(key)
        after = evaluation.overall[key].value
        if before is None and after is None:
            continue
        change = f"{after - before:+.3f}" if isinstance(before, (int, float)) and after is not None else ""
        rows.append((label, "n/a" if before is None else f"{before:.3f}", "n/a" if after is None else f"{after:.3f}", change))
    return rows


def comparison_markdown(rows: list[tuple]) -> str:
    lines = ["| criterion | before | after | change |", "|---|---|---|---|"]
    return "\n".join(lines + ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows])


def report_path(folder: Path, now: datetime, generator: str, model: str | None) -> Path:
    """results/eval-DATE-GENERATOR.md; a second report on the same day gets -2, -3, ... (never overwritten)."""
    label = re.sub(r"[^A-Za-z0-9.]+", "-", generator + (f"-{model}" if model and generator != "extractive" else "")).strip("-")
    stem = f"eval-{now:%Y-%m-%d}-{label}"
    path = folder / f"{stem}.md"
    n = 2
    while path.exists() or path.with_suffix(".json").exists():
        path = folder / f"{stem}-{n}.md"
        n += 1
    return path


class EvalInputError(Exception):
    """A questions file or earlier report that cannot be used; the message says which and why."""


# ------------------------------------------------------------------ the command


def run_eval(args: argparse.Namespace, now: datetime | None = None) -> int:
    """The `guide-tui eval` command: 0 when every target is met, 1 when one is missed, 2 on bad input."""
    from rich.console import Console

    errors = Console(stderr=True, highlight=False)
    try:
        return eval_command(args, now or datetime.now())
    except EvalInputError as err:
        errors.print(f"guide-tui: {err}", markup=False)
        return 2


def eval_command(args: argparse.Namespace, now: datetime) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from guide_tui.report import open_retriever

    if args.runs < 1:
        raise EvalInputError("--runs must be at least 1")
    if args.questions and Path(args.questions).suffix == ".jsonl":
        return traveller_eval(args, now)
    try:
        question_set = load_questions(args.questions)
    except FileNotFoundError as err:
        raise EvalInputError(f"questions file {args.questions} not found") from err
    except (OSError, UnicodeDecodeError, ValueError) as err:  # tomllib.TOMLDecodeError is a ValueError
        raise EvalInputError(f"questions file {args.questions or QUESTIONS_FILE} cannot be used: {err}") from err
    if not question_set.questions:
        raise EvalInputError(f"questions file {args.questions or QUESTIONS_FILE} has no [[question]] entries")
    earlier = read_earlier(args.compare) if args.compare else None
    knobs = chosen_knobs(args)
    retriever = open_retriever(args.index, gate=False, settings=knobs.settings)  # an uncalibrated index is measured too: "cutoff none"
    stderr = Console(stderr=True)
    total = args.runs * len(question_set.questions)
    with Progress(
        TextColumn("eval"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=stderr, transient=True, disable=not stderr.is_terminal
    ) as progress:
        task = progress.add_task("eval", total=total)
        evaluation = evaluate(
            retriever,
            args.questions,
            args.runs,
            args.generator,
            args.model,
            now,
            lambda: progress.advance(task),
            question_set=question_set,
            command=command_line(args),
        )
    evaluation.settings["knobs_from"] = knobs.source
    comparison = compare(earlier, evaluation) if earlier else None
    if earlier and earlier.get("settings", {}).get("questions") != evaluation.settings["questions"]:
        evaluation.settings["warnings"].append(
            f"the compared report asked other questions ({kinds_text(earlier.get('settings', {}).get('questions') or {})} then, "
            f"{kinds_text(evaluation.settings['questions'])} now): the changes mix question set and code"
        )
    out_dir = Path(args.out or reports_dir())
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = report_path(out_dir, now, args.generator, args.model)
        path.write_text(markdown_report(evaluation, comparison, str(args.compare) if args.compare else None), encoding="utf-8")
        path.with_suffix(".json").write_text(json.dumps(evaluation.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as err:
        raise EvalInputError(f"cannot write the report to {out_dir}: {err.strerror or err}") from err
    print_summary(evaluation, comparison, path)
    missed = [t for t in evaluation.targets if t["met"] is False]
    return 1 if missed else 0


TRAVELLER_TARGETS = {"right": 0.85, "wrongly_refused": 0.03, "handled": 0.89, "rank1": 0.82, "hit5": 0.97}
"""For a question file written by travellers (the shared dev set's format): issue 10's targets, as shares."""


def traveller_eval(args: argparse.Namespace, now: datetime) -> int:
    """eval over a JSON Lines question file: shared/eval/score.py's table, for all questions and for the
    odd and even ids apart (the two cross-validation halves), written to a dated report."""
    from guide_tui.report import open_retriever
    from guide_tui.scoring import first_headings, load_traveller_questions, score, score_table

    try:
        questions = load_traveller_questions(args.questions)
    except FileNotFoundError as err:
        raise EvalInputError(f"questions file {args.questions} not found") from err
    except (OSError, UnicodeDecodeError, ValueError) as err:
        raise EvalInputError(f"questions file {args.questions} cannot be used: {err}") from err
    if not questions:
        raise EvalInputError(f"questions file {args.questions} holds no questions")
    knobs = chosen_knobs(args)
    retriever = open_retriever(args.index, gate=False, settings=knobs.settings)
    started = time.perf_counter()
    asked = [answer_question(retriever, q.question, generator=args.generator, model=args.model) for q in questions]
    answers = [answer.to_json() for answer in asked]
    seconds = time.perf_counter() - started
    first_heading = first_headings(retriever.index.chunks)
    sections = []
    for label, keep in (("all", lambda q: True), ("odd ids", lambda q: q.number % 2 == 1), ("even ids", lambda q: q.number % 2 == 0)):
        chosen = [(q, a) for q, a in zip(questions, answers) if keep(q)]
        if chosen:
            scores = score([q for q, _ in chosen], [a for _, a in chosen], first_heading)
            sections.append((label, scores, score_table(scores)))
    overall = sections[0][1]
    results = [traveller_result(retriever, q, answer, overall.outcome[q.id], first_heading) for q, answer in zip(questions, asked)]
    answerable, unanswerable = overall.total(True), overall.total(False)
    figures = {
        "right": answerable.right / answerable.n if answerable.n else None,
        "wrongly_refused": answerable.refused / answerable.n if answerable.n else None,
        "handled": unanswerable.refused / unanswerable.n if unanswerable.n else None,
        "rank1": answerable.rank1 / answerable.n if answerable.n else None,
        "hit5": answerable.hit5 / answerable.n if answerable.n else None,
    }
    missed = [
        name for name, value in figures.items()
        if value is not None and (value > TRAVELLER_TARGETS[name] if name == "wrongly_refused" else value < TRAVELLER_TARGETS[name])
    ]
    settings = {
        "command": command_line(args),
        "index": str(retriever.index.folder),
        "questions": str(args.questions),
        "generator": args.generator,
        **run_settings(retriever),
        "knobs_from": knobs.source,
        "seconds": round(seconds, 1),
    }
    lines = [f"# guide-tui eval: {args.questions} ({now:%Y-%m-%d %H:%M})", "", "```", json.dumps(settings, indent=2), "```", ""]
    for label, _, table in sections:
        lines += [f"## {label}", "", "```", table, "```", ""]
    lines += ["## Targets", ""] + [
        f"- {name}: {'-' if value is None else f'{value:.3f}'} (target {'<=' if name == 'wrongly_refused' else '>='} "
        f"{TRAVELLER_TARGETS[name]}){' MISSED' if name in missed else ''}"
        for name, value in figures.items()
    ]
    lines += ["", "## Per question", ""] + [
        f"- {q.id} ({q.kind}): {overall.outcome[q.id]}" for q in questions
    ]
    lines += failure_class_markdown(results)
    out_dir = Path(args.out or reports_dir())
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        path = report_path(out_dir, now, args.generator + "-" + Path(args.questions).stem, args.model)
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        sidecar = {"settings": settings, "figures": figures, "answers": answers, "questions": [r.to_json() for r in results]}
        path.with_suffix(".json").write_text(json.dumps(sidecar, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except OSError as err:
        raise EvalInputError(f"cannot write the report to {out_dir}: {err.strerror or err}") from err
    for label, _, table in sections:
        print(f"{label}:\n{table}\n")
    print_failure_classes(results)
    for name in missed:
        print(f"MISSED: {name} {figures[name]:.3f} (target {TRAVELLER_TARGETS[name]})")
    print(settings_line(settings))
    print(f"report: {path}")
    return 1 if missed else 0


def traveller_result(retriever, question, answer, outcome: str, first_heading: dict[str, str]) -> QuestionResult:
    """The results-view line of a traveller question (scoring.py's format); outcome: its scoring.Scores outcome."""
    from guide_tui.scoring import wanted_sections

    place = None
    if question.answerable:
        expected = chunks_of_sections(retriever.index.chunks, sorted(wanted_sections(question, first_heading)))
        place = locate_expected(retriever, question.question, expected, shown=answer.retrieval)
    kind = failure_class(question.answerable, outcome in ("right", "handled"), answer.refused, place)
    return QuestionResult(question.id, question.kind, question.question, 1, kind, place, came_back(answer))


def run_settings(retriever) -> dict:
    """The knobs a report's answers were made with: retrieval's fusion settings and the answerability model's cut."""
    from guide_tui.answerability import shipped_model
    from guide_tui.retrieval import TOP_K

    model = shipped_model()
    return {
        "retrieval": {"top_k": TOP_K, "cutoff": retriever.cutoff, **retriever.fusion.to_json()},
        "answerability": {"threshold": model.threshold, "fitted_on": model.fitted_on},
    }


def settings_line(settings: dict) -> str:
    """run_settings in one line, for the command's output and the report's settings table."""
    retrieval = ", ".join(f"{name} {'none' if value is None else f'{value:g}'}" for name, value in settings["retrieval"].items())
    source = f" (knobs from {settings['knobs_from']})" if settings.get("knobs_from") else ""
    return f"retrieval: {retrieval}{source}; answerability threshold {settings['answerability']['threshold']:g}"


def command_line(args: argparse.Namespace) -> str:
    """The eval command that reproduces this report (defaults left out)."""
    parts = ["guide-tui eval"]
    if Path(args.index).resolve() != default_index().resolve():
        parts.append(f"--index {args.index}")
    if args.questions:
        parts.append(f"--questions {args.questions}")
    parts += [f"--runs {args.runs}", f"--generator {args.generator}"]
    if args.model:
        parts.append(f"--model {args.model}")
    return " ".join(parts)


def print_failure_classes(results: list[QuestionResult]) -> None:
    """`eval`'s failure classes on stdout: counts per kind and class, then each question that was not right."""
    if not results:
        return
    print("failure classes:\n" + class_counts_text(results) + "\n")
    failing = failing_lines(results)
    print("\n".join(["not right:", *(f"  {line}" for line in failing)]) + "\n" if failing else "every question right\n", flush=True)


def print_summary(evaluation: Evaluation, comparison: list[tuple] | None, path: Path) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 120)  # piped: one row a line
    table = Table(title=f"guide-tui eval ({evaluation.settings['generator']}, {len(evaluation.runs)} run(s))")
    for name in summary_header(evaluation):
        table.add_column(name, justify="left" if name in ("criterion", "verdict") else "right")
    for row in summary_rows(evaluation):
        table.add_row(*row, style="bold red" if row[-1] == "MISSED" else None)
    console.print(table)
    if comparison is not None:
        before_after = Table(title="before / after")
        for name in ("criterion", "before", "after", "change"):
            before_after.add_column(name, justify="left" if name == "criterion" else "right")
        for row in comparison:
            before_after.add_row(*row)
        console.print(before_after)
    print_failure_classes(evaluation.results)
    for warning in evaluation.settings["warnings"]:
        console.print(f"warning: {warning}", markup=False)
    for target in evaluation.targets:
        if target["met"] is False:
            sign = "≥" if target["at_least"] else "≤"
            measured = evaluation.overall[target["criterion"]]
            counts = f" ({measured.count} of {measured.total})" if measured.total else ""
            console.print(f"target missed: {target['name']} {sign} {target['target']:g}, measured {measured.value:.4f}{counts}", markup=False)
    console.print(settings_line(evaluation.settings), markup=False)
    console.print(f"report: {path}", markup=False)
