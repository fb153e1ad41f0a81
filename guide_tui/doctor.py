"""`guide-tui doctor`: where everything is read from and written to, and whether it works: the first thing to run when something is off."""

from __future__ import annotations

import sys
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from guide_tui import paths
from guide_tui.settings import VARIABLES, RetrievalSettings, SettingsFile, environment, raw_values

LIBRARIES = ("textual", "rich", "tantivy", "usearch", "model2vec", "tokenizers", "numpy", "ollama", "platformdirs")


def installed_version(name: str = "guide-tui") -> str:
    try:
        return version(name)
    except PackageNotFoundError:
        return "not installed"


def row(label: str, value: str) -> str:
    return f"  {label:<10} {value}"


def index_status(folder: Path) -> list[str]:
    """Load the index as `ask` would: what it holds, or the one-line reason it cannot be used."""
    from guide_tui.corpus import CorpusError
    from guide_tui.embedding import ModelError
    from guide_tui.indexes import IndexLoadError, load_index, resolve_corpus

    try:
        index = load_index(folder)
    except (IndexLoadError, ModelError, CorpusError) as err:
        return [row("", f"NOT USABLE: {err}")]
    counts = index.manifest.get("counts", {})
    cutoff = "none (no relevance gate)" if index.cutoff is None else f"{index.cutoff:.4f}"
    return [
        row("", f"ok: {counts.get('guides')} guides, {counts.get('chunks')} chunks, cutoff {cutoff}, built {index.manifest.get('built_at')}"),
        *(row("", f"note: {note}") for note in index.notes),
        *(row("", problem) for problem in model_problems(index)),
        row("guides", f"{resolve_corpus(folder, index.manifest).resolve()} (what the index was built from)"),
    ]


def model_problems(index) -> list[str]:
    """The models read and hashed in full: a start trusts their recorded digest while size and modification
    time are unchanged (embedding.recorded_sha256), which a damaged disk can keep."""
    from guide_tui.embedding import folder_sha256
    from guide_tui.indexes import rebuild_hint

    folders = {"embedding model": (index.embedder.folder, index.manifest["model"])}
    if index.manifest.get("teacher"):
        folders["teacher model"] = (paths.BUNDLED_TEACHER, index.manifest["teacher"])
    return [
        f"problem: the {name} in {folder} is not the one the index was built with (its bytes changed since); "
        f"restore it, or {rebuild_hint(index.folder)}"
        for name, (folder, record) in folders.items()
        if folder.is_dir() and folder_sha256(folder) != record.get("sha256")
    ]


def report_lines(index_dir: Path, ollama_model: str | None) -> list[str]:
    from guide_tui.embedding import model_dir
    from guide_tui.ollama_answerer import probe

    own = paths.user_index()
    which = "yours, built by `guide-tui index`" if index_dir.resolve() == own.resolve() else (
        "the bundled one" if index_dir.resolve() == paths.BUNDLED_INDEX.resolve() else "given with --index"
    )  # fmt: skip
    model_source = "from GUIDE_TUI_MODEL" if environment().embedding_model else "bundled"
    raw = raw_values()
    ollama = probe(model=ollama_model)
    return [
        f"guide-tui {installed_version()} (Python {sys.version.split()[0]}, {sys.executable})",
        f"running from {'the checkout ' + str(paths.CHECKOUT) if paths.CHECKOUT else 'the installed package ' + str(paths.PACKAGE)}",
        "",
        "read from",
        row("index", f"{index_dir} ({which})"),
        *index_status(index_dir),
        row("model", f"{model_dir()} ({model_source})"),
        row("questions", f"{paths.QUESTIONS_FILE} (the labelled questions: calibrate, eval, the app's F2-F4)"),
        row("bundled", f"index {paths.BUNDLED_INDEX}, guides {paths.BUNDLED_CORPUS}"),
        "written to",
        row("index", f"{own} (`guide-tui index` without --out; read by default once it exists: {'it does' if own.is_dir() else 'not built yet'})"),
        row("reports", f"{paths.reports_dir()} (`guide-tui eval` without --out)"),
        row("settings", f"{paths.settings_dir()} (settings.json: the Ollama model picked in the app's command palette, the knobs saved with Ctrl+S)"),
        row("knobs", saved_knobs()),
        "environment",
        *(f"  {v.name:<36} " + (repr(raw[v.name]) if raw[v.name] is not None else f"not set ({v.about})") for v in VARIABLES),
        "libraries",
        "  " + ", ".join(f"{name} {installed_version(name)}" for name in LIBRARIES),
        "ollama",
        "  " + ollama.detail + ("" if ollama.model_available else "; answers come from the built-in extractive answerer"),
    ]


def saved_knobs() -> str:
    """The retrieval knobs ask, retrieve, eval and the app read from settings.json, or why they are the defaults."""
    settings, warning = SettingsFile.default().saved_retrieval()
    if warning:
        return f"the defaults: {warning}"
    if settings == RetrievalSettings():
        return "the defaults (none saved)"
    return ", ".join(f"{name} {'calibrated' if value is None else f'{value:g}'}" for name, value in settings.to_json().items())


def print_report(index_dir: Path, ollama_model: str | None = None) -> None:
    print("\n".join(report_lines(Path(index_dir), ollama_model)))
