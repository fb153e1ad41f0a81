"""Text on screen: every piece from a guide, a question or a model is shown literally, its control codes removed."""

from __future__ import annotations

import re

from textual.content import Content

from guide_tui.retrieval import printable


def literal(text: str, style: str = "") -> Content:
    return Content.styled(printable(text), style)


STRONG = re.compile(r"\*\*(\S(?:.*?\S)?)\*\*")
"""Markdown's strong emphasis in a guide's text ("**Thornby Wells** is the easiest"), shown bold rather than starred."""


def emphasised(text: str, style: str = "") -> Content:
    """A guide's words as `literal` shows them, its **strong** words bold (the text itself, as quoted, keeps them)."""
    pieces = STRONG.split(text)  # the words inside each pair at the odd places
    return Content.assemble(*(literal(piece, f"{style} bold".strip() if n % 2 else style) for n, piece in enumerate(pieces)))
