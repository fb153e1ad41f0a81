"""Question files written by travellers (JSON Lines, the shared eval format) and their per-kind scores.

Each line: id, question, answerable, kind, expects (phrases a right answer holds; "a|b": either),
source_sections ("file :: Heading", "(preamble)" for the text before the first heading),
also_right (for unanswerable ones: the guides' correction of a false premise). Scored exactly as
shared/eval/score.py scores `ask --json` output, so `guide-tui eval` and that script agree.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

UNANSWERABLE_KINDS = ("near_miss", "false_premise", "out_of_scope")
PREAMBLE = "(preamble)"


@dataclass(frozen=True)
class TravellerQuestion:
    id: str
    question: str
    answerable: bool
    kind: str
    expects: tuple[str, ...] = ()
    source_sections: tuple[str, ...] = ()
    also_right: tuple[str, ...] = ()

    @property
    def number(self) -> int:
        """The number in the id ("dev-017" -> 17): odd and even ids are the two cross-validation halves."""
        digits = re.findall(r"\d+", self.id)
        return int(digits[-1]) if digits else 0


def load_traveller_questions(path: Path) -> list[TravellerQuestion]:
    """Read a JSON Lines question file; a malformed line raises ValueError naming it."""
    questions = []
    for n, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            questions.append(TravellerQuestion(
                str(row["id"]), str(row["question"]), bool(row["answerable"]), str(row["kind"]),
                tuple(row.get("expects", ())), tuple(row.get("source_sections", ())), tuple(row.get("also_right", ())),
            ))
        except (json.JSONDecodeError, KeyError, TypeError) as err:
            raise ValueError(f"{path}: line {n} is not a question ({err})") from err
    return questions


def norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def holds(answer: str, phrases: tuple[str, ...]) -> bool:
    """Every phrase (or one of its "a|b" alternatives) is in the answer, spacing and case aside."""
    said = norm(answer)
    return all(any(norm(alt) in said for alt in phrase.split("|")) for phrase in phrases)


def first_headings(chunks) -> dict[str, str]:
    """file -> the heading of its first chunk, which holds the text before that heading ("(preamble)")."""
    return {chunk.file: chunk.section for chunk in chunks if chunk.chunk_id.endswith("#0")}


def wanted_sections(question: TravellerQuestion, first_heading: dict[str, str]) -> set[tuple[str, str]]:
    """(file, section) pairs that hold the answer; "(preamble)" is the first section's chunk."""
    wanted = set()
    for source in question.source_sections:
        file, _, heading = source.partition(" :: ")
        wanted.add((file, first_heading.get(file, heading) if heading == PREAMBLE else heading))
    return wanted


@dataclass
class KindScore:
    n: int = 0
    right: int = 0
    refused: int = 0  # answerable: wrongly refused; unanswerable: handled (refused or corrected)
    rank1: int = 0
    hit5: int = 0


@dataclass
class Scores:
    by_kind: dict[str, KindScore] = field(default_factory=lambda: defaultdict(KindScore))
    outcome: dict[str, str] = field(default_factory=dict)  # question id -> right / wrong / refused / handled / answered

    def total(self, answerable: bool) -> KindScore:
        total = KindScore()
        for kind, score in self.by_kind.items():
            if (kind not in UNANSWERABLE_KINDS) == answerable:
                for name in vars(total):
                    setattr(total, name, getattr(total, name) + getattr(score, name))
        return total


def score(questions: list[TravellerQuestion], answers: list[dict], first_heading: dict[str, str]) -> Scores:
    """Per-kind scores of `ask --json` answers (in question order), as shared/eval/score.py counts them."""
    scores = Scores()
    for question, answer in zip(questions, answers, strict=True):
        kind = scores.by_kind[question.kind]
        kind.n += 1
        if question.answerable:
            got = [(hit["file"], hit["section"]) for hit in answer["retrieved"]][:5]
            want = wanted_sections(question, first_heading)
            kind.rank1 += bool(got) and got[0] in want
            kind.hit5 += any(g in want for g in got)
            if answer["refused"]:
                kind.refused += 1
                scores.outcome[question.id] = "refused"
            elif holds(answer["answer"], question.expects):
                kind.right += 1
                scores.outcome[question.id] = "right"
            else:
                scores.outcome[question.id] = "wrong"
        else:
            corrected = bool(question.also_right) and not answer["refused"] and holds(answer["answer"], question.also_right)
            handled = bool(answer["refused"]) or corrected
            kind.refused += handled
            scores.outcome[question.id] = "handled" if handled else "answered"
    return scores


def score_table(scores: Scores) -> str:
    """The per-kind table and the summary line, in shared/eval/score.py's layout."""
    lines = [f"{'kind':15} {'n':>4} {'right':>7} {'refused':>8} {'rank-1':>7} {'hit@5':>6}"]
    nan = float("nan")
    for kind, k in sorted(scores.by_kind.items()):
        answerable = kind not in UNANSWERABLE_KINDS
        lines.append(
            f"{kind:15} {k.n:4} {k.right / k.n if answerable else nan:7.3f} {k.refused / k.n:8.3f} "
            f"{k.rank1 / k.n if answerable else nan:7.3f} {k.hit5 / k.n if answerable else nan:6.3f}"
        )
    a, u = scores.total(True), scores.total(False)
    if a.n:
        lines.append(
            f"answerable {a.n}: right {a.right / a.n:.3f}, wrongly refused {a.refused}, rank-1 {a.rank1 / a.n:.3f}, "
            f"hit@5 {a.hit5 / a.n:.3f}; unanswerable {u.n}: handled (refused, or corrected where also_right) {u.refused}/{u.n}"
        )
    return "\n".join(lines)
