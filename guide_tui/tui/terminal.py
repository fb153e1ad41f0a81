"""The terminal the app runs in: whether it is still there."""

from __future__ import annotations

import select


def terminal_hung_up(fd: int) -> bool:
    """True once the terminal behind fd is gone (window closed, ssh dropped)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)  # hang-ups and errors are reported whatever is asked for
    return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, events in poller.poll(0))
