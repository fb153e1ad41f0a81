"""What an answer is, shared by every answerer and every reader of answers; imports nothing of the package
at run time, so the answerers, the claim check and the orchestrator can all use it without a circle."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Callable, Protocol

if TYPE_CHECKING:
    from guide_tui.answerability import Verdict
    from guide_tui.claims import Flag
    from guide_tui.extractive import Evidence
    from guide_tui.retrieval import Retrieval, Retriever

REFUSAL = "I don't have enough information about that."

OnText = Callable[[str], None]  # receives pieces of an answer as they become available


class Generator(StrEnum):
    """Who may answer: asked for on the command line and in the app."""

    AUTO = "auto"  # Ollama when it answers, else the extractive answerer (and say why)
    EXTRACTIVE = "extractive"  # quote the guides; never ask Ollama
    OLLAMA = "ollama"  # Ollama or fail: no quiet substitute


GENERATORS = tuple(g.value for g in Generator)


class RefusalReason(StrEnum):
    """Why an answer is a refusal (a str, so JSON output and comparisons with plain strings are unchanged)."""

    EMPTY_QUESTION = "empty question"
    GATE = "gate"  # no retrieved chunk within the calibrated cutoff
    ANSWERABILITY = "answerability"  # the retrieved sentences do not say what the question is about
    MODEL = "model"  # Ollama itself refused


@dataclass(frozen=True)
class Citation:
    file: str
    section: str
    chunk_id: str
    quote: str  # verbatim sentence from the chunk (wrapped lines joined by one space)
    shown: bool = True  # False: a chunk of the cited guide the model was not shown holds the sentence (claims)

    def to_json(self) -> dict:
        return {"file": self.file, "section": self.section, "chunk_id": self.chunk_id, "quote": self.quote, "shown": self.shown}


@dataclass
class Answer:
    question: str
    refused: bool
    text: str  # what the user reads; exactly REFUSAL when refused
    generator: str  # "extractive" or "ollama:<model>"
    retrieval: Retrieval
    citations: list[Citation] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)  # generated sentences the claim check could not support
    refusal_reason: RefusalReason | None = None
    fallback_reason: str | None = None  # why Ollama was not used, when it was asked for
    refusal_detail: str | None = None  # for answerability refusals: what the guides did not cover (names no source)
    invented_citations: list[str] = field(default_factory=list)  # files the model cited that it was not shown
    verdicts: list[Verdict] = field(default_factory=list)  # answerability per part of the question: probability, features
    flags: list[Flag] = field(default_factory=list)  # per unsupported sentence: why, against which source sentence
    check_note: str | None = None  # what the grounding model made of the answer, when one is set

    def sources(self) -> list[tuple[str, str]]:
        """(file, section) pairs in order of first citation; none for a refusal."""
        if self.refused:
            return []
        return list(dict.fromkeys((c.file, c.section) for c in self.citations))

    def to_json(self) -> dict:
        retrieval = self.retrieval.to_json()
        return {
            "question": self.question,
            "refused": self.refused,
            "answer": self.text,
            "generator": self.generator,
            "citations": [] if self.refused else [c.to_json() for c in self.citations],
            "unsupported": self.unsupported,
            "unsupported_reasons": [flag.to_json() for flag in self.flags],
            "invented_citations": self.invented_citations,
            "implied_place": retrieval["implied_place"],
            "slips": retrieval["slips"],
            "retrieved": retrieval["retrieved"],
            "gate": retrieval["gate"],
            "refusal_reason": self.refusal_reason,
            "refusal_detail": self.refusal_detail,
            "fallback_reason": self.fallback_reason,
            "answerability": [v.to_json() for v in self.verdicts],
            "check_note": self.check_note,
        }


@dataclass(frozen=True)
class Asked:
    """A question that passed the gate and answerability: everything an answerer may read."""

    retriever: Retriever
    retrieval: Retrieval  # its chunks within the cutoff are all an answer may use
    evidence: Evidence  # the sentences the extractive answerer quotes, and answerability's verdicts
    stop: threading.Event | None = None  # once set, an answerer still writing stops (Esc in the app)

    @property
    def question(self) -> str:
        return self.retrieval.question


class Answerer(Protocol):
    """Writes the answer to a question that passed the gate and answerability, or raises
    errors.OllamaUnavailable when it cannot (the caller may then try the next answerer)."""

    def stream(self, asked: Asked, on_text: OnText) -> Answer:
        """The answer, its pieces passed to on_text as they are written (partial text is discarded on a raise)."""
        ...

    def answer(self, asked: Asked) -> Answer:
        return self.stream(asked, lambda piece: None)
