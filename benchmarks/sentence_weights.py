"""Sweep the extractive answerer's sentence-ranking weights one at a time, counted per half of every question set.

    guide-tui index --corpus ../shared/corpora/city_guides --out /tmp/orig-index
    .venv/bin/python benchmarks/sentence_weights.py /tmp/orig-index KIND_WEIGHT=0.5,0.75 COVERAGE_WEIGHT=0.75,1.25

Prints answerable questions answered right and unanswerable ones handled (refused, or answered with their
`also_right` correction), as `guide_tui.scoring.score` (and ../shared/eval/score.py) counts them, for three halves: fitted (own questions and the
odd ids of the sets rules were written from), held (their even ids) and never (sets nobody wrote rules from).
Choose on the fitted line only; the other two say whether the choice carries over (results/sentence-weights-*.txt).
"""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path

import guide_tui.extractive as extractive
from guide_tui.answering import answer_question
from guide_tui.indexes import load_index
from guide_tui.paths import BUNDLED_INDEX
from guide_tui.retrieval import Retriever
from guide_tui.scoring import first_headings, load_traveller_questions, score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from fit_answerability import DEV  # noqa: E402 (the dev set's one path among the benchmarks)

DATA = Path(__file__).resolve().parent / "data"
GOOD = {"right", "handled"}  # scoring.Scores.outcome of an answerable question answered right, an unanswerable one handled
SPLIT = ["hard", "varied", "plain", "broad", "travel", "weekend", "answerable"]  # odd ids fitted, even ids held out
NEVER = ["fresh", "mixed", "closing", "visitor", "autumn", "winter", "december"]  # never used to write a rule
ON_BUNDLED = {"own", "fresh", "hard", "varied"}  # written about the project's own edition of the guides


def half(name: str, question_id: str) -> str:
    if name in NEVER:
        return "never"
    if name == "own":
        return "fitted"
    return "fitted" if int(re.findall(r"\d+", question_id)[-1]) % 2 else "held"


def counts(sets: dict, retrievers: dict) -> Counter:
    result: Counter = Counter()
    for name, questions in sets.items():
        retriever = retrievers["bundled" if name in ON_BUNDLED else "originals"]
        answers = [answer_question(retriever, q.question, generator="extractive").to_json() for q in questions]
        outcome = score(questions, answers, first_headings(retriever.index.chunks)).outcome
        for q in questions:
            result[(half(name, q.id), q.answerable, outcome[q.id] in GOOD)] += 1
    return result


def line(label: str, c: Counter) -> str:
    parts = []
    for h in ("fitted", "held", "never"):
        right, answerable = c[(h, True, True)], c[(h, True, True)] + c[(h, True, False)]
        handled, unanswerable = c[(h, False, True)], c[(h, False, True)] + c[(h, False, False)]
        parts.append(f"{h} ans {right}/{answerable} un {handled}/{unanswerable}")
    return f"{label} " + " | ".join(parts)


def main(originals_index: str, *sweeps: str) -> None:
    paths = {"dev": DEV} | {name: DATA / f"{name}_questions.jsonl" for name in ["own", *SPLIT, *NEVER]}
    sets = {name: load_traveller_questions(path) for name, path in paths.items() if path.is_file()}
    retrievers = {"bundled": Retriever(load_index(BUNDLED_INDEX)), "originals": Retriever(load_index(Path(originals_index)))}
    print(line("base", counts(sets, retrievers)), flush=True)
    for sweep in sweeps:
        name, values = sweep.split("=")
        before = getattr(extractive, name)
        for value in values.split(","):
            setattr(extractive, name, type(before)(float(value)))
            print(line(f"{name}={value}", counts(sets, retrievers)), flush=True)
        setattr(extractive, name, before)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(*sys.argv[1:])
