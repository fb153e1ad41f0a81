"""Crash safety: a killed build leaves the old index or the new one, and an open index leaves no temporary files.

Each rebuild runs as `guide-tui index` in its own process, which SIGKILLs itself after its N-th
write step (GUIDE_TUI_KILL_AFTER_STEP, see staging.WriteSteps), for every N the build has, with
and without RENAME_EXCHANGE; a few more are killed after timed delays. SOURCE_DATE_EPOCH makes
the builds reproducible, so "the new index" is a complete rebuild's bytes; the one thing
normalised is tantivy's segment name, which is random per build.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from guide_tui.embedding import Embedder
from guide_tui.indexes import BUNDLED_CORPUS, BUNDLED_INDEX, KEYWORD_DIR, KEYWORD_OPENING_PREFIX, load_index
from guide_tui.settings import KILL_AFTER_STEP, RENAME_EXCHANGE
from guide_tui.staging import new_locked_folder

KILL_AFTER_STEP_ENV, RENAME_EXCHANGE_ENV = KILL_AFTER_STEP.name, RENAME_EXCHANGE.name

EPOCH = "1767225600"  # 2026-01-01: every build's timestamps
SEGMENT_ID = re.compile(r"[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}")
WRITE_STEP = re.compile(r"^write step (\d+): (.*)$", re.MULTILINE)


def snapshot(folder: Path) -> dict[str, str]:
    """Every file and folder below `folder` with the sha256 of its bytes; tantivy's random segment id is replaced
    by a placeholder in file names and in its two listings (meta.json, .managed.json, whose order is random too)."""
    files = {}
    for path in sorted(folder.rglob("*")):
        name = SEGMENT_ID.sub("SEGMENT", path.relative_to(folder).as_posix())
        if path.is_dir():
            files[name + "/"] = ""
            continue
        data = path.read_bytes()
        if path.parent.name == KEYWORD_DIR and path.name == "meta.json":
            data = SEGMENT_ID.sub("SEGMENT", data.decode()).encode()
        elif path.parent.name == KEYWORD_DIR and path.name == ".managed.json":
            data = json.dumps(sorted(SEGMENT_ID.sub("SEGMENT", n) for n in json.loads(data))).encode()
        files[name] = hashlib.sha256(data).hexdigest()
    return files


def index_command(guides: Path, target: Path) -> list[str]:
    return [sys.executable, "-m", "guide_tui", "index", "--corpus", str(guides), "--out", str(target)]


def environment(temp: Path, model: Path | None = None, **settings: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (KILL_AFTER_STEP_ENV, RENAME_EXCHANGE_ENV, "GUIDE_TUI_MODEL")}
    env |= {"SOURCE_DATE_EPOCH": EPOCH, "TMPDIR": str(temp), **settings}
    return env | ({"GUIDE_TUI_MODEL": str(model)} if model else {})


def build(guides: Path, target: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    done = subprocess.run(index_command(guides, target), env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done


def beside(target: Path) -> list[str]:
    """What a build leaves next to the index folder: its staging and old folders."""
    return sorted(p.name for p in target.parent.iterdir() if p.name.startswith(f".{target.name}."))


class KilledRebuilds:
    """Rebuild `target` from `pristine` (the old index) again and again, killing each rebuild somewhere."""

    def __init__(self, guides: Path, target: Path, pristine: Path, temp: Path, old: dict, new: dict) -> None:
        self.guides, self.target, self.pristine, self.temp = guides, target, pristine, temp
        self.old, self.new = old, new
        self.embedder = Embedder(BUNDLED_INDEX / "model")
        self.outcomes: list[tuple[str, str]] = []
        self.left_something = 0

    def reset(self) -> None:
        """The old index back in place (hard links: a build never writes into a file it did not create; were one
        to, the in-memory snapshot would tell); what killed builds left beside it stays, for the next build to clean."""
        if self.target.exists():
            shutil.rmtree(self.target)
        shutil.copytree(self.pristine, self.target, symlinks=True, copy_function=os.link)

    def kill_at_step(self, step: int, label: str, **settings: str) -> str:
        self.reset()
        env = environment(self.temp, self.target / "model", **{KILL_AFTER_STEP_ENV: str(step)}, **settings)
        done = subprocess.run(index_command(self.guides, self.target), env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == -signal.SIGKILL, f"step {step} ({label}) was not reached: {done.stderr}"
        assert WRITE_STEP.findall(done.stderr)[-1][0] == str(step)
        return self.check(f"step {step} ({label}){' ' + str(settings) if settings else ''}")

    def kill_after(self, seconds: float) -> str:
        self.reset()
        process = subprocess.Popen(
            index_command(self.guides, self.target), env=environment(self.temp, self.target / "model"),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        time.sleep(seconds)
        process.kill()
        process.wait()
        return self.check(f"after {seconds:.2f} s")

    def check(self, where: str) -> str:
        """The target loads (a half-done swap is put right by the load) and is the old index or the new one."""
        assert load_index(self.target, embedder=self.embedder).chunks
        state = snapshot(self.target)
        assert state in (self.old, self.new), f"killed at {where}: the index is neither the old one nor the new one"
        left = beside(self.target)
        assert len(left) <= 1, f"killed at {where}: {left}; each build removes what the killed ones before it left"
        outcome = "old" if state == self.old else "new"
        self.outcomes.append((where, outcome))
        self.left_something += bool(left)
        return outcome


def kill_points(labels: list[str]) -> list[int]:
    """Every step, except that of a run of like steps (each file carried over, each file of the replaced folder
    removed) four are taken, from the first to the last."""
    points = []
    for _, run in itertools.groupby(enumerate(labels, start=1), key=lambda step: " ".join(step[1].split()[:2])):
        steps = [number for number, _ in run]
        points += sorted({steps[round(n * (len(steps) - 1) / 3)] for n in range(4)})
    return points


def test_a_rebuild_killed_at_any_point_leaves_the_old_index_or_the_new_one(tmp_path: Path, capsys) -> None:
    """Laid out as the bundled index/: the models and a file of the user's live inside the folder that is replaced,
    and the model is read from there during the rebuild."""
    guides, old_guides, target, temp = tmp_path / "guides", tmp_path / "old_guides", tmp_path / "index", tmp_path / "tmp"
    shutil.copytree(BUNDLED_CORPUS, guides)
    shutil.copytree(BUNDLED_CORPUS, old_guides, ignore=shutil.ignore_patterns("guide_marchwood.md"))  # the old index lacks a guide
    temp.mkdir()
    build(old_guides, target, environment(temp))
    for entry in BUNDLED_INDEX.iterdir():  # what the build does not write: model/, teacher/...
        if entry.is_dir() and not (target / entry.name).exists():
            shutil.copytree(entry, target / entry.name)
    (target / "notes.txt").write_text("kept across rebuilds\n", encoding="utf-8")
    pristine, reference = tmp_path / "pristine", tmp_path / "reference"
    shutil.copytree(target, pristine, symlinks=True)
    shutil.copytree(target, reference, symlinks=True)
    started = time.perf_counter()
    listed = build(guides, reference, environment(temp, reference / "model", **{KILL_AFTER_STEP_ENV: "0"}))
    duration = time.perf_counter() - started
    labels = [label for _, label in WRITE_STEP.findall(listed.stderr)]
    old, new = snapshot(pristine), snapshot(reference)
    assert old != new and old["model/model.safetensors"] == new["model/model.safetensors"] and "notes.txt" in new
    swap = labels.index("exchanged with the old folder") + 1  # the step number of the one rename that replaces the index

    runs = KilledRebuilds(guides, target, pristine, temp, old, new)
    steps = kill_points(labels)
    by_step = [runs.kill_at_step(step, labels[step - 1]) for step in steps]
    assert by_step == ["old" if step < swap else "new" for step in steps]
    without_exchange = [
        runs.kill_at_step(step, label, **{RENAME_EXCHANGE_ENV: "0"})
        for step, label in ((swap - 1, labels[swap - 2]), (swap, "old folder moved aside"), (swap + 1, "new folder moved in"))
    ]
    assert without_exchange == ["old", "old", "new"]  # moved aside, not yet moved in: the load puts the old one back
    timed = [runs.kill_after(duration * fraction) for fraction in (0.5, 0.9)]

    assert len(runs.outcomes) >= 20 and runs.left_something  # killed builds did leave folders beside the index
    build(guides, target, environment(temp, target / "model"))
    assert snapshot(target) == new and beside(target) == [] and list(temp.iterdir()) == []
    with capsys.disabled():
        print(
            f"\n{len(runs.outcomes)} kill points ({len(by_step)} of the build's {len(labels)} write steps, {len(without_exchange)} "
            f"without RENAME_EXCHANGE, {len(timed)} timed): {sum(o == 'old' for _, o in runs.outcomes)} left the old index, "
            f"{sum(o == 'new' for _, o in runs.outcomes)} the new one, none a mix"
        )


def test_a_failed_build_leaves_the_index_as_it_was(tmp_path: Path, bundled_index) -> None:
    from guide_tui.indexes import build_index

    shutil.copytree(BUNDLED_INDEX, tmp_path / "index", ignore=shutil.ignore_patterns("model"))
    before = snapshot(tmp_path / "index")

    def calibration_fails(folder: Path) -> dict:
        raise RuntimeError("calibration failed")

    with pytest.raises(RuntimeError, match="calibration failed"):
        build_index(BUNDLED_CORPUS, tmp_path / "index", embedder=bundled_index.embedder, calibrate=calibration_fails)
    assert snapshot(tmp_path / "index") == before and beside(tmp_path / "index") == []


def test_a_process_killed_after_opening_an_index_leaves_nothing_in_the_temp_dir(tmp_path: Path) -> None:
    temp = tmp_path / "tmp"
    temp.mkdir()
    code = "import sys; from guide_tui.indexes import load_index; load_index(); print('open', flush=True); sys.stdin.read()"
    process = subprocess.Popen(
        [sys.executable, "-c", code], env=environment(temp), stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout.readline() == "open\n"
        assert list(temp.iterdir()) == []  # nothing even while it runs: the keyword index is open, its folder of links gone
    finally:
        process.kill()
        process.wait()
    assert list(temp.iterdir()) == []


def test_a_folder_left_by_a_process_killed_while_opening_is_removed_by_the_next_start(tmp_path: Path, monkeypatch, bundled_index) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    abandoned = tmp_path / f"{KEYWORD_OPENING_PREFIX}killed"
    abandoned.mkdir()
    (abandoned / "meta.json").symlink_to(BUNDLED_INDEX / KEYWORD_DIR / "meta.json")
    in_use, lock = new_locked_folder(tmp_path, KEYWORD_OPENING_PREFIX)  # another process opening an index right now
    try:
        load_index(BUNDLED_INDEX, embedder=bundled_index.embedder)
        assert list(tmp_path.iterdir()) == [in_use]
    finally:
        os.close(lock)
