"""The choices the app remembers between runs (today only the Ollama model), in one small JSON file."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from guide_tui.paths import settings_dir

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
