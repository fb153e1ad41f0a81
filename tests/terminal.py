"""A command on a pseudo-terminal, as a user runs it: the app tests and the start-up benchmark drive the real app with it."""

from __future__ import annotations

import os
import subprocess
import time
import weakref


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.kill()
        process.wait()


class Terminal:
    """A command on a pseudo-terminal, as a user runs it (Textual's real driver): type into it, watch its output."""

    def __init__(self, command: list[str], env: dict, size: tuple[int, int] = (120, 40)) -> None:
        import fcntl
        import pty
        import struct
        import termios

        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self.started = time.perf_counter()
        self.process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.output = bytearray()
        weakref.finalize(self, stop, self.process)  # a test failing before wait() leaves no app running after pytest

    def drain(self, seconds: float) -> None:
        """Read whatever the program writes for up to `seconds` (its writes block if nobody reads)."""
        import select

        watch = select.poll()  # not select.select, which cannot watch a descriptor numbered 1024 or above
        watch.register(self.master, select.POLLIN)
        if watch.poll(seconds * 1000):
            try:
                self.output += os.read(self.master, 65536)
            except OSError:  # the terminal closed with the process
                time.sleep(seconds)

    def read_until(self, needle: bytes, timeout: float, start: int = 0) -> float | None:
        """Seconds since start-up when `needle` first shows in the output after offset `start`; None if it never does."""
        deadline = time.perf_counter() + timeout
        while needle not in self.output[start:]:
            if time.perf_counter() > deadline or self.process.poll() is not None:
                return None
            self.drain(0.005)
        return time.perf_counter() - self.started

    def type(self, data: bytes) -> None:
        os.write(self.master, data)

    def wait(self, timeout: float) -> int | None:
        """The exit status once the program ends, or None after killing it at `timeout`."""
        deadline = time.perf_counter() + timeout
        while self.process.poll() is None and time.perf_counter() < deadline:
            self.drain(0.01)
        if self.process.poll() is None:
            self.process.kill()
        status = self.process.wait()
        os.close(self.master)
        return status if time.perf_counter() <= deadline else None
