"""The package's own exceptions that cross module boundaries: one place, importing nothing of the package."""


class OllamaUnavailable(Exception):
    """Ollama gave no usable answer (down, slow, no such model, dropped mid-stream, nothing supported):
    the caller falls back to the extractive answer. `reason` is one short line for the user."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class GenerationStopped(Exception):
    """The caller stopped Ollama's answer (Esc in the app): not a failure, so nothing falls back."""
