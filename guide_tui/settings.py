"""Every setting guide-tui takes from outside its code, in objects: the environment variables (read in this
module only, never written), the retrieval knobs (passed to the Retriever, recorded in manifests and reports)
and the choices the app remembers between runs (the Ollama model and the retrieval knobs, in one small JSON file)."""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, replace
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


@contextmanager
def variable_hidden(variable: Variable) -> Iterator[None]:
    """The process environment without one variable for the time of a block, restored after (see ollama_address)."""
    value = os.environ.pop(variable.name, None)
    try:
        yield
    finally:
        if value is not None:
            os.environ[variable.name] = value


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
    teacher_let_in: float = 0.05
    """A top chunk beyond the cutoff is let in (above the cutoff line) when the question passed the gate, the chunk is
    about a town the question names, and the teacher finds it within this of the best top chunk: a preamble ("my husband
    uses a wheelchair -") pushes the static distance of the right section past the cutoff, not the teacher's cosine."""

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Knob:
    """One retrieval setting a user may change (settings.json, a CLI flag, a key in the app), and its bounds."""

    name: str  # its key in RetrievalSettings.to_json() and settings.json's "retrieval"
    low: float
    high: float
    step: float  # how far one move in the app takes it
    label: str  # how the app's knobs line names it
    integer: bool = False


KNOBS = (
    # 0.005: about half the calibrated cutoff's margin on either side (0.0098): two steps cross the nearest labelled question
    Knob("cutoff", 0.0, 2.0, 0.005, "cutoff"),  # a cosine distance: 0 (same direction) to 2 (opposite)
    Knob("vector_weight", 0.0, 1.0, 0.05, "vector"),  # the keyword side gets 1 minus it
    Knob("region_bonus", 0.0, 1.0, 0.05, "region"),  # the vector and keyword parts are 0..1 each: a bonus over 1 would outweigh both
    Knob("asked_value_bonus", 0.0, 1.0, 0.05, "value"),
    Knob("teacher_weight", 0.0, 5.0, 0.1, "teacher"),
    Knob("teacher_pool", 1, 1000, 1, "pool", integer=True),
    Knob("teacher_let_in", 0.0, 1.0, 0.01, "let in"),  # a margin of teacher cosine below the best top chunk
)
"""Every retrieval knob, in the order the app's knobs line shows them."""
KNOB_BY_NAME = {knob.name: knob for knob in KNOBS}


class SettingsError(ValueError):
    """A retrieval setting that cannot be used; the message names it and why, in one line."""


def checked_knob(name: str, value) -> float | int:
    """The value if it is a number within the knob's bounds (an integer for an integer knob), else SettingsError."""
    knob = KNOB_BY_NAME[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SettingsError(f"{name} must be a number, not {value!r}")
    if knob.integer and value != int(value):
        raise SettingsError(f"{name} must be a whole number, not {value!r}")
    if not knob.low <= value <= knob.high:
        raise SettingsError(f"{name} {value!r} is out of range ({knob.low:g} to {knob.high:g})")
    return int(value) if knob.integer else float(value)


@dataclass(frozen=True)
class RetrievalSettings:
    """Every knob retrieval takes: how it fuses its evidence and the cutoff (None: the index's calibrated one).
    Saved whole in settings.json by the app, read by `ask`, `retrieve`, `eval` and the app, recorded in eval reports."""

    fusion: FusionSettings = FusionSettings()
    cutoff: float | None = None

    def to_json(self) -> dict:
        return {"cutoff": self.cutoff, **self.fusion.to_json()}

    @classmethod
    def from_json(cls, values) -> RetrievalSettings:
        """Settings from settings.json's "retrieval" (a missing key keeps its default); SettingsError for anything else."""
        if not isinstance(values, dict):
            raise SettingsError(f"retrieval must be an object of settings, not {values!r}")
        unknown = sorted(set(values) - set(KNOB_BY_NAME))
        if unknown:
            raise SettingsError(f"unknown retrieval setting {unknown[0]!r} (known: {', '.join(KNOB_BY_NAME)})")
        cutoff = values.get("cutoff")
        fusion = {name: checked_knob(name, value) for name, value in values.items() if name != "cutoff"}
        return cls(FusionSettings(**fusion), None if cutoff is None else checked_knob("cutoff", cutoff))

    def value(self, name: str) -> float | None:
        return self.to_json()[name]

    def with_value(self, name: str, value: float | None) -> RetrievalSettings:
        """These settings with one knob set (checked_knob's bounds; None: the index's cutoff)."""
        if name == "cutoff":
            return replace(self, cutoff=None if value is None else checked_knob(name, value))
        return replace(self, fusion=replace(self.fusion, **{name: checked_knob(name, value)}))


SETTINGS_NAME = "settings.json"


@dataclass(frozen=True)
class SettingsFile:
    """Where the app keeps what the user picked; a missing or unreadable file means nothing was picked."""

    path: Path

    @classmethod
    def default(cls) -> SettingsFile:
        return cls(settings_dir() / SETTINGS_NAME)

    def read(self) -> dict:
        return self.read_checked()[0]

    def read_checked(self) -> tuple[dict, str | None]:
        """The saved values, and why the file could not be used (None: fine, or never saved): a preference is not
        worth failing over, but a damaged file is worth a warning."""
        try:
            values = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}, None
        except (OSError, ValueError) as err:
            return {}, f"{self.path} cannot be read ({err})"
        if not isinstance(values, dict):
            return {}, f"{self.path} holds no object of settings"
        return values, None

    def saved_retrieval(self) -> tuple[RetrievalSettings, str | None]:
        """The retrieval knobs saved by the app (defaults when none were), and a one-line warning when the file or a
        value in it cannot be used (then every knob takes its default: a half-applied tuning would mislead)."""
        values, problem = self.read_checked()
        if problem is None and "retrieval" in values:
            try:
                return RetrievalSettings.from_json(values["retrieval"]), None
            except SettingsError as err:
                problem = f"{self.path}: {err}"
        if problem is None:
            return RetrievalSettings(), None
        return RetrievalSettings(), f"{problem}; using the default retrieval settings"

    def saved_model(self) -> str | None:
        model = self.read().get("model")
        return model if isinstance(model, str) and model.strip() else None

    def remember(self, **values) -> str | None:
        """Merge values into the file (written whole, then renamed into place); the reason when it cannot be written."""
        merged = self.read() | values
        try:
            write_whole(self.path, json.dumps(merged, indent=2, sort_keys=True) + "\n")
        except OSError as err:
            return f"could not save {self.path}: {err.strerror or err}"
        return None


def write_whole(path: Path, text: str) -> None:
    """Write a small file whole, then rename it into place: a reader never sees half of it. Raises OSError."""
    temporary = path.with_name(f".{path.name}.tmp")
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary.write_text(text, encoding="utf-8")
    os.replace(temporary, path)


def knob_flag(name: str) -> str:
    """The command-line flag that sets a knob: vector_weight -> --vector-weight."""
    return "--" + name.replace("_", "-")


@dataclass(frozen=True)
class ChosenKnobs:
    """The retrieval knobs a command runs with, where they came from (for eval's report) and the settings file's warning."""

    settings: RetrievalSettings
    source: str  # "defaults", "settings.json", "settings.json + --cutoff", ...
    warning: str | None = None


def choose_knobs(flags: Mapping[str, float | None], settings_file: SettingsFile | None = None) -> ChosenKnobs:
    """The knobs saved in settings.json (the app's Ctrl+S), each one given as a flag (not None) winning."""
    settings_file = settings_file or SettingsFile.default()
    settings, warning = settings_file.saved_retrieval()
    saved = settings != RetrievalSettings() or (warning is None and "retrieval" in settings_file.read())
    given = [name for name, value in flags.items() if value is not None]
    for name in given:
        settings = settings.with_value(name, flags[name])
    source = " + ".join([str(settings_file.path) if saved else "defaults", *map(knob_flag, given)])
    return ChosenKnobs(settings, source, warning)


def chosen_knobs(args) -> ChosenKnobs:
    """The knobs for `ask`, `retrieve` and `eval` (args: their parsed command line, flags in knob_<name>):
    settings.json's, each flag given winning; the file's warning is said on stderr, once, in one line."""
    chosen = choose_knobs({knob.name: getattr(args, f"knob_{knob.name}", None) for knob in KNOBS})
    if chosen.warning:
        print(f"warning: {chosen.warning}", file=sys.stderr)
    return chosen
