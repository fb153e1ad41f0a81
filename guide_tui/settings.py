"""Every setting guide-tui takes from outside its code, in objects: the environment variables (read in this
module only, never written), the retrieval knobs (passed to the Retriever, recorded in manifests and reports)
and the choices the app remembers between runs (today only the Ollama model, in one small JSON file)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Mapping

from guide_tui.paths import settings_dir


@dataclass(frozen=True)
class Variable:
    name: str
    about: str  # what it sets, for `guide-tui doctor`


OLLAMA_HOST = Variable("OLLAMA_HOST", "where Ollama is asked")
OLLAMA_MODEL = Variable("GUIDE_TUI_OLLAMA_MODEL", "the Ollama model; --model overrides")
OLLAMA_TIMEOUT = Variable("GUIDE_TUI_OLLAMA_TIMEOUT", "seconds of silence allowed mid-answer")
OLLAMA_FIRST_TOKEN_TIMEOUT = Variable("GUIDE_TUI_OLLAMA_FIRST_TOKEN_TIMEOUT", "seconds to wait for the first token, loading the model included")
OLLAMA_KEEP_ALIVE = Variable("GUIDE_TUI_OLLAMA_KEEP_ALIVE", "how long Ollama keeps the model loaded after an answer")
GROUNDING_MODEL = Variable("GUIDE_TUI_GROUNDING_MODEL", "the grounding model that also checks Ollama's answers; unset: off")
GROUNDING_TIMEOUT = Variable("GUIDE_TUI_GROUNDING_TIMEOUT", "seconds allowed for each sentence's grounding verdict")
EMBEDDING_MODEL = Variable("GUIDE_TUI_MODEL", "the embedding model folder")
EXIT_AFTER = Variable("GUIDE_TUI_EXIT_AFTER", '"paint" or "ready": the app exits once there, for the start-up benchmark')
KILL_AFTER_STEP = Variable("GUIDE_TUI_KILL_AFTER_STEP", "crash tests: list an index write's steps, SIGKILL after the N-th")
RENAME_EXCHANGE = Variable("GUIDE_TUI_RENAME_EXCHANGE", "crash tests: 0 takes the path used where folders cannot be exchanged")
SOURCE_DATE_EPOCH = Variable("SOURCE_DATE_EPOCH", "fixes an index's build time, so a rebuild can be byte-identical")

VARIABLES = (
    OLLAMA_HOST, OLLAMA_MODEL, OLLAMA_TIMEOUT, OLLAMA_FIRST_TOKEN_TIMEOUT, OLLAMA_KEEP_ALIVE, GROUNDING_MODEL,
    GROUNDING_TIMEOUT, EMBEDDING_MODEL, EXIT_AFTER, KILL_AFTER_STEP, RENAME_EXCHANGE, SOURCE_DATE_EPOCH,
)  # fmt: skip
"""Every variable guide-tui reads, and what it sets."""


def positive_seconds(text: str | None) -> float | None:
    """A positive, finite number of seconds, or None for anything else (unset, empty, not a number)."""
    try:
        seconds = float(text or "")
    except ValueError:
        return None
    return seconds if 0 < seconds < math.inf else None


@dataclass(frozen=True)
class Environment:
    """What the environment variables say, each parsed once; None (or the default) where one is unset or unusable.
    Read when asked for (`environment()`), so a variable set before a command or a test is what that command sees."""

    ollama_host: str | None = None
    ollama_model: str | None = None
    ollama_timeout: float | None = None
    ollama_first_token_timeout: float | None = None
    ollama_keep_alive: str | None = None
    grounding_model: str | None = None
    grounding_timeout: float | None = None
    embedding_model: Path | None = None
    exit_after: str = ""
    kill_after_step: int | None = None
    rename_exchange: bool = True
    source_date_epoch: int | None = None

    @classmethod
    def read(cls, environ: Mapping[str, str]) -> Environment:
        def get(variable: Variable) -> str:
            return environ.get(variable.name, "")

        return cls(
            ollama_host=get(OLLAMA_HOST) or None,
            ollama_model=get(OLLAMA_MODEL) or None,
            ollama_timeout=positive_seconds(get(OLLAMA_TIMEOUT)),
            ollama_first_token_timeout=positive_seconds(get(OLLAMA_FIRST_TOKEN_TIMEOUT)),
            ollama_keep_alive=get(OLLAMA_KEEP_ALIVE) or None,
            grounding_model=get(GROUNDING_MODEL).strip() or None,
            grounding_timeout=positive_seconds(get(GROUNDING_TIMEOUT)),
            embedding_model=Path(get(EMBEDDING_MODEL)) if EMBEDDING_MODEL.name in environ else None,
            exit_after=get(EXIT_AFTER),
            kill_after_step=int(get(KILL_AFTER_STEP)) if get(KILL_AFTER_STEP).isdigit() else None,
            rename_exchange=get(RENAME_EXCHANGE) != "0",
            source_date_epoch=int(get(SOURCE_DATE_EPOCH)) if get(SOURCE_DATE_EPOCH).isdigit() else None,
        )


def environment() -> Environment:
    """The environment variables as they are now."""
    return Environment.read(os.environ)


def raw_values() -> dict[str, str | None]:
    """Each variable's text as set (None: unset), for `guide-tui doctor`."""
    return {variable.name: os.environ.get(variable.name) for variable in VARIABLES}


@dataclass(frozen=True)
class FusionSettings:
    """How retrieval weighs its evidence; measured on the "tune" questions (benchmarks/benchmark.py retrieval;
    figures in results/ and the README)."""

    vector_weight: float = 0.7
    """Share of the fused score from vector similarity; BM25 gets the rest. The vectors know that "shut" and
    "close" mean one thing, BM25 knows that "Verrill" is rare."""
    region_bonus: float = 0.1
    """Added to chunks of the region-wide guides (eating, walking, seasons...) when the question names no town:
    "which town is easiest in a wheelchair?" is a question about the region."""
    asked_value_bonus: float = 0.1
    """Added to chunks that contain the kind of value the question asks for ("what time" -> a clock time,
    "how much" -> a price): within one town's guide several sections mention the farm shop, one says when it shuts."""
    teacher_pool: int = 20
    """How many chunks, best first by the fused score, the teacher model re-scores (the second stage)."""
    teacher_weight: float = 1.5
    """Added to a pooled chunk's fused score times its best sentence's teacher similarity, scaled to 0..1 over
    the pool: the teacher reads word order and phrasing the static vectors cannot."""

    def to_json(self) -> dict:
        return asdict(self)


SETTINGS_NAME = "settings.json"


@dataclass(frozen=True)
class SettingsFile:
    """Where the app keeps what the user picked; a missing or unreadable file means nothing was picked."""

    path: Path

    @classmethod
    def default(cls) -> SettingsFile:
        return cls(settings_dir() / SETTINGS_NAME)

    def read(self) -> dict:
        try:
            values = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # never saved, or damaged: a preference is not worth failing over
            return {}
        return values if isinstance(values, dict) else {}

    def saved_model(self) -> str | None:
        model = self.read().get("model")
        return model if isinstance(model, str) and model.strip() else None

    def remember(self, **values) -> str | None:
        """Merge values into the file (written whole, then renamed into place); the reason when it cannot be written."""
        merged = self.read() | values
        temporary = self.path.with_name(f".{self.path.name}.tmp")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_text(json.dumps(merged, indent=2, sort_keys=True) + "\n", encoding="utf-8")
            os.replace(temporary, self.path)
        except OSError as err:
            return f"could not save {self.path}: {err.strerror or err}"
        return None
