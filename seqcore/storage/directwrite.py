"""Writing a large file past the page cache (``O_DIRECT``).

Written the ordinary way, every byte of an upload is copied by the kernel into the page cache
and later written out by the flusher or by ``sync``: a multi-gigabyte upload costs a CPU copy
per byte, evicts what the database and recent downloads had cached, and on a virtual machine
pays a host fault for each page of memory the guest has not touched lately (which makes that
copy several times slower and its time unpredictable). With ``O_DIRECT`` the device reads the
bytes straight from an aligned buffer of the process: the file is (all but its unaligned
edges) on the device when its upload ends, and the page cache is left alone.

``O_DIRECT`` wants the buffer's address, the file offset and the length aligned to the
device's logical block size, so bytes are gathered in a page-aligned staging buffer and
written in aligned runs; the few bytes before the first aligned offset and after the last
are written the ordinary way (the flag is switched per write with ``fcntl``). A file system
that refuses ``O_DIRECT`` (tmpfs, some network file systems) gets ordinary writes.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import mmap
import os
from collections.abc import Callable

# Covers every logical block size in use (512 and 4096 bytes); mmap's buffer is page-aligned.
ALIGN = 4096
STAGE = 8 << 20

O_DIRECT: int = getattr(os, "O_DIRECT", 0)


def write_all(fd: int, data: bytes | memoryview) -> None:
    """``os.write`` until every byte is written (it may write fewer)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


class DirectFile:
    """Appends to ``fd`` (whose file already holds ``offset`` bytes) through a staging buffer.

    ``on_flushed(n)`` is called whenever the file on disk has grown to ``n`` bytes. Not
    thread-safe: one thread writes (the storage writer's companion), then :meth:`finish`.
    """

    def __init__(self, fd: int, offset: int, on_flushed: Callable[[int], None]) -> None:
        self._fd = fd
        self._offset = offset
        self._on_flushed = on_flushed
        self._stage = mmap.mmap(-1, STAGE)
        self._view = memoryview(self._stage)
        self._fill = 0
        self._direct = False  # the flag as it is set on the descriptor now
        self.supported = O_DIRECT != 0

    @classmethod
    def open(cls, fd: int, offset: int, on_flushed: Callable[[int], None]
             ) -> DirectFile | None:
        """A direct writer for ``fd``, or None where the file system refuses ``O_DIRECT``."""
        if not O_DIRECT:
            return None
        try:
            _set_flag(fd, True)
            _set_flag(fd, False)
        except OSError:
            return None
        return cls(fd, offset, on_flushed)

    def write(self, data: bytes | memoryview) -> None:
        view = memoryview(data).cast("B")
        while view:
            n = min(len(view), STAGE - self._fill)
            self._view[self._fill:self._fill + n] = view[:n]
            self._fill += n
            view = view[n:]
            if self._fill == STAGE:
                self._flush(final=False)

    def finish(self) -> None:
        """Write what is staged (the unaligned end the ordinary way) and free the buffer."""
        try:
            self._flush(final=True)
            self._switch(False)
        finally:
            self.close()

    def close(self) -> None:
        """Free the buffer; while a failed write's traceback still holds a view of it, the
        garbage collector frees it later."""
        self._view.release()
        with contextlib.suppress(BufferError):
            self._stage.close()

    def _flush(self, final: bool) -> None:
        head = -self._offset % ALIGN
        if head and self._fill:  # only before the first aligned write
            head = min(head, self._fill)
            self._plain(self._view[:head])
            self._stage.move(0, head, self._fill - head)
            self._fill -= head
        aligned = self._fill - self._fill % ALIGN
        if aligned and self._offset % ALIGN == 0:
            self._aligned(self._view[:aligned])
            self._stage.move(0, aligned, self._fill - aligned)
            self._fill -= aligned
        if final and self._fill:
            self._plain(self._view[:self._fill])
            self._fill = 0
        self._on_flushed(self._offset)

    def _aligned(self, block: memoryview) -> None:
        if self.supported:
            try:
                self._switch(True)
                while block:
                    written = os.write(self._fd, block)
                    self._offset += written
                    block = block[written:]
                return
            except OSError as err:
                if err.errno != errno.EINVAL:
                    raise
                # Accepted at open, refused on writing: ordinary writes from here on (a
                # refused write writes nothing, so the rest of the block follows below).
                self.supported = False
        self._plain(block)

    def _plain(self, block: memoryview) -> None:
        self._switch(False)
        write_all(self._fd, block)
        self._offset += len(block)

    def _switch(self, direct: bool) -> None:
        if direct != self._direct:
            _set_flag(self._fd, direct)
            self._direct = direct


def _set_flag(fd: int, direct: bool) -> None:
    flags = fcntl.fcntl(fd, fcntl.F_GETFL)
    fcntl.fcntl(fd, fcntl.F_SETFL, flags | O_DIRECT if direct else flags & ~O_DIRECT)
