"""Answer every question set with the extractive answerer and record each question's outcome, by half.

    guide-tui index --corpus ../shared/corpora/city_guides --out /tmp/orig-index
    .venv/bin/python benchmarks/outcomes.py /tmp/orig-index --out /tmp/before.json
    (change a rule)
    .venv/bin/python benchmarks/outcomes.py /tmp/orig-index --out /tmp/after.json --compare /tmp/before.json

Outcomes are `guide_tui.scoring.score`'s (as ../shared/eval/score.py counts them). Halves: fitted (own questions and
the odd ids of the sets rules were written from), held (their even ids) and never (sets nobody wrote rules from).
The comparison lists every question whose outcome moved, but prints the question's words only for the fitted half:
the other halves are reported, never read question by question.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from guide_tui.answering import answer_question
from guide_tui.indexes import load_index
from guide_tui.paths import BUNDLED_INDEX
from guide_tui.retrieval import Retriever
from guide_tui.scoring import TravellerQuestion, first_headings, score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from question_sets import HALVES, ON_BUNDLED, half, question_sets  # noqa: E402

GOOD = {"right", "handled"}  # scoring.Scores.outcome of an answerable question answered right, an unanswerable one handled


def retrievers(originals_index: Path) -> dict[str, Retriever]:
    return {"bundled": Retriever(load_index(BUNDLED_INDEX)), "originals": Retriever(load_index(originals_index))}


def outcomes(sets: dict[str, list[TravellerQuestion]], by_index: dict[str, Retriever]) -> dict[str, dict]:
    """set:id -> half, kind, answerable, outcome, question and answer."""
    result = {}
    for name, questions in sets.items():
        retriever = by_index["bundled" if name in ON_BUNDLED else "originals"]
        answers = [answer_question(retriever, q.question, generator="extractive").to_json() for q in questions]
        outcome = score(questions, answers, first_headings(retriever.index.chunks)).outcome
        for q, a in zip(questions, answers, strict=True):
            result[f"{name}:{q.id}"] = {
                "half": half(name, q), "kind": q.kind, "answerable": q.answerable, "outcome": outcome[q.id],
                "question": q.question, "answer": a["answer"],
            }
    return result


def summary(label: str, result: dict[str, dict]) -> str:
    c: Counter = Counter((r["half"], r["answerable"], r["outcome"] in GOOD) for r in result.values())
    refused: Counter = Counter(r["half"] for r in result.values() if r["outcome"] == "refused")
    parts = []
    for h in HALVES:
        right, answerable = c[(h, True, True)], c[(h, True, True)] + c[(h, True, False)]
        handled, unanswerable = c[(h, False, True)], c[(h, False, True)] + c[(h, False, False)]
        parts.append(f"{h} ans {right}/{answerable} (refused {refused[h]}) un {handled}/{unanswerable}")
    return f"{label} " + " | ".join(parts)


def compare(before: dict[str, dict], after: dict[str, dict]) -> str:
    lines = []
    for key, now in after.items():
        was = before.get(key)
        if was is None or was["outcome"] == now["outcome"]:
            continue
        move = f"{key} [{now['half']} {now['kind']}] {was['outcome']} -> {now['outcome']}"
        if now["half"] == "fitted":
            move += f"\n    Q: {now['question']}\n    was: {was['answer'][:160]}\n    now: {now['answer'][:160]}"
        lines.append(move)
    return "\n".join(lines) or "no outcome moved"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("originals_index", type=Path, help="an index of ../shared/corpora/city_guides")
    parser.add_argument("--out", type=Path, help="write every outcome here (JSON)")
    parser.add_argument("--compare", type=Path, help="an earlier --out file: list the outcomes that moved")
    args = parser.parse_args()
    result = outcomes(question_sets(), retrievers(args.originals_index))
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    if args.compare:
        before = json.loads(args.compare.read_text())
        print(summary("before", before))
        print(compare(before, result))
    print(summary("now   ", result))


if __name__ == "__main__":
    main()
