"""What the app knows about Ollama: reachable or not with which model, and the answer streaming now."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable

STALL_AFTER = 3.0  # seconds without a token before the status line says the stream has stalled


@dataclass(frozen=True)
class OllamaState:
    """What the status line says about Ollama."""

    checked: bool
    usable: bool = False
    detail: str = ""


Clock = Callable[[], float]  # seconds, as time.monotonic: the status line's waits and rates are read from it


@dataclass
class Stream:
    """The answer streaming now: what the status line counts (pieces are Ollama's tokens, near enough)."""

    clock: Clock = time.monotonic
    started: float = field(init=False)
    pieces: int = 0
    first: float | None = None  # when the first piece came
    last: float | None = None  # when the latest piece came

    def __post_init__(self) -> None:
        self.started = self.clock()

    def add_piece(self) -> None:
        self.last = self.clock()
        self.first = self.first or self.last
        self.pieces += 1

    def describe(self, now: float, stall_after: float) -> str:
        """"waiting for the first token (n s)", "streaming n tok/s" or "stalled for n s"."""
        if self.last is None:
            return f"waiting for the first token ({now - self.started:.0f} s; a model's first load can take minutes)"
        if now - self.last >= stall_after:
            return f"stalled for {now - self.last:.0f} s (Esc stops)"
        rate = (self.pieces - 1) / (self.last - self.first) if self.last > self.first else 0.0
        return f"streaming {rate:.1f} tok/s (Esc stops)"


def probe_ollama(generator: str, model: str | None) -> OllamaState:
    if generator == "extractive":
        return OllamaState(True, False, "not used")
    from guide_tui.ollama_answerer import probe, resolve_model

    status = probe(model=model)
    if status.reachable and status.model_available:
        return connected(resolve_model(model))
    return OllamaState(True, False, status.detail)


def connected(model: str) -> OllamaState:
    return OllamaState(True, True, f"connected, model {model}")
