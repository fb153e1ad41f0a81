"""A second opinion on each supported sentence from a grounding model served by Ollama.

The built-in claim check (guide_tui.claims) reads words, values and polarity; a fact-checking
model such as bespoke-minicheck reads meaning. When GUIDE_TUI_GROUNDING_MODEL names one, every
sentence the built-in check supported is sent to it with the guide text it leaned on, in the
model's own prompt format ("Document: ...\nClaim: ..."), and a "No" flags the sentence. It is
off by default: a 7B model takes seconds per sentence on a small CPU. The model has its own
timeout; when it is missing, slow or answers neither Yes nor No, the built-in verdicts stand
and the note says why.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import httpx
import pydantic

from guide_tui.answers import Citation
from guide_tui.claims import Flag, Support
from guide_tui.ollama_address import import_ollama
from guide_tui.settings import environment

ollama = import_ollama()


@dataclass(frozen=True)
class Grounding:
    model: str | None = None  # None: off
    timeout: float = 30.0  # per sentence: loading a 7B model on a small CPU is most of the first one
    connect: float = 2.0

    @classmethod
    def from_env(cls) -> Grounding:
        """Off unless GUIDE_TUI_GROUNDING_MODEL names a model; the timeout from GUIDE_TUI_GROUNDING_TIMEOUT when it is a positive number."""
        env = environment()
        return cls(env.grounding_model, env.grounding_timeout or cls.timeout)


@dataclass
class Grounded:
    """The grounding model's verdicts: the sentences it did not support, the rest, and a note for the user."""

    flags: list[Flag] = field(default_factory=list)
    kept: list[Support] = field(default_factory=list)
    note: str = ""


def prompt(document: str, claim: str) -> str:
    """The grounding model's input format (bespoke-minicheck's, as Ollama serves it)."""
    return f"Document: {document}\nClaim: {claim}"


def ground(supported: list[Support], settings: Grounding, host: str) -> Grounded:
    """Ask the grounding model about each supported sentence, in order, until it fails."""
    model = settings.model or ""
    result = Grounded()
    client = ollama.Client(host=host, timeout=httpx.Timeout(settings.timeout, connect=settings.connect))
    with client:
        for n, support in enumerate(supported):
            try:
                verdict = ask(client, model, support, settings.timeout)
            except GroundingFailed as err:
                result.kept += supported[n:]
                done = f"{n} of {len(supported)} sentences checked, then " if n else ""
                result.note = f"grounding model {model}: {done}{err}; built-in check only"
                return result
            if verdict:
                result.kept.append(support)
            else:
                result.flags.append(Flag(support.sentence, "grounding", f"{model} finds no support for it in {where(support.citation)}", support.citation))
    flagged = len(result.flags)
    result.note = f"also checked by {model}: {len(supported)} sentence{'s' * (len(supported) != 1)}, " + (
        f"{flagged} not supported" if flagged else "all supported"
    )
    return result


class GroundingFailed(Exception):
    """The grounding model gave no verdict; the message is one short line for the note."""


def ask(client: ollama.Client, model: str, support: Support, timeout: float) -> bool:
    """True for the model's "Yes", False for its "No"."""
    messages = [{"role": "user", "content": prompt(support.document, support.claim)}]
    try:
        reply = client.chat(model=model, messages=messages, stream=False, options={"temperature": 0})
    except ollama.ResponseError as err:
        if err.status_code == 404 or "not found" in str(err.error).lower():
            raise GroundingFailed(f"Ollama has no model '{model}' (ollama pull {model})") from err
        raise GroundingFailed(f"Ollama error {err.status_code}: {' '.join(str(err.error).split())[:120]}") from err
    except (httpx.ConnectError, httpx.ConnectTimeout, ConnectionError) as err:
        raise GroundingFailed("Ollama not reachable") from err
    except httpx.TimeoutException as err:
        raise GroundingFailed(f"timed out after {timeout:g} s") from err
    except (httpx.HTTPError, json.JSONDecodeError, pydantic.ValidationError, UnicodeDecodeError) as err:
        raise GroundingFailed("Ollama sent a reply that is not its protocol") from err
    answer = (reply.message.content or "").strip().strip(".!").lower()
    if answer.startswith("yes"):
        return True
    if answer.startswith("no"):
        return False
    raise GroundingFailed(f"it answered {answer[:40]!r}, not Yes or No")


def where(citation: Citation) -> str:
    return f"{citation.file} § {citation.section}"
