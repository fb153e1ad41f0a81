"""Answers grounded in the guides: the contract shared by the extractive answerer and Ollama.

Every answer either quotes/cites retrieved chunks or is exactly REFUSAL with no
source. `answer_question` is the one entry point the CLI, the app and the eval use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from guide_tui.retrieval import Retrieval

REFUSAL = "I don't have enough information about that."


@dataclass(frozen=True)
class Citation:
    file: str
    section: str
    chunk_id: str
    quote: str  # verbatim sentence from the chunk (wrapped lines joined by one space)

    def to_json(self) -> dict:
        return {"file": self.file, "section": self.section, "chunk_id": self.chunk_id, "quote": self.quote}


@dataclass
class Answer:
    question: str
    refused: bool
    text: str  # what the user reads; exactly REFUSAL when refused
    generator: str  # "extractive" or "ollama:<model>"
    retrieval: Retrieval
    citations: list[Citation] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)  # generated sentences the claim check could not support
    refusal_reason: str | None = None  # "gate", "answerability", "model" or "empty question"
    fallback_reason: str | None = None  # why Ollama was not used, when it was asked for

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
            "retrieved": retrieval["retrieved"],
            "gate": retrieval["gate"],
            "refusal_reason": self.refusal_reason,
            "fallback_reason": self.fallback_reason,
        }


OnText = Callable[[str], None]
