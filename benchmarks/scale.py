"""How build, cold start, memory and per-question time grow with the region: the issue-12 table.

    python benchmarks/scale.py [COPIES ...]        # default: 1 100 1000
    ... --no-teacher                               # build the regions without the teacher (1x keeps it)
    SCALE_WORK=DIR ... --reuse                     # time the indexes DIR already holds (build figures from DIR/buildN.json)

Each size is a region of COPIES copies of corpus/ with the towns renamed per copy
(benchmarks/make_region.py; 1 = the bundled guides themselves), built with `guide-tui index`
(with the teacher, which masks the town names of a region's copies: indexes.teacher_texts), then
timed in fresh processes:
  build       wall and CPU time of `guide-tui index`, and its peak RSS
  cold ask    wall and CPU time and peak RSS of one `guide-tui ask` (median of 3; bytecode kept, as installed)
  question    in one process, after one warm-up question: retrieve and answer each labelled
              question (p50, ms, wall and CPU)
CPU times (user + sys) are what a quiet machine shows as wall time, roughly: the shared box rarely is.
Prints a markdown table with each figure's ratio to the 1x row.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from make_region import make_region  # noqa: E402

GUIDE_TUI = str(Path(sys.executable).parent / "guide-tui")
WORK = Path(os.environ.get("SCALE_WORK", "/tmp/guide-tui-scale"))
COLD_QUESTION = "When does the Kestrelford bakery sell out?"
IN_PROCESS = """
import json, statistics, sys, time
from guide_tui.answering import answer_question
from guide_tui.indexes import load_index
from guide_tui.questions import load_questions
from guide_tui.retrieval import Retriever
retriever = Retriever(load_index(sys.argv[1], rebuild_if_stale=False))
answer_question(retriever, "When does the Kestrelford bakery sell out?", generator="extractive")
times = {"retrieve": [], "answer": [], "retrieve_cpu": [], "answer_cpu": []}
for question in load_questions().questions:
    start, start_cpu = time.perf_counter(), time.process_time()
    retrieval = retriever.retrieve(question.text)
    middle, middle_cpu = time.perf_counter(), time.process_time()
    answer_question(retriever, question.text, generator="extractive", retrieval=retrieval)
    times["retrieve"].append(middle - start)
    times["answer"].append(time.perf_counter() - middle)
    times["retrieve_cpu"].append(middle_cpu - start_cpu)
    times["answer_cpu"].append(time.process_time() - middle_cpu)
print(json.dumps({name: statistics.median(values) * 1000 for name, values in times.items()}))
"""


def timed(command: list[str]) -> tuple[float, float, float, str]:
    """Wall seconds, CPU seconds (user + sys), peak RSS in MB and stdout of one process."""
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{' '.join(command[:4])}... failed (exit {process.returncode})")
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, out


def measure(copies: int, reuse: bool = False, teacher: bool = True) -> dict:
    region = ROOT / "corpus" if copies == 1 else WORK / f"region{copies}"
    index, record = WORK / f"index{copies}", WORK / f"build{copies}.json"
    if reuse and record.is_file():
        build_s, build_cpu, build_mb = json.loads(record.read_text())
    else:
        if copies > 1:
            make_region(ROOT / "corpus", copies, region)
        build = [GUIDE_TUI, "index", "--corpus", str(region), "--out", str(index)] + ([] if teacher or copies == 1 else ["--no-teacher"])
        build_s, build_cpu, build_mb, _ = timed(build)
        record.write_text(json.dumps([build_s, build_cpu, build_mb]))
    manifest = json.loads((index / "manifest.json").read_text())
    ask = [GUIDE_TUI, "ask", "--index", str(index), "--generator", "extractive", COLD_QUESTION]
    colds = [timed(ask) for _ in range(3)]
    per_question = json.loads(timed([sys.executable, "-c", IN_PROCESS, str(index)])[3])
    counts, teacher_towns = manifest["counts"], (manifest["teacher"] or {}).get("towns", "none")
    return {
        "region": f"{copies}x: {counts['guides']} guides, {counts['chunks']} chunks, {counts['sentences']} sentences; teacher: {teacher_towns}",
        "build_s": build_s,
        "build_cpu": build_cpu,
        "build_mb": build_mb,
        "cold_s": statistics.median(c[0] for c in colds),
        "cold_cpu": statistics.median(c[1] for c in colds),
        "cold_mb": statistics.median(c[2] for c in colds),
        **{f"{name}_ms": value for name, value in per_question.items()},
    }


def table(rows: list[dict]) -> str:
    base = rows[0]

    def cell(row: dict, key: str, form: str) -> str:
        ratio = "" if row is base else f" ({row[key] / base[key]:.0f}x)" if row[key] / base[key] >= 10 else f" ({row[key] / base[key]:.1f}x)"
        return format(row[key], form) + ratio

    lines = [
        "| region | build wall / CPU | build peak RSS | cold `ask` wall / CPU | cold `ask` peak RSS"
        " | per question p50, retrieve + answer: wall / CPU |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['region']} | {cell(row, 'build_s', '.1f')} s / {cell(row, 'build_cpu', '.1f')} s | {cell(row, 'build_mb', '.0f')} MB"
            f" | {cell(row, 'cold_s', '.2f')} s / {cell(row, 'cold_cpu', '.2f')} s | {cell(row, 'cold_mb', '.0f')} MB"
            f" | {cell(row, 'retrieve_ms', '.1f')} + {cell(row, 'answer_ms', '.1f')} ms"
            f" / {cell(row, 'retrieve_cpu_ms', '.1f')} + {cell(row, 'answer_cpu_ms', '.1f')} ms |"
        )
    return "\n".join(lines)


def main(sizes: list[int], reuse: bool, teacher: bool) -> None:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # every timed process runs as installed: bytecode compiled once, kept
    WORK.mkdir(parents=True, exist_ok=True)
    rows = []
    for copies in sizes:
        rows.append(measure(copies, reuse, teacher))
        print(json.dumps(rows[-1]), file=sys.stderr, flush=True)
    print(table(rows))


if __name__ == "__main__":
    options = {"--reuse", "--no-teacher"}
    main([int(n) for n in sys.argv[1:] if n not in options] or [1, 100, 1000], "--reuse" in sys.argv, "--no-teacher" not in sys.argv)
