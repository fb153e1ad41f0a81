"""Answers written by a local Ollama model from the retrieved chunks, streamed, then claim-checked.

Everything that can go wrong with Ollama (not running, too slow, no such model,
an error status, a dropped connection, lines that are not its protocol) becomes
OllamaUnavailable with a one-line reason, so the caller can fall back to the
extractive answerer. The ollama client waits forever by default; every request
here has a connect timeout and a read timeout (the longest silence allowed
between two streamed lines, including the wait for the first token).
"""

from __future__ import annotations

import json
import queue
import re
import socket
import threading
import time
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx
import pydantic

from guide_tui.answers import REFUSAL, Citation, OnText
from guide_tui.chunking import Chunk
from guide_tui.claims import Flag, answer_sentences, check_claims, citations_of, read_evidence
from guide_tui.embedding import Embedder
from guide_tui.errors import GenerationStopped, OllamaUnavailable
from guide_tui.grounding import Grounding, ground
from guide_tui.ollama_address import DEFAULT_HOST, import_ollama
from guide_tui.retrieval import Retrieval, clean_question, printable
from guide_tui.settings import environment

ollama = import_ollama()

DEFAULT_MODEL = "llama3.2"
OPTIONS = {"temperature": 0, "seed": 42}  # the same prompt gets the same answer: eval runs are reproducible

INSTRUCTIONS = f"""You answer questions about trips in one region, using ONLY the travel guide documents you are given.

Rules:
- Use only what the documents state. Do not use outside knowledge.
- Do not infer beyond what a document states. For example, "serves food seven days a week" does not mean a meal is available on a Sunday evening, and "open all year" does not give opening hours.
- After each sentence, cite the file name of the document it comes from in square brackets, like [guide_kestrelford.md].
- Keep the answer short: one to four sentences.
- If the documents do not answer the question, reply exactly with: {REFUSAL}
  and nothing else: no citation, no explanation."""  # noqa: E501 (one line per rule, as the model reads them)


@dataclass(frozen=True)
class Timeouts:
    connect: float = 2.0  # opening the connection; a local server answers in milliseconds
    read: float = 60.0  # silence allowed between two streamed tokens
    probe: float = 1.5  # each request of the status probe
    first_token: float = 300.0  # wait for the first token, which includes loading the model (minutes on a small CPU)
    keep_alive: str | None = None  # sent as Ollama's keep_alive; None: Ollama's own default (5 minutes)

    @classmethod
    def from_env(cls) -> Timeouts:
        """Defaults, with each timeout from its variable (GUIDE_TUI_OLLAMA_TIMEOUT, _FIRST_TOKEN_TIMEOUT) when it is
        a positive number, and keep_alive from GUIDE_TUI_OLLAMA_KEEP_ALIVE."""
        env = environment()
        return cls(
            read=env.ollama_timeout or cls.read, first_token=env.ollama_first_token_timeout or cls.first_token,
            keep_alive=env.ollama_keep_alive,
        )


STOP_POLL = 0.1  # seconds between two looks at the stop event while Ollama is silent


def parts_within(stream, timeouts: Timeouts, stop: threading.Event | None = None):
    """The stream's parts, the first waited for at most first_token seconds and each later one at most read
    seconds (one httpx read timeout cannot tell the two apart). A reader thread pulls the parts; when the
    caller stops (a timeout, the stop event, or on_text raising) stream_chat shuts the socket, which ends that thread."""
    parts: queue.Queue = queue.Queue()

    def pull() -> None:
        try:
            for part in stream:
                parts.put((True, part))
            parts.put((False, None))
        except BaseException as err:  # noqa: BLE001 - handed to the caller, which names it
            parts.put((False, err))

    threading.Thread(target=pull, name="ollama stream", daemon=True).start()
    first = True
    while True:
        limit = timeouts.first_token if first else timeouts.read
        deadline = time.monotonic() + limit
        while True:
            if stop is not None and stop.is_set():
                raise GenerationStopped("stopped before Ollama finished")
            left = deadline - time.monotonic()
            if left <= 0:
                if first:
                    raise OllamaUnavailable(f"Ollama sent no first token within {limit:g} s (the model may still be loading)")
                raise OllamaUnavailable(f"Ollama timed out after {limit:g} s")
            try:
                is_part, value = parts.get(timeout=min(left, STOP_POLL))
            except queue.Empty:
                continue
            break
        if not is_part:
            if value is not None:
                raise value
            return
        first = False
        yield value


@dataclass(frozen=True)
class OllamaStatus:
    reachable: bool
    model_available: bool
    detail: str


@dataclass
class GeneratedAnswer:
    text: str  # the model's whole answer; exactly REFUSAL when refused
    refused: bool
    model: str
    citations: list[Citation] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)  # sentences the claim check could not support, each with why
    invented_citations: list[str] = field(default_factory=list)  # cited files that were not in the prompt
    check_note: str | None = None  # what the grounding model made of it, when one is set

    @property
    def unsupported(self) -> list[str]:
        return [flag.sentence for flag in self.flags]


def resolve_host(host: str | None = None) -> str:
    """The base URL the ollama client will use: `host`, else OLLAMA_HOST, else the local default."""
    from ollama._client import _parse_host  # the client's own parsing, so messages name the URL it really uses

    raw = host or environment().ollama_host or DEFAULT_HOST
    try:
        url = _parse_host(raw)
    except ValueError as err:
        raise OllamaUnavailable(f"Ollama address {raw!r} is not usable ({err})") from err
    if not re.fullmatch(r"[\w.\-]+|\[[0-9a-fA-F:.]+\]", urlsplit(url).netloc.rpartition(":")[0]):
        raise OllamaUnavailable(f"Ollama address {raw!r} is not usable (not a host name or address; set OLLAMA_HOST like http://127.0.0.1:11434)")
    return url


def resolve_model(model: str | None = None) -> str:
    return model or environment().ollama_model or DEFAULT_MODEL


def build_prompt(retrieval: Retrieval, question: str) -> list[dict]:
    documents = "\n\n".join(
        f"=== Document [{hit.chunk.file}], section \"{hit.chunk.section}\" ===\n{hit.chunk.text.strip()}"
        for hit in retrieval.within_cutoff
    )
    user = f"Documents:\n\n{documents}\n\nQuestion: {clean_question(question)}"
    return [{"role": "system", "content": INSTRUCTIONS}, {"role": "user", "content": user}]


def format_prompt(messages: list[dict]) -> str:
    """The messages as sent, each under a role line (for --show-prompt)."""
    return "\n\n".join(f"----- {m['role']} -----\n{m['content']}" for m in messages)


def make_client(host: str, connect: float, read: float, on_request=None) -> ollama.Client:
    hooks = {"request": [on_request]} if on_request else {}
    return ollama.Client(host=host, timeout=httpx.Timeout(read, connect=connect), event_hooks=hooks)


class OpenSockets:
    """The sockets a client opens, so that stopping can shut them: closing a client does not end a read another
    thread is blocked in (the socket stays open, and Ollama keeps generating, until the read times out)."""

    def __init__(self) -> None:
        self.sockets: list[socket.socket] = []

    def watch(self, request: httpx.Request) -> None:
        """httpx's request hook: ask httpcore to report the connection it opens (its `trace` extension)."""
        request.extensions["trace"] = self.trace

    def trace(self, event: str, info: dict) -> None:
        if event == "connection.connect_tcp.complete" and info.get("return_value") is not None:
            sock = info["return_value"].get_extra_info("socket")
            if sock is not None:
                self.sockets.append(sock)

    def shut(self) -> None:
        for sock in self.sockets:
            try:
                sock.shutdown(socket.SHUT_RDWR)  # wakes the blocked read and tells Ollama at once
            except OSError:  # already closed
                pass


def generate(
    retrieval: Retrieval,
    question: str,
    embedder: Embedder,
    model: str | None = None,
    on_text: OnText | None = None,
    host: str | None = None,
    timeouts: Timeouts | None = None,
    chunks: list[Chunk] | None = None,
    grounding: Grounding | None = None,
    stop: threading.Event | None = None,
) -> GeneratedAnswer:
    """Stream the model's answer to on_text, then claim-check it.

    `chunks`: every chunk of the index (a guide holding a shown text word for word is a valid
    citation); `grounding`: the grounding model to ask after the built-in check (default
    Grounding.from_env(): off unless GUIDE_TUI_GROUNDING_MODEL is set); `stop`: set it to close the
    stream at once (GenerationStopped).
    Raises OllamaUnavailable, possibly after some on_text calls: that partial
    text is not an answer and the caller must discard it.
    """
    hits = retrieval.within_cutoff
    if not hits:
        raise ValueError("generate needs at least one chunk within the cutoff; refuse before calling it")
    model = resolve_model(model)
    reading = threading.Thread(target=read_evidence, args=(hits, embedder, chunks), name="guide-tui evidence", daemon=True)
    reading.start()  # the guides the answer is checked against are read while the model writes
    text = stream_chat(build_prompt(retrieval, question), model, host, timeouts or Timeouts.from_env(), on_text, stop)
    reading.join()
    check = check_claims(text, hits, embedder, chunks=chunks)
    if check.refused:
        return GeneratedAnswer(REFUSAL, True, model)
    grounding = grounding or Grounding.from_env()
    if not grounding.model or not check.supported:
        return GeneratedAnswer(text, False, model, check.citations, check.flags, check.invented_citations)
    grounded = ground(check.supported, grounding, resolve_host(host))
    order = {sentence: n for n, sentence in enumerate(answer_sentences(text))}
    flags = sorted(check.flags + grounded.flags, key=lambda flag: order.get(flag.sentence, len(order)))
    return GeneratedAnswer(text, False, model, citations_of(grounded.kept), flags, check.invented_citations, grounded.note)


def stream_chat(
    messages: list[dict], model: str, host: str | None, timeouts: Timeouts, on_text: OnText | None, stop: threading.Event | None = None
) -> str:
    """The model's whole reply, each piece passed to on_text as it arrives."""
    url = resolve_host(host)
    pieces: list[str] = []
    finished = False
    sockets = OpenSockets()
    try:
        backstop = max(timeouts.read, timeouts.first_token) + 5  # parts_within times out first and says which wait ran out
        with make_client(url, timeouts.connect, backstop, sockets.watch) as ollama_client:
            stream = ollama_client.chat(model=model, messages=messages, stream=True, options=OPTIONS, keep_alive=timeouts.keep_alive)
            try:
                for part in parts_within(stream, timeouts, stop):
                    piece = printable(part.message.content or "")  # a model can emit escapes; they are not answers
                    if piece:
                        pieces.append(piece)
                        if on_text:
                            on_text(piece)
                    if part.done:
                        finished = True
                        break
            finally:
                sockets.shut()  # a stop, a timeout or on_text raising: the reader thread and Ollama learn at once
    except ollama.ResponseError as err:
        raise OllamaUnavailable(response_error_reason(err, model)) from err
    except (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError) as err:
        raise OllamaUnavailable(f"Ollama not reachable at {url}") from err
    except httpx.TimeoutException as err:
        raise OllamaUnavailable(f"Ollama timed out after {timeouts.read:g} s") from err
    except (json.JSONDecodeError, pydantic.ValidationError, UnicodeDecodeError) as err:
        raise OllamaUnavailable("Ollama sent a reply that is not its protocol") from err
    except httpx.HTTPError as err:  # dropped connection, truncated chunked body, bad URL
        raise OllamaUnavailable("Ollama stopped mid-answer" if pieces else f"Ollama connection failed ({err})") from err
    if not finished:
        raise OllamaUnavailable("Ollama stopped mid-answer")
    text = "".join(pieces).strip()
    if not text:
        raise OllamaUnavailable("Ollama returned an empty answer")
    return text


def response_error_reason(err: ollama.ResponseError, model: str) -> str:
    message = " ".join(str(err.error).split())[:200]
    if err.status_code == 404 or "not found" in message.lower():
        return f"Ollama has no model '{model}' (ollama pull {model})"
    if err.status_code > 0:
        return f"Ollama error {err.status_code}: {message}"
    return f"Ollama error: {message}"


def probe(host: str | None = None, model: str | None = None, timeout: float = Timeouts.probe) -> OllamaStatus:
    """Is Ollama up, and does it have the model? Never raises; quick enough for a status line."""
    model = resolve_model(model)
    try:
        url = resolve_host(host)
    except OllamaUnavailable as err:
        return OllamaStatus(False, False, err.reason)
    try:
        with httpx.Client(base_url=url, timeout=timeout) as http:
            version = http.get("/api/version").raise_for_status().json().get("version", "?")
        names = model_names(url, timeout)
    except (httpx.HTTPError, ValueError, OllamaUnavailable):
        return OllamaStatus(False, False, f"Ollama not reachable at {url}")
    if model in names or f"{model}:latest" in names:
        return OllamaStatus(True, True, f"Ollama {version} at {url}, model {model}")
    return OllamaStatus(True, False, f"Ollama has no model '{model}' (ollama pull {model})")


def model_names(host: str | None = None, timeout: float = Timeouts.probe) -> list[str]:
    """The models Ollama has pulled (its /api/tags), sorted; raises OllamaUnavailable with why when it cannot say."""
    url = resolve_host(host)
    try:
        with make_client(url, timeout, timeout) as ollama_client:
            return sorted(m.model for m in ollama_client.list().models if m.model)
    except (httpx.HTTPError, ollama.ResponseError, ConnectionError, ValueError, pydantic.ValidationError, AttributeError) as err:
        raise OllamaUnavailable(f"Ollama not reachable at {url}") from err
