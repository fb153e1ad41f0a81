"""Sweep the extractive answerer's sentence-ranking weights one at a time, counted per half of every question set.

    guide-tui index --corpus ../shared/corpora/city_guides --out /tmp/orig-index
    .venv/bin/python benchmarks/sentence_weights.py /tmp/orig-index KIND_WEIGHT=0.5,0.75 COVERAGE_WEIGHT=0.75,1.25

Prints answerable questions answered right and unanswerable ones handled (refused, or answered with their
`also_right` correction) for the three halves of benchmarks/outcomes.py: fitted, held and never.
Choose on the fitted line only; the other two say whether the choice carries over (results/sentence-weights-*.txt).
"""

from __future__ import annotations

import sys
from pathlib import Path

import guide_tui.extractive as extractive

sys.path.insert(0, str(Path(__file__).resolve().parent))
from outcomes import outcomes, retrievers, summary  # noqa: E402
from question_sets import question_sets  # noqa: E402


def main(originals_index: str, *sweeps: str) -> None:
    sets, by_index = question_sets(), retrievers(Path(originals_index))
    print(summary("base", outcomes(sets, by_index)), flush=True)
    for sweep in sweeps:
        name, values = sweep.split("=")
        before = getattr(extractive, name)
        for value in values.split(","):
            setattr(extractive, name, type(before)(float(value)))
            print(summary(f"{name}={value}", outcomes(sets, by_index)), flush=True)
        setattr(extractive, name, before)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(*sys.argv[1:])
