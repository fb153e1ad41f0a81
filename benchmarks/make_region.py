"""Write a synthetic region of N copies of a folder of guides, every town renamed per copy.

Copy 0 keeps the original names; copy k renames each town "Upper Kestrelford Magna",
"Lower Halden Bay Heath"... (so names contain other names), and its region-wide guides
(eating, walking...) stay region-wide: their file names do not match their titles.

    python benchmarks/make_region.py CORPUS_DIR COPIES OUT_DIR
"""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path

from guide_tui.corpus import load_corpus
from guide_tui.retrieval import TownNames

PREFIXES = ["Upper", "Lower", "Great", "Little", "North", "South", "East", "West", "Old", "New"]
SUFFIXES = ["Magna", "Parva", "Heath", "Green", "End", "Cross", "Hill", "Marsh", "Common", "Moor"]
TAILS = ["", " on Sea", " by Wold", " under Edge", " in Fen", " St Mary", " St John", " Abbots", " Regis", " Episcopi"]


def renamed(town: str, copy: int) -> str:
    """The town's name in the given copy (copy 0: unchanged); unique for copies below 1000."""
    if copy == 0:
        return town
    return f"{PREFIXES[copy % 10]} {town} {SUFFIXES[copy // 10 % 10]}{TAILS[copy // 100 % 10]}"


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.lower())


def make_region(corpus_dir: Path, copies: int, out_dir: Path) -> int:
    """Write the region; returns how many guides were written."""
    corpus = load_corpus(corpus_dir)
    guides = {g.file: (corpus_dir / g.file).read_text(encoding="utf-8") for g in corpus.guides}
    towns = {g.file: g.title for g in corpus.guides if g.file == f"guide_{slug(g.title)}.md"}
    names = TownNames(towns.values())
    if out_dir.exists():
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)
    for copy in range(copies):
        for file, text in guides.items():
            parts, at = [], 0
            for start, end, town in names.spans(text):
                parts += [text[at:start], renamed(town, copy) + text[start + len(town) : end]]
                at = end
            text = "".join(parts) + text[at:]
            if file in towns:
                name = f"guide_{slug(renamed(towns[file], copy))}.md"
            else:
                name = file if copy == 0 else file.replace(".md", f"_{copy:04d}.md")
            (out_dir / name).write_text(text, encoding="utf-8")
    return copies * len(guides)


if __name__ == "__main__":
    corpus_dir, copies, out_dir = Path(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
    print(f"{make_region(corpus_dir, copies, out_dir)} guides -> {out_dir}")
