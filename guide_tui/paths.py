"""Where guide-tui reads its bundled data and writes the user's own files: the one module that knows.

The prebuilt index (with the embedding model in index/model) and the guides ship inside the
package as guide_tui/bundled/index and guide_tui/bundled/corpus: pyproject.toml maps the
checkout's top-level index/ and corpus/ there when a wheel is built, side by side, so an index
manifest's "../corpus" resolves in both. Run from a checkout (the editable install of `make run`
and `make test`) the package has no bundled/ folder and the top-level folders are used as they
are. What the user makes goes to per-user folders (platformdirs), never into the package.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import platformdirs

APP_NAME = "guide-tui"
PACKAGE = Path(str(resources.files("guide_tui")))  # installed as plain files: tantivy and usearch need real paths
_PACKAGED_DATA = PACKAGE / "bundled"
CHECKOUT: Path | None = None if _PACKAGED_DATA.is_dir() else PACKAGE.parent  # the repository, when run from one
BUNDLED = CHECKOUT or _PACKAGED_DATA
BUNDLED_INDEX = BUNDLED / "index"
BUNDLED_CORPUS = BUNDLED / "corpus"
BUNDLED_MODEL = BUNDLED_INDEX / "model"
BUNDLED_TEACHER = BUNDLED_INDEX / "teacher"
QUESTIONS_FILE = PACKAGE / "questions.toml"


def user_index() -> Path:
    """Where `guide-tui index` writes without --out: the user's data folder."""
    return Path(platformdirs.user_data_dir(APP_NAME)) / "index"


def default_index() -> Path:
    """The index read without --index: the user's own once `guide-tui index` has built one (a damaged
    one is reported, not skipped), else the bundled one."""
    own = user_index()
    return own if own.is_dir() else BUNDLED_INDEX


def settings_dir() -> Path:
    """The user's config folder: settings.json holds the Ollama model picked in the app and the retrieval knobs it saved (guide_tui.settings)."""
    return Path(platformdirs.user_config_dir(APP_NAME))


def digests_file() -> Path:
    """Model folders' digests by path, sizes and modification times, remembered between runs (embedding.model_sha256)."""
    return Path(platformdirs.user_cache_dir(APP_NAME)) / "model-digests.json"


def reports_dir() -> Path:
    """Where `guide-tui eval` writes without --out: results/ in a checkout (reports are committed
    with the code they measure), else the user's state folder."""
    return CHECKOUT / "results" if CHECKOUT else Path(platformdirs.user_state_dir(APP_NAME)) / "eval"


def inside_installed_package(folder: Path) -> bool:
    """True for a folder inside an installed (non-checkout) guide-tui: upgrades replace it, so nothing is written there."""
    return CHECKOUT is None and Path(folder).resolve().is_relative_to(PACKAGE.resolve())
