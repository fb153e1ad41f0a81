"""The project's edition of the guides (corpus/) against the originals in ../shared.

The originals are the source of facts; the edition must keep every fact and the
structure, in its own words. Skipped when the originals are not beside the repo.
Run directly (`python tests/test_edition.py [FILE...]`) for a readable report.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
EDITION = ROOT / "corpus"
ORIGINALS = ROOT.parent / "shared" / "corpora" / "city_guides"
SHARED_RUN = 8  # words in a row that may not match the original

NUMBER = re.compile(r"\d+(?:[,.:]\d+)*")
WORD = re.compile(r"[A-Za-z0-9£']+")
SENTENCE_START = re.compile(r"(?:^|[.!?]\s+|\n\s*\n|—\s*|;\s*|:\s*)$")


def guide_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.glob("guide_*.md"))


def sections(text: str) -> tuple[str, list[tuple[str, str]]]:
    """(title, [(heading, body)]) with the preamble as heading ''."""
    lines = text.splitlines()
    title = lines[0][2:].strip() if lines and lines[0].startswith("# ") else ""
    parts: list[tuple[str, list[str]]] = [("", [])]
    for line in lines[1:]:
        if line.startswith("## "):
            parts.append((line[3:].strip(), []))
        else:
            parts[-1][1].append(line)
    return title, [(h, "\n".join(b).strip()) for h, b in parts]


def proper_names(body: str) -> set[str]:
    """Capitalised words that do not start a sentence (or a line/bold run)."""
    names = set()
    plain = body.replace("**", "")
    for match in re.finditer(r"[A-Z][a-zA-Z']+", plain):
        before = plain[: match.start()]
        if before.strip() == "" or SENTENCE_START.search(before):
            continue
        if match.start() > 0 and plain[match.start() - 1].isalnum():
            continue
        names.add(match.group().removesuffix("'s").removesuffix("'"))
    return names


def numbers(body: str) -> set[str]:
    return set(NUMBER.findall(body))


def word_runs(text: str, n: int = SHARED_RUN) -> set[tuple[str, ...]]:
    """Runs of n words within the prose between headings (the fixed titles and headings are not prose)."""
    runs: set[tuple[str, ...]] = set()
    for block in re.split(r"^#.*$", text, flags=re.MULTILINE):
        words = [w.lower() for w in WORD.findall(block.replace("—", " "))]
        runs |= {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}
    return runs


def problems_for(name: str) -> list[str]:
    """Everything wrong with one edition file, as readable lines."""
    found: list[str] = []
    edition_path = EDITION / name
    if not edition_path.exists():
        return [f"{name}: missing from corpus/"]
    original = (ORIGINALS / name).read_text(encoding="utf-8")
    edition = edition_path.read_text(encoding="utf-8")
    o_title, o_parts = sections(original)
    e_title, e_parts = sections(edition)
    if o_title != e_title:
        found.append(f"{name}: title {e_title!r} should be {o_title!r}")
    o_heads = [h for h, _ in o_parts]
    e_heads = [h for h, _ in e_parts]
    if o_heads != e_heads:
        found.append(f"{name}: headings {e_heads} should be {o_heads}")
        return found
    for (heading, o_body), (_, e_body) in zip(o_parts, e_parts):
        label = f"{name} [{heading or 'preamble'}]"
        if bool(o_body) != bool(e_body):
            found.append(f"{label}: preamble/body presence differs from the original")
        missing_numbers = numbers(o_body) - numbers(e_body)
        if missing_numbers:
            found.append(f"{label}: numbers missing: {sorted(missing_numbers)}")
        e_words = set(WORD.findall(e_body.replace("**", "")))
        missing_names = {n for n in proper_names(o_body) if n not in e_words and n + "'s" not in e_words}
        if missing_names:
            found.append(f"{label}: proper names missing: {sorted(missing_names)}")
    all_original_runs: set[tuple[str, ...]] = set()
    for other in guide_files(ORIGINALS):
        all_original_runs |= word_runs((ORIGINALS / other).read_text(encoding="utf-8"))
    for run in sorted(word_runs(edition) & all_original_runs):
        found.append(f"{name}: shares an {SHARED_RUN}-word run with the originals: {' '.join(run)!r}")
    return found


needs_originals = pytest.mark.skipif(not ORIGINALS.is_dir(), reason="original guides not beside the repo")


@needs_originals
def test_same_guide_files() -> None:
    assert guide_files(EDITION) == guide_files(ORIGINALS)


@needs_originals
@pytest.mark.parametrize("name", guide_files(ORIGINALS) if ORIGINALS.is_dir() else [])
def test_edition_keeps_structure_and_facts_in_own_words(name: str) -> None:
    assert problems_for(name) == []


def test_checker_catches_a_copied_sentence_and_a_lost_fact() -> None:
    """The checker itself must be able to fail (guards against a vacuous edition test)."""
    original = "# T\n\n## A\n\nThe bakery on Mill Road sells out by 11am on most days of the week.\n"
    copied = word_runs(original) & word_runs("# T\n\n## A\n\nThe bakery on Mill Road sells out by 11am on most days.\n")
    assert copied
    _, parts = sections(original)
    assert "11" in numbers(parts[1][1]) and "Mill" in proper_names(parts[1][1])
    assert "Road" in proper_names(parts[1][1]) and "The" not in proper_names(parts[1][1])


if __name__ == "__main__":
    names = sys.argv[1:] or guide_files(ORIGINALS)
    issues = [line for n in names for line in problems_for(n)]
    print("\n".join(issues) if issues else f"ok: {len(names)} file(s)")
    sys.exit(1 if issues else 0)
