"""Which labelled question sets there are, which half each question is in, and which index answers it.

Halves: fitted (own questions and the odd ids of the SPLIT sets, which rules and the answerability model were fitted
on), held (their even ids) and never (NEVER sets, which nobody wrote rules from or fitted on).
"""

from __future__ import annotations

from pathlib import Path

from guide_tui.scoring import TravellerQuestion, load_traveller_questions

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "benchmarks" / "data"
DEV = ROOT.parent / "shared" / "eval" / "dev_questions.jsonl"
ORIGINALS = ROOT.parent / "shared" / "corpora" / "city_guides"
# odd ids fitted, even ids held out
SPLIT = [
    "dev", "hard", "varied", "plain", "broad", "travel", "weekend", "answerable", "summer", "harvest", "frost", "meadow", "thaw", "dusk", "ember",
    "flint", "glade", "heath", "ivy", "juniper", "kelp", "lark", "nettle", "orchid", "pine", "quince", "rowan", "sorrel", "tansy",
    "umber", "vetch", "willow", "yarrow", "zinnia", "aster", "birch", "cedar", "dahlia", "elm", "fern",
]  # fmt: skip
NEVER = ["fresh", "mixed", "closing", "visitor", "autumn", "winter", "december", "january", "february", "spring", "offtopic"]  # never used to write a rule
ON_BUNDLED = {"own", "fresh", "hard", "varied"}  # written about the project's own edition of the guides
HALVES = ("fitted", "held", "never")


def half(name: str, question: TravellerQuestion) -> str:
    if name in NEVER:
        return "never"
    if name == "own":
        return "fitted"
    return "fitted" if question.number % 2 else "held"


def question_sets() -> dict[str, list[TravellerQuestion]]:
    paths = {name: DATA / f"{name}_questions.jsonl" for name in ["own", *SPLIT, *NEVER]} | {"dev": DEV}
    return {name: load_traveller_questions(path) for name, path in paths.items() if path.is_file()}
