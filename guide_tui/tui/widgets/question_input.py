"""The question field."""

from __future__ import annotations

import re

from textual import events
from textual.widgets import Input

from guide_tui.retrieval import printable

ESCAPE_SEQUENCE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])")
"""A terminal escape: CSI (colours, cursor moves), OSC (titles, links) or a two-byte one."""


def pasted_text(text: str) -> str:
    """A paste as one line of the question: escape sequences dropped where they stand, line breaks and
    other control codes become spaces."""
    return printable(ESCAPE_SEQUENCE.sub("", text).replace("\r\n", "\n")).replace("\n", " ")


class QuestionInput(Input):
    """The question field. A terminal pastes text as it is, so a pasted escape sequence or control
    code would sit in the field and be drawn raw to the terminal: each becomes a space here, and a
    paste of several lines is kept whole (Textual's Input keeps only the first line)."""

    def validate_value(self, value: str) -> str:
        return printable(value).replace("\n", " ")

    def type_in(self, character: str) -> None:
        """A key typed while the table or a pane had the keys: added at the end, and the field takes the keys without
        selecting its text (Tab into it still does, to type a new question over it)."""
        self.cursor_position = len(self.value)
        self.insert_text_at_cursor(character)
        selecting, self.select_on_focus = self.select_on_focus, False
        self.focus()
        self.call_after_refresh(setattr, self, "select_on_focus", selecting)  # once the focus has been handled

    def _on_paste(self, event: events.Paste) -> None:
        event.stop()
        event.prevent_default()
        if text := pasted_text(event.text):
            if self.selection.is_empty:
                self.insert_text_at_cursor(text)
            else:
                self.replace(text, *self.selection)
