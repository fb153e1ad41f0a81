"""Where Ollama listens, and whether anything does, told without importing the ollama client: importing it
(and pydantic) is a third of a cold `ask`, wasted whenever no Ollama runs, as on most machines here."""

from __future__ import annotations

import re
import socket
from urllib.parse import urlsplit

from guide_tui.settings import OLLAMA_HOST, variable_hidden

DEFAULT_HOST = "http://127.0.0.1:11434"
REFUSAL_WAIT = 0.5  # seconds; a port with nothing behind it refuses at once, anything slower is left to the client's timeouts
WRITTEN_OUT = re.compile(r"https?://[\w.\-]+:\d+")


def written_out(host: str | None) -> str | None:
    """The URL of the default address (host None) or of one written out in full ("http://10.0.0.5:11434"); None for
    any other form, whose defaults only the ollama client's own parser knows."""
    url = host or DEFAULT_HOST
    return url if WRITTEN_OUT.fullmatch(url) else None


def nothing_listens(url: str) -> bool:
    """True only when the address refuses a connection outright; a slow or odd answer is for the client to judge."""
    try:
        address = urlsplit(url)
        with socket.create_connection((address.hostname, address.port), timeout=REFUSAL_WAIT):
            return False
    except ConnectionRefusedError:
        return True
    except (OSError, ValueError):  # also a port out of range: the client's parser says what is wrong
        return False


def import_ollama():
    """The ollama package, for every module that uses it. It builds a default client from OLLAMA_HOST when imported, and a value it cannot parse
    ("http://host:99999") raised there, as a traceback, before ollama_answerer.resolve_host could say what is wrong
    with it: then it is imported again with the variable out of its sight (only then, as other threads read it)."""
    try:
        import ollama
    except ValueError:
        with variable_hidden(OLLAMA_HOST):
            import ollama
    return ollama
