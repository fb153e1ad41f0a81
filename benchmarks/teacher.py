"""Speed and size of the numpy teacher (guide_tui.teacher) on this machine; prints numbers, asserts nothing.

    .venv/bin/python benchmarks/teacher.py [--int8] [--formats]
    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/teacher.py      # BLAS on one thread

Cold figures come from fresh processes (median of 5; the files are in the page cache after the first).
--int8 checks whether per-row int8 weights would keep the nearest-neighbour ranking; --formats
compares mapping the .npy files with reading the same float16 weights from one uncompressed .npz.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from guide_tui.questions import load_questions
from guide_tui.teacher import BUNDLED_TEACHER, WEIGHTS_DIR, Teacher

ROOT = Path(__file__).resolve().parent.parent
RUNS = 5

COLD_LOAD = """
import time
start = time.perf_counter()
import numpy
numpy_imported = time.perf_counter()
from guide_tui.teacher import Teacher
teacher = Teacher()
loaded = time.perf_counter()
teacher.encode(["How early should I get to the bakery?"])
print(numpy_imported - start, loaded - numpy_imported, time.perf_counter() - loaded)
"""

FORMAT_LOAD = """
import sys, time
from pathlib import Path
import numpy as np
start = time.perf_counter()
mapped = {path.stem: np.load(path, mmap_mode="r") for path in sorted(Path(sys.argv[1]).glob("*.npy"))}
mapped_at = time.perf_counter()
with np.load(sys.argv[2]) as archive:
    read = {name: archive[name] for name in archive.files}
read_at = time.perf_counter()
as_float32 = {name: np.asarray(weight, dtype=np.float32) for name, weight in mapped.items()}
print(mapped_at - start, read_at - mapped_at, time.perf_counter() - read_at)
"""


def fresh_process(code: str, *args: str) -> list[float]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, cwd=ROOT).stdout
    return [float(value) for value in out.split()]


def corpus_sentences() -> list[str]:
    chunks = [json.loads(line) for line in (ROOT / "index" / "chunks.jsonl").read_text(encoding="utf-8").split("\n") if line]
    return list(dict.fromkeys(sentence for chunk in chunks for sentence in chunk["sentences"]))


def milliseconds(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms"


def report_size() -> None:
    files = [path for path in BUNDLED_TEACHER.rglob("*") if path.is_file()]
    print(f"size on disk: {sum(path.stat().st_size for path in files) / 1e6:.1f} MB in {len(files)} files ({BUNDLED_TEACHER.relative_to(ROOT)})")


def report_cold_load() -> None:
    runs = [fresh_process(COLD_LOAD) for _ in range(RUNS)]
    numpy_import, load, first = (statistics.median(run[step] for run in runs) for step in range(3))
    print(f"cold, in a fresh process (median of {RUNS}): import numpy {milliseconds(numpy_import)}, then import guide_tui.teacher + Teacher() "
          f"{milliseconds(load)}, then the first question {milliseconds(first)} (float32 layers made)")


def report_encoding(teacher: Teacher, questions: list[str], sentences: list[str]) -> None:
    teacher.encode(questions[:1])
    wall, cpu = [], []
    for question in questions:
        start, start_cpu = time.perf_counter(), time.process_time()
        teacher.encode([question])
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
    print(f"one question ({len(questions)} labelled questions, one at a time): wall p50 {milliseconds(statistics.median(wall))}, "
          f"p90 {milliseconds(sorted(wall)[int(len(wall) * 0.9)])}; CPU time p50 {milliseconds(statistics.median(cpu))}")
    start, start_cpu = time.perf_counter(), time.process_time()
    teacher.encode(sentences)
    print(f"all {len(sentences)} unique sentences of index/chunks.jsonl in one call: wall {milliseconds(time.perf_counter() - start)}, "
          f"CPU time {milliseconds(time.process_time() - start_cpu)}")


def int8_per_row(weight: np.ndarray) -> np.ndarray:
    """The weight after a round trip through int8 with one scale per row (vectors and biases stay as they are)."""
    weight = np.asarray(weight, dtype=np.float32)
    if weight.ndim != 2:
        return weight
    scale = np.maximum(np.abs(weight).max(axis=1, keepdims=True), 1e-12) / 127.0
    return np.round(weight / scale).astype(np.int8) * scale


def report_int8(teacher: Teacher, questions: list[str], sentences: list[str]) -> None:
    quantised = Teacher()
    quantised.weights = {name: int8_per_row(weight) for name, weight in teacher.weights.items()}
    texts = sentences + questions
    reference, trial = teacher.encode(texts), quantised.encode(texts)
    cosines = (reference * trial).sum(axis=1)
    n = len(sentences)
    ranked = [np.argsort(-(vectors[n:] @ vectors[:n].T), axis=1, kind="stable") for vectors in (reference, trial)]
    top1 = int((ranked[0][:, 0] == ranked[1][:, 0]).sum())
    top10 = int((ranked[0][:, :10] == ranked[1][:, :10]).all(axis=1).sum())
    print(f"int8 per row vs float16 weights: cosine min {cosines.min():.5f} mean {cosines.mean():.5f}; "
          f"nearest sentence identical for {top1}/{len(questions)} questions, top-10 order for {top10}/{len(questions)}")


def report_formats() -> None:
    with tempfile.TemporaryDirectory() as scratch:
        archive = Path(scratch) / "weights.npz"
        np.savez(archive, **{path.stem: np.load(path) for path in sorted((BUNDLED_TEACHER / WEIGHTS_DIR).glob("*.npy"))})
        runs = [fresh_process(FORMAT_LOAD, str(BUNDLED_TEACHER / WEIGHTS_DIR), str(archive)) for _ in range(RUNS)]
    mapped, read, converted = (statistics.median(run[step] for run in runs) for step in range(3))
    print(f"float16 weights, fresh process after numpy's import (median of {RUNS}): map the .npy files {milliseconds(mapped)}; "
          f"read one uncompressed .npz {milliseconds(read)}; every tensor to float32 from the maps {milliseconds(converted)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--int8", action="store_true")
    parser.add_argument("--formats", action="store_true")
    args = parser.parse_args()
    print(f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    report_size()
    report_cold_load()
    teacher = Teacher()
    questions = [question.text for question in load_questions().questions][:50]
    sentences = corpus_sentences()
    report_encoding(teacher, questions, sentences)
    if args.int8:
        report_int8(teacher, questions, sentences)
    if args.formats:
        report_formats()


if __name__ == "__main__":
    main()
