"""Running a command with its standard error on a pseudo-terminal, as a person at a
terminal sees it: the commands that draw progress only there are tested through it."""

from __future__ import annotations

import os
import pty
import subprocess
from typing import Any


def on_a_terminal(command: list[str], **run: Any) -> tuple[subprocess.CompletedProcess, str]:
    """Run ``command`` (``run``: more of :func:`subprocess.run`'s arguments) with standard
    error on a pseudo-terminal and standard output on a pipe; the finished process and
    what the terminal showed."""
    leader, follower = pty.openpty()
    done = subprocess.run(command, stderr=follower, stdout=subprocess.PIPE, check=False,
                          **run)
    os.close(follower)
    seen = b""
    try:
        while chunk := os.read(leader, 65536):
            seen += chunk
    except OSError:  # the terminal closed
        pass
    os.close(leader)
    return done, seen.decode(errors="replace")
