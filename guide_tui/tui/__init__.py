"""The Textual app: the coordinator (app.py), its widgets (widgets/), the main and error screens (screens.py),
the palette's commands (commands.py) and its one stylesheet (app.tcss)."""

from __future__ import annotations

import sys
from pathlib import Path


def run_app(
    index_dir: Path | None = None, generator: str = "auto", model: str | None = None, corpus_dir: Path | None = None, gate: bool = True
) -> int:
    from guide_tui.tui.app import GuideApp

    app = GuideApp(index_dir=index_dir, generator=generator, model=model, corpus_dir=corpus_dir, gate=gate)
    if sys.stdin.isatty():
        app.terminal_fd = sys.stdin.fileno()
    app.run()
    return app.return_code or 0
