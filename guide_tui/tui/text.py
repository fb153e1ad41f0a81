"""Text on screen: every piece from a guide, a question or a model is shown literally, its control codes removed."""

from __future__ import annotations

from textual.content import Content

from guide_tui.retrieval import printable


def literal(text: str, style: str = "") -> Content:
    return Content.styled(printable(text), style)
