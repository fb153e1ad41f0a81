"""A real HTTP server on 127.0.0.1 that speaks Ollama's protocol, with planted faults.

No Ollama exists on the test machine, and a mock of the client would not show
that timeouts, streaming and error statuses really work over a socket. Choose
what the "model" does with `server.scenario` (a name in ANSWERS or FAULTS); replies are canned
answers about the real guides, streamed token by token (split after spaces) as
NDJSON over chunked transfer encoding, exactly like `ollama serve`.

It also plays a grounding model (bespoke-minicheck): a chat request whose message is
"Document: ...\nClaim: ..." gets one JSON reply, "Yes", or the verdict a test put in
`server.verdicts` for that claim ("No", or anything else); `server.grounding_stall` makes it
hang instead, to test the grounding timeout.
"""

from __future__ import annotations

import json
import re
import select
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

QUESTION = "When do the pubs in Kestrelford serve food?"
"""The question every canned answer was written for (its top chunk is guide_kestrelford.md#2)."""

FAITHFUL = (
    "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 [guide_kestrelford.md]. "
    "Outside those hours there is nowhere in Kestrelford to get a meal [guide_kestrelford.md]."
)
INVENTED_SENTENCE = "The pubs also serve a Sunday roast until 4pm [guide_kestrelford.md]."
WRONG_CITATION_SENTENCE = "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 [guide_marchwood.md]."
FIRST_FACT = "The pubs in Kestrelford serve food from 12 to 2 and again from 6 to 8:30 [guide_kestrelford.md]."
FLIPPED = {
    "flipped_time": "The Kestrelford bakery sells out by 11pm [guide_kestrelford.md].",  # 11am in the guide
    "flipped_denial": "Outside those hours you can still get a meal in Kestrelford [guide_kestrelford.md].",  # nowhere
    "moved_fact": "Elder Ness's pub also serves food from 12 to 2 and from 6 to 8:30 [guide_eating.md].",  # Kestrelford's hours
}
"""One wrong sentence each, after a faithful one: the failure kinds the claim check must catch."""
UNSHOWN_FACT = "Visitors can also climb the church tower for £2 [guide_kestrelford.md]."
"""True of the guide it cites, from a chunk (its sights) the pubs question does not show the model."""
PARAPHRASED = (
    "Kestrelford's pubs do food from noon until 2pm and again from 6pm until half past eight. [guide_kestrelford.md] "
    "Apart from those hours there is nowhere in Kestrelford to eat [guide_kestrelford.md]."
)
ANSWERS = {
    "faithful": FAITHFUL,
    "invented_claim": f"{FAITHFUL} {INVENTED_SENTENCE}",
    "wrong_citation": WRONG_CITATION_SENTENCE,
    "refusal_with_citation": "I don't have enough information about that. [guide_kestrelford.md]",
    "paraphrased": PARAPHRASED,
    "unshown_fact": f"{FAITHFUL} {UNSHOWN_FACT}",
    **{name: f"{FIRST_FACT} {wrong}" for name, wrong in FLIPPED.items()},
}
"""Scenarios that stream a canned answer (a test may add one with monkeypatch.setitem)."""
FAULTS = {
    "disconnect": "streams a few tokens, then closes the socket mid-body",
    "stall": "streams a few tokens, then goes silent until the test ends",
    "hang": "never sends a response until the test ends",
    "garbage": "streams a few tokens, then a line that is not JSON",
    "server_error": "answers /api/chat with 500 and an Ollama error body",
}
"""Scenarios that fail the way a real Ollama can."""
TOKENS_BEFORE_FAULT = 4
DEFAULT_MODELS = ("llama3.2:latest",)
GROUNDING_MODEL = "bespoke-minicheck"
GROUNDING_PROMPT = re.compile(r"\ADocument: (?P<document>.*)\nClaim: (?P<claim>.*)\Z", re.DOTALL)
MAX_HANG_SECONDS = 30.0  # even if nobody closes the server, a hanging handler gives up


def tokens(text: str) -> list[str]:
    """Streamed pieces: each word with the spaces after it."""
    return re.findall(r"\S+\s*", text)


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address) -> None:
        """A client that timed out and hung up is part of the test, not a server error."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class FakeOllama:
    """`with FakeOllama() as server:` serves on server.url until the block ends."""

    def __init__(self, models: tuple[str, ...] = DEFAULT_MODELS, scenario: str = "faithful") -> None:
        self.models = list(models)
        self.scenario = scenario
        self.token_delay = 0.0  # seconds between streamed lines (the app's snapshot tests may slow it down)
        self.requests: list[dict] = []  # JSON bodies of the /api/chat requests received
        self.closed_early = False  # set when the client hung up before the answer ended (streaming, stalled or hanging)
        self.grounding_requests: list[dict] = []  # JSON bodies of the grounding model's requests
        self.verdicts: dict[str, str] = {}  # claim -> the grounding model's reply (default "Yes")
        self.grounding_stall = False
        self.stopping = threading.Event()
        self.httpd = QuietServer(("127.0.0.1", 0), self.handler_class())
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self.thread = threading.Thread(target=self.httpd.serve_forever, name="fake-ollama", daemon=True)

    @property
    def scenario(self) -> str:
        return self._scenario

    @scenario.setter
    def scenario(self, name: str) -> None:
        """A misspelt name fails here, rather than quietly streaming a cut-short answer."""
        if name not in ANSWERS and name not in FAULTS:
            raise ValueError(f"no fake Ollama scenario {name!r}: use one of {', '.join([*ANSWERS, *FAULTS])}")
        self._scenario = name

    def __enter__(self) -> FakeOllama:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.stopping.set()  # releases hanging handlers
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)

    def handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(OllamaHandler):
            fake = server

        return Handler


class OllamaHandler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeOllama

    def log_message(self, format: str, *args) -> None:  # keep pytest output clean
        pass

    def send_json(self, status: int, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/api/version":
            self.send_json(200, {"version": "0.9.0"})
        elif self.path == "/api/tags":
            self.send_json(200, {"models": [model_entry(name) for name in self.fake.models]})
        else:
            self.send_json(404, {"error": "404 page not found"})

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length", 0))
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path != "/api/chat":
            self.send_json(404, {"error": "404 page not found"})
            return
        model = body.get("model", "")
        scenario = self.fake.scenario
        messages = body.get("messages") or [{}]
        grounding = GROUNDING_PROMPT.match(messages[-1].get("content", ""))
        (self.fake.grounding_requests if grounding else self.fake.requests).append(body)
        if model not in self.fake.models and f"{model}:latest" not in self.fake.models:
            self.send_json(404, {"error": f'model "{model}" not found, try pulling it first'})
        elif grounding:
            self.verdict(model, grounding.group("claim"))
        elif scenario == "server_error":
            self.send_json(500, {"error": "llama runner process has terminated: signal: killed"})
        elif scenario == "hang":
            self.hold_open()
        else:
            self.stream(model, scenario)

    def verdict(self, model: str, claim: str) -> None:
        """The grounding model's one-word reply, in one JSON object (the client asks with stream false)."""
        if self.fake.grounding_stall:
            self.fake.stopping.wait(MAX_HANG_SECONDS)
            self.close_connection = True
            return
        reply = json.loads(final_line(model, 1))
        reply["message"]["content"] = self.fake.verdicts.get(claim, "Yes")
        self.send_json(200, reply)

    def stream(self, model: str, scenario: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        pieces = tokens(ANSWERS.get(scenario, FAITHFUL))
        faulty = scenario in FAULTS
        try:
            for piece in pieces[:TOKENS_BEFORE_FAULT] if faulty else pieces:
                self.send_line(chunk_line(model, piece, done=False))
        except (BrokenPipeError, ConnectionResetError):  # the client stopped the answer (Esc in the app)
            self.fake.closed_early = True
            self.close_connection = True
            return
        if scenario == "disconnect":
            self.connection.shutdown(socket.SHUT_RDWR)
            self.close_connection = True
            return
        if scenario == "stall":
            self.hold_open()
            return
        if scenario == "garbage":
            self.send_line(b"<html><body>502 Bad Gateway</body></html>\n")
        else:
            self.send_line(final_line(model, len(pieces)))
        self.wfile.write(b"0\r\n\r\n")

    def hold_open(self) -> None:
        """Send nothing more until the test ends, noting when the client hangs up (Ollama stops generating then)."""
        deadline = time.monotonic() + MAX_HANG_SECONDS
        while not self.fake.stopping.wait(0.05) and time.monotonic() < deadline:
            if client_hung_up(self.connection):
                self.fake.closed_early = True
                break
        self.close_connection = True

    def send_line(self, data: bytes) -> None:
        if self.fake.token_delay:
            time.sleep(self.fake.token_delay)
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()


def client_hung_up(connection: socket.socket) -> bool:
    """True once the client has closed its end (a readable socket with nothing to read). poll, not select: select
    cannot watch a descriptor numbered 1024 or above, which a long test run reaches."""
    watch = select.poll()
    watch.register(connection, select.POLLIN)
    if not watch.poll(0):
        return False
    try:
        return not connection.recv(1, socket.MSG_PEEK)
    except ConnectionError:
        return True


def model_entry(name: str) -> dict:
    return {
        "name": name,
        "model": name,
        "modified_at": "2025-01-01T00:00:00Z",
        "size": 2019393189,
        "digest": "a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72",
        "details": {
            "parent_model": "",
            "format": "gguf",
            "family": "llama",
            "families": ["llama"],
            "parameter_size": "3.2B",
            "quantization_level": "Q4_K_M",
        },
    }


def chunk_line(model: str, content: str, done: bool) -> bytes:
    line = {
        "model": model,
        "created_at": "2025-01-01T00:00:00.000000Z",
        "message": {"role": "assistant", "content": content},
        "done": done,
    }
    return json.dumps(line).encode() + b"\n"


def final_line(model: str, eval_count: int) -> bytes:
    line = json.loads(chunk_line(model, "", done=True))
    line.update(
        done_reason="stop",
        total_duration=1_200_000_000,
        load_duration=40_000_000,
        prompt_eval_count=812,
        prompt_eval_duration=600_000_000,
        eval_count=eval_count,
        eval_duration=560_000_000,
    )
    return json.dumps(line).encode() + b"\n"
