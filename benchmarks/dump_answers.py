"""Dump `guide-tui ask --json` for the labelled questions and the dev questions, to diff a change's answers."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

from guide_tui.questions import load_questions

sys.path.insert(0, str(Path(__file__).resolve().parent))
from question_sets import DEV  # noqa: E402


def main(out: str, index: str | None = None) -> None:
    questions = [q.text for q in load_questions().questions]
    if DEV.is_file():
        questions += [json.loads(line)["question"] for line in DEV.read_text().splitlines() if line.strip()]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as listed:
        listed.write("\n".join(questions) + "\n")
    command = [str(Path(sys.executable).parent / "guide-tui"), "ask", "--json", "--generator", "extractive", "--from", listed.name]
    if index:
        command[2:2] = ["--index", index]
    result = subprocess.run(command, capture_output=True, text=True)
    Path(out).write_text(result.stdout + result.stderr, encoding="utf-8")
    print(f"{len(questions)} questions -> {out} (exit {result.returncode})")


if __name__ == "__main__":
    main(*sys.argv[1:])
