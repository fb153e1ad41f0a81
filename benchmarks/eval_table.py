"""Print the README's eval table (by kind, one column per question set or half) from the newest eval reports.

    sh benchmarks/eval_all.sh /tmp/orig-index
    .venv/bin/python benchmarks/eval_table.py > /tmp/table.md   # then paste it over the README's table

Each column reads one section ("all", "odd ids" or "even ids") of results/eval-<date>-extractive-<set>-questions.md,
the newest of each set; a set's column says how it was first measured, which the report cannot know.
"""

from __future__ import annotations

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parent.parent / "results"
COLUMNS = [  # (heading, set, section of its report)
    ("dev, all", "dev", "all"), ("dev odd ids (fitted)", "dev", "odd ids"), ("dev even ids (held out)", "dev", "even ids"),
    ("own 170 (fitted)", "own", "all"), ("fresh 120 (held out)", "fresh", "all"), ("hard even ids (held out)", "hard", "even ids"),
    ("varied even ids (held out)", "varied", "even ids"), ("plain even ids (held out)", "plain", "even ids"),
    ("broad even ids (held out)", "broad", "even ids"), ("mixed 100 (never used)", "mixed", "all"),
    ("travel even ids (held out)", "travel", "even ids"), ("visitor 100 (session 13, never fitted)", "visitor", "all"),
    ("weekend 100 (session 14, measured first)", "weekend", "all"), ("autumn 100 (session 14, never fitted)", "autumn", "all"),
    ("winter 100 (session 15, measured once)", "winter", "all"), ("december 100 (session 16, measured once)", "december", "all"),
    ("january 100 (session 17, measured once)", "january", "all"), ("february 100 (session 18, measured once)", "february", "all"),
    ("spring 60 (session 20, measured once)", "spring", "all"), ("summer 70 (session 21, measured once)", "summer", "all"),
    ("harvest 70 (session 21, measured once)", "harvest", "all"), ("frost 70 (session 22, measured once)", "frost", "all"),
    ("meadow 70 (session 22, measured once)", "meadow", "all"), ("thaw 70 (session 23, measured once)", "thaw", "all"),
    ("dusk 70 (session 24, measured once)", "dusk", "all"), ("ember 70 (session 25, measured once)", "ember", "all"),
    ("flint 70 (session 26, measured once)", "flint", "all"), ("glade 70 (session 27, measured once)", "glade", "all"),
    ("heath 70 (session 30, measured once)", "heath", "all"), ("offtopic 150 (session 30, never fitted)", "offtopic", "all"),
    ("ivy 70 (session 31, measured once)", "ivy", "all"), ("juniper 70 (session 32, measured once)", "juniper", "all"),
    ("kelp 70 (session 33, measured once)", "kelp", "all"), ("lark 70 (session 34, measured once)", "lark", "all"),
    ("nettle 70 (session 35, measured once)", "nettle", "all"), ("orchid 70 (session 36, measured once)", "orchid", "all"),
    ("pine 70 (session 37, measured once)", "pine", "all"),
    ("quince 70 (session 38, measured once)", "quince", "all"),
    ("rowan 70 (session 38, measured once)", "rowan", "all"),
    ("sorrel 70 (session 38, measured once)", "sorrel", "all"),
    ("tansy 70 (session 39, measured once)", "tansy", "all"),
    ("umber 70 (session 40, measured once)", "umber", "all"),
    ("vetch 70 (session 41, measured once)", "vetch", "all"),
    ("willow 70 (session 42, measured once)", "willow", "all"),
    ("yarrow 70 (session 43, measured once)", "yarrow", "all"),
    ("zinnia 70 (session 44, measured once)", "zinnia", "all"),
    ("aster 70 (session 45, measured once)", "aster", "all"),
    ("birch 70 (session 46, measured once)", "birch", "all"),
    ("cedar 80 (session 46, measured once)", "cedar", "all"),
    ("dahlia 70 (session 47, measured once)", "dahlia", "all"),
    ("elm 70 (session 47, measured once)", "elm", "all"),
    ("fern 70 (session 48, measured once)", "fern", "all"),
]  # fmt: skip
ANSWERABLE = ["direct", "paraphrase", "list", "multi_part", "yes_no"]
UNANSWERABLE = [("near_miss", "near_miss refused"), ("false_premise", "false_premise handled"), ("out_of_scope", "out_of_scope refused")]
KIND_ROW = re.compile(r"(\w+)\s+(\d+)\s+(\S+)\s+(\S+)\s+\S+\s+\S+$")
SUMMARY = re.compile(
    r"answerable (\d+): right (\S+), wrongly refused (\d+), rank-1 (\S+), hit@5 (\S+); unanswerable \d+: handled .*? (\d+/\d+)"
)


def newest_report(name: str) -> Path:
    reports = sorted(RESULTS.glob(f"eval-????-??-??-extractive-{name}-questions.md"))
    if not reports:
        raise SystemExit(f"no report for {name} in {RESULTS}: run benchmarks/eval_all.sh first")
    return reports[-1]


def section(name: str, part: str) -> tuple[dict[str, tuple[int, str, float]], re.Match | None]:
    """Per kind (n, right, refused) and the summary line of one section of a set's newest report."""
    text = newest_report(name).read_text(encoding="utf-8")
    block = text.split(f"## {part}\n", 1)[1].split("```", 2)[1]
    kinds = {m.group(1): (int(m.group(2)), m.group(3), float(m.group(4)))
             for m in map(KIND_ROW.match, block.splitlines()) if m and m.group(1) != "kind"}
    return kinds, SUMMARY.search(block)


def table() -> list[str]:
    rows: dict[str, list[str]] = {label: [] for label in [*ANSWERABLE, "**answerable right**", "wrongly refused", "rank-1 / hit@5",
                                                          *(label for _, label in UNANSWERABLE), "**unanswerable handled**"]}
    for _, name, part in COLUMNS:
        kinds, summary = section(name, part)
        for kind in ANSWERABLE:
            rows[kind].append(kinds[kind][1] if kind in kinds else "")
        for kind, label in UNANSWERABLE:
            n, _, refused = kinds.get(kind, (0, "", 0.0))
            rows[label].append(f"{round(refused * n)}/{n}" if n else "")
        answerable = summary is not None and summary.group(1) != "0"
        rows["**answerable right**"].append(summary.group(2) if answerable else "")
        rows["wrongly refused"].append(f"{summary.group(3)}/{summary.group(1)}" if answerable else "")
        rows["rank-1 / hit@5"].append(f"{summary.group(4)} / {summary.group(5)}" if answerable else "")
        if summary is None:  # a set of unanswerable questions only has no summary line: count what its kinds refused
            counted = [kinds[kind] for kind, _ in UNANSWERABLE if kind in kinds]
            handled = f"{sum(round(refused * n) for n, _, refused in counted)}/{sum(n for n, _, _ in counted)}"
        rows["**unanswerable handled**"].append(summary.group(6) if summary else handled)
    header = "| kind | " + " | ".join(heading for heading, _, _ in COLUMNS) + " |"
    return [header, "|" + "---|" * (len(COLUMNS) + 1), *(f"| {label} | " + " | ".join(cells) + " |" for label, cells in rows.items())]


if __name__ == "__main__":
    print("\n".join(table()))
