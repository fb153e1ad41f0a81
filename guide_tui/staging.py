"""Replace a folder by a complete new one, so that a killed writer leaves the old folder or the new one, never a mix.

The new version is written into `.NAME.building-XXXX` beside the target. Entries of the old
folder that the writer did not write (the model, anything of the user's) are carried over as
hard links, the result is checked and flushed to disk, and it takes the target's place in one
rename(2) with RENAME_EXCHANGE (Linux). Where the kernel or file system cannot exchange two
folders, the old one is first renamed to `.NAME.old-XXXX`, and a target found missing is put
back from it before the next load or write. The process that owns a staging or old folder holds
a flock on it: one found unlocked was left by a process that died, and the next write removes it.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import secrets
import shutil
import signal
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, TypeVar

from guide_tui.settings import environment

T = TypeVar("T")
BUILDING = "building"
OLD = "old"
AT_FDCWD = -100
RENAME_EXCHANGE = 2


@dataclass
class WriteSteps:
    """Each write of a folder replacement is a step, so the crash-safety test can kill the process after any one.

    GUIDE_TUI_KILL_AFTER_STEP=N lists the steps on stderr and SIGKILLs the process after the N-th
    (0: list them only); GUIDE_TUI_RENAME_EXCHANGE=0 takes the path used where folders cannot be
    exchanged in one rename. Unset, both do nothing."""

    kill_after: int | None = None
    rename_exchange: bool = True
    done: int = 0

    @classmethod
    def from_env(cls) -> WriteSteps:
        env = environment()
        return cls(env.kill_after_step, env.rename_exchange)

    def __call__(self, label: str) -> None:
        self.done += 1
        if self.kill_after is not None:
            print(f"write step {self.done}: {label}", file=sys.stderr, flush=True)
            if self.done == self.kill_after:
                os.kill(os.getpid(), signal.SIGKILL)


def replace_folder(target: Path, write: Callable[[Path], T], verify: Callable[[Path], None], steps: WriteSteps) -> T:
    """Write a new version of `target` with write(staging), check it with verify(staging), and swap it in.
    Any error (or a kill) before the swap leaves `target` as it was; OSError comes from the file system."""
    target = Path(os.path.realpath(target))  # a symlink to an index folder: replace the folder it points to
    restore_interrupted_swap(target)
    remove_leftovers(target)
    staging, staging_lock = new_locked_folder(target.parent, side_prefix(target, BUILDING))
    steps("staging folder created")
    try:
        result = write(staging)
        sync_tree(staging)
        carry_over(target, staging, steps)
        verify(staging)
        if target.is_dir():
            os.chmod(staging, stat.S_IMODE(target.stat().st_mode))
        sync_tree(staging, files=False)  # the links carried over: their files were on disk already
        steps("checked and flushed to disk")
        old, old_lock = swap_in(staging, target, steps)
        try:
            sync_file(target.parent)
            if old is not None:
                remove_tree(old, steps)
        finally:
            if old_lock is not None:
                os.close(old_lock)
    finally:
        shutil.rmtree(staging, ignore_errors=True)  # a failed write's folder; after a swap, nothing is left there
        os.close(staging_lock)
    return result


def side_prefix(target: Path, kind: str) -> str:
    return f".{target.name}.{kind}-"


def side_folders(target: Path, kind: str) -> list[Path]:
    prefix = side_prefix(target, kind)
    try:
        entries = list(os.scandir(target.parent))
    except OSError:
        return []
    return [Path(e.path) for e in entries if e.name.startswith(prefix) and e.is_dir(follow_symlinks=False)]


def new_locked_folder(parent: Path, prefix: str, mode: int = 0o777) -> tuple[Path, int]:
    """A new folder `prefix` + random letters in parent, and a descriptor holding a flock on it for as long
    as it is open: the lock tells other processes the folder is in use, not a dead process's leftover."""
    while True:
        path = parent / f"{prefix}{secrets.token_hex(4)}"
        try:
            os.mkdir(path, mode)
        except FileExistsError:
            continue
        fd = os.open(path, os.O_RDONLY)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(path).st_ino == os.fstat(fd).st_ino:
                return path, fd
        except FileNotFoundError:  # removed as a leftover in the instant before it was locked: make another
            pass
        os.close(fd)


def lock_if_abandoned(path: Path, wait: bool = False) -> int | None:
    """A descriptor holding the lock on `path` when no live process holds it (waiting for it with wait), else None."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX if wait else fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def remove_leftovers(target: Path) -> None:
    """Remove the staging and old folders beside `target` that processes which died left behind."""
    for path in side_folders(target, BUILDING) + side_folders(target, OLD):
        remove_abandoned(path)


def remove_abandoned(path: Path) -> None:
    fd = lock_if_abandoned(path)
    if fd is not None:
        try:
            shutil.rmtree(path, ignore_errors=True)
        finally:
            os.close(fd)


def restore_interrupted_swap(target: Path) -> None:
    """A process that died between moving the target aside and moving its new version in (the path taken
    without RENAME_EXCHANGE) left no target: put the old folder back. One still being swapped is waited for."""
    if os.path.lexists(target):
        return
    for old in side_folders(target, OLD):
        fd = lock_if_abandoned(old, wait=True)
        if fd is None:
            continue
        try:
            if not os.path.lexists(target) and old.is_dir():
                os.rename(old, target)
        except OSError:
            pass  # cannot write here: the loader says the index is missing
        finally:
            os.close(fd)
        return


def carry_over(old: Path, staging: Path, steps: WriteSteps) -> None:
    """Every entry of the old folder that the writer did not write, hard-linked (copied where links fail)."""
    if not old.is_dir():
        return

    def link(source: str, destination: str) -> None:
        try:
            os.link(source, destination)
        except OSError:
            shutil.copy2(source, destination)
            sync_file(destination)
        steps(f"carried over {os.path.relpath(destination, staging)}")

    for entry in sorted(os.scandir(old), key=lambda e: e.name):
        destination = staging / entry.name
        if os.path.lexists(destination):
            continue
        if entry.is_symlink():
            os.symlink(os.readlink(entry.path), destination)
        elif entry.is_dir():
            shutil.copytree(entry.path, destination, symlinks=True, copy_function=link)
        else:
            link(entry.path, str(destination))


def swap_in(staging: Path, target: Path, steps: WriteSteps) -> tuple[Path | None, int | None]:
    """Put staging in target's place; returns where the old folder now is (None: there was none) and the
    descriptor holding its lock, to be closed once it is removed."""
    if not os.path.lexists(target):
        os.rename(staging, target)
        steps("moved in")
        return None, None
    if steps.rename_exchange and exchange(staging, target):
        steps("exchanged with the old folder")
        return staging, None
    old_lock = os.open(target, os.O_RDONLY)
    fcntl.flock(old_lock, fcntl.LOCK_EX)  # a loader finding no target waits for this swap instead of undoing it
    old = target.parent / f"{side_prefix(target, OLD)}{secrets.token_hex(4)}"
    try:
        os.rename(target, old)
    except OSError:
        os.close(old_lock)
        raise
    steps("old folder moved aside")
    try:
        os.rename(staging, target)
    except OSError:
        os.rename(old, target)  # put the old one back before saying why
        os.close(old_lock)
        raise
    steps("new folder moved in")
    return old, old_lock


def exchange(a: Path, b: Path) -> bool:
    """Swap two folders in one rename(2) (renameat2 with RENAME_EXCHANGE); False where the libc,
    kernel or file system cannot."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError, TypeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(AT_FDCWD, os.fsencode(a), AT_FDCWD, os.fsencode(b), RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(code, os.strerror(code), str(b))


def sync_tree(folder: Path, files: bool = True) -> None:
    """fsync the folders below `folder` (and their files, with files): what is swapped in survives a power cut too."""
    for root, _, names in os.walk(folder):
        for name in names if files else ():
            if not os.path.islink(os.path.join(root, name)):
                sync_file(os.path.join(root, name))
        sync_file(root)


def sync_file(path: str | Path) -> None:
    """fsync a file or a folder (a folder's fsync makes the entries in it durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def remove_tree(folder: Path, steps: WriteSteps) -> None:
    """Delete a replaced folder one file at a time (each a step); what a kill leaves is removed by the next write."""
    for root, _, files in os.walk(folder, topdown=False):
        for name in files:
            path = os.path.join(root, name)
            try:
                os.unlink(path)
            except FileNotFoundError:
                continue
            steps(f"removed old {os.path.relpath(path, folder)}")
    shutil.rmtree(folder, ignore_errors=True)  # the emptied folders (and any symlinks to folders)
