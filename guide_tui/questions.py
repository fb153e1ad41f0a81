"""The labelled questions (questions.toml): calibration, benchmark and eval all read them here."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from guide_tui.paths import QUESTIONS_FILE

KINDS = ("answerable", "near_miss", "off_topic")


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    kind: str  # answerable | near_miss | off_topic
    split: str  # tune | holdout: tune on one, report the other as the over-fitting check
    expected_chunks: tuple[str, ...] = ()  # first = best
    expected_phrase: str = ""
    need: str = ""

    @property
    def in_corpus(self) -> bool:
        return self.kind == "answerable"


@dataclass(frozen=True)
class QuestionSet:
    questions: list[Question]
    targets: dict = field(default_factory=dict)


def load_questions(path: Path | None = None) -> QuestionSet:
    """Read and check the labelled questions; a malformed file raises ValueError naming the question."""
    path = Path(path or QUESTIONS_FILE)
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    questions = []
    for n, row in enumerate(data.get("question", [])):
        try:
            question = Question(
                id=row["id"],
                text=row["text"],
                kind=row["kind"],
                split=row.get("split", "tune"),
                expected_chunks=tuple(row.get("expected_chunks", ())),
                expected_phrase=row.get("expected_phrase", ""),
                need=row.get("need", ""),
            )
        except (KeyError, TypeError) as err:
            raise ValueError(f"{path}: question {n + 1} is missing {err}") from err
        if question.kind not in KINDS:
            raise ValueError(f"{path}: question {question.id} has kind {question.kind!r}, not one of {', '.join(KINDS)}")
        questions.append(question)
    return QuestionSet(questions, dict(data.get("targets", {})))
