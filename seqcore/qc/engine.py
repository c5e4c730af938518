"""The QC engine interface and the default, FastQC-compatible implementation.

Every upload is QC'd, so the default engine is built for throughput: one streaming pass,
gzip decoded by ISA-L (``isal``), the stream cut into chunks of whole records by
``dnaio.read_chunks`` and every chunk counted with a few numpy passes
(:mod:`seqcore.qc.counting`). Large files are counted by worker processes fed through
shared memory while a thread of the main process decompresses; memory stays flat because
only a fixed number of chunk slots is ever in flight. Files the fast path cannot read
(blank lines, CRLF, colorspace, ...) are re-read by the tolerant reader in
:mod:`seqcore.qc.tolerant`.
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import io
import multiprocessing
import os
import pathlib
import queue
import threading
import zlib
from collections.abc import Callable, Iterator, Mapping
from multiprocessing.context import SpawnContext
from multiprocessing.shared_memory import SharedMemory
from typing import Any, BinaryIO, Protocol, cast, runtime_checkable

import dnaio
import numpy as np
from isal import igzip
from isal.igzip_lib import IsalError

from .counting import (
    QUAL_HIGH,
    QUAL_LOW,
    ChunkDetail,
    ChunkError,
    IrregularChunk,
    Tally,
    TrackedKeys,
    chunk_keys,
    count_chunk,
)
from .fastqc_modules import TileTally, adapter_content, duplication_levels
from .fastqc_rules import (
    COLORSPACE,
    CONVENTIONAL,
    FASTQC_VERSION,
    OVERREPRESENTED_MIN_PERCENT,
    OVERREPRESENTED_TRACKING_LIMIT,
    encoding_for,
    gc_distribution,
    possible_source,
)
from .report import BaseQuality, OverrepresentedSequence, QCError, QCReport
from .tolerant import is_colorspace, normalised_chunks

MiB = 1024 * 1024
_GZIP_MAGIC = b"\x1f\x8b"
_OTHER_COMPRESSION = {
    b"BZh": "bzip2",
    b"\xfd7zXZ\x00": "xz",
    b"\x28\xb5\x2f\xfd": "zstd",
    b"PK\x03\x04": "zip",
}
# A chunk may be grown up to this size to fit one (very long) record.
_MAX_CHUNK = 1024 * MiB
_SLOTS_PER_WORKER = 2
# What reading a file may raise; the engine reports it as a QCError. (isal's stub declares
# IsalError an instance of Exception, not the class it is.)
_READ_ERRORS: tuple[type[BaseException], ...] = (
    OSError, EOFError, zlib.error, cast("type[BaseException]", IsalError), BufferError)
_POLL_SECONDS = 0.5


@runtime_checkable
class QCEngine(Protocol):
    """Computes the QC record of a FASTQ file (plain or gzipped).

    Plugins may register another implementation; it must raise :class:`QCError` (with a
    human-readable ``reason``) for input that cannot be QC'd, and nothing else.
    """

    def run(self, path: pathlib.Path) -> QCReport:
        """QC the file at ``path``."""
        ...


class _KeyTracker:
    """FastQC's overrepresented-sequence dictionary, fed chunk by chunk in file order.

    Only the first 100,000 distinct sequences are admitted; admitted ones keep counting.
    Because chunk counters list their keys in first-seen order, admitting them in that
    order reproduces exactly which sequences FastQC tracks. The duplication module also
    needs ``count_at_limit``: the number of the read that admitted the last sequence (or
    every read, while the dictionary is not full).
    """

    def __init__(self) -> None:
        self.counts: dict[bytes, int] = {}
        self.frozen = False
        self.reads = 0
        self.count_at_limit = 0
        # Once frozen: the tracked keys' hashes, for count_chunk to skip untracked reads.
        self.tracked: TrackedKeys | None = None

    def add(self, chunk: Mapping[bytes, int], reads: int,
            key_order: Callable[[], list[bytes]]) -> bool:
        """Merge the keys of a chunk of ``reads`` reads; return True if this made the
        dictionary full. ``key_order`` gives the chunk's keys read by read; it is only
        called for the chunk that fills the dictionary."""
        counts = self.counts
        reads_before = self.reads
        self.reads += reads
        if self.frozen:
            # Set intersection runs in C; most keys of a chunk are usually untracked.
            for key in chunk.keys() & counts.keys():
                counts[key] += chunk[key]
            return False
        if len(counts) + len(chunk) < OVERREPRESENTED_TRACKING_LIMIT:
            # The chunk cannot fill the dictionary: merge it with C loops (update keeps
            # the known keys in place and appends the new ones in first-seen order).
            merged = dict(chunk)
            for key in chunk.keys() & counts.keys():
                merged[key] += counts[key]
            counts.update(merged)
            self.count_at_limit = self.reads
            return False
        for key, count in chunk.items():
            if key in counts:
                counts[key] += count
            elif not self.frozen:
                counts[key] = count
                if len(counts) == OVERREPRESENTED_TRACKING_LIMIT:
                    self.frozen = True
                    self.count_at_limit = reads_before + key_order().index(key) + 1
        if not self.frozen:
            self.count_at_limit = self.reads
            return False
        self.tracked = TrackedKeys(counts)
        return True


class _Restart(Exception):
    """Abandon the fast pass; re-read the file with the tolerant reader."""


class FastQCCompatibleEngine:
    """Default engine: FastQC 0.11.9's numbers, computed in one streaming pass.

    ``processes`` worker processes (default: the number of CPUs, at most 4) count the
    chunks of files of at least ``parallel_threshold`` bytes on disk; smaller files are
    counted in-process so they do not pay for process start-up. ``processes=1`` never
    starts workers; ``parallel_threshold=0`` makes every file use them (tests compare
    both paths). ``chunk_size`` is the size of the record chunks handed to numpy.
    ``fastqc_version`` names the FastQC release whose numbers the reports equal.
    """

    fastqc_version = FASTQC_VERSION

    def __init__(
        self,
        *,
        processes: int | None = None,
        parallel_threshold: int = 32 * MiB,
        chunk_size: int = 8 * MiB,
        start_method: str | None = None,
    ) -> None:
        if processes is None:
            processes = max(1, min(4, os.cpu_count() or 1))
        if processes < 1:
            raise ValueError("processes must be at least 1")
        if chunk_size < 1024:
            raise ValueError("chunk_size must be at least 1 KiB")
        self.processes = processes
        self.parallel_threshold = parallel_threshold
        self.chunk_size = chunk_size
        self.start_method = start_method

    def run(self, path: pathlib.Path) -> QCReport:
        """QC ``path``; raises :class:`QCError` for anything that is not valid FASTQ."""
        path = pathlib.Path(path)
        try:
            return self._run(path)
        except QCError:
            raise
        # isal's stub declares IsalError an instance of Exception, not the class it is.
        except (OSError, EOFError, zlib.error, IsalError) as error:  # type: ignore[misc]
            raise QCError(f"could not read {path.name}: {error}") from error
        except MemoryError as error:
            raise QCError(f"{path.name} needs more memory than is available") from error

    def _run(self, path: pathlib.Path) -> QCReport:
        if not path.is_file():
            raise QCError(f"{path.name} does not exist or is not a regular file")
        gzipped = _is_gzip(path)
        head = _read_head(path, gzipped)
        if not head.strip(b"\r\n"):
            raise QCError(f"{path.name} is empty: it contains no FASTQ records")
        # dnaio needs at least 4 bytes; tiny files and anything odd go the tolerant way.
        if head[:1] != b"@" or len(head) < 4 or _first_read_is_colorspace(head):
            return self._tolerant(path, gzipped)
        parallel = self.processes > 1 and path.stat().st_size >= self.parallel_threshold
        chunk_size = self.chunk_size
        while True:
            try:
                if parallel:
                    return self._parallel(path, gzipped, chunk_size)
                return self._serial(path, gzipped, chunk_size)
            except _Restart:
                return self._tolerant(path, gzipped)
            except OverflowError as error:
                # dnaio could not fit a single record into a chunk: retry with bigger ones.
                if chunk_size >= _MAX_CHUNK:
                    raise QCError(
                        f"{path.name} has a record longer than {_MAX_CHUNK // MiB} MiB"
                    ) from error
                chunk_size = min(chunk_size * 8, _MAX_CHUNK)

    # -- the three ways through a file --------------------------------------------------

    def _serial(self, path: pathlib.Path, gzipped: bool, chunk_size: int) -> QCReport:
        tally = Tally()
        tracker = _KeyTracker()
        tiles = TileTally()
        with _open(path, gzipped) as stream:
            for chunk in _chunks(stream, chunk_size):
                first_record = tally.reads + 1
                try:
                    _count_in_order(np.frombuffer(chunk, dtype=np.uint8), tally, tracker, tiles)
                except ChunkError as error:
                    raise error.to_qc_error(first_record) from None
                except IrregularChunk:
                    raise _Restart from None
        return _build_report(tally, tracker, tiles, CONVENTIONAL)

    def _tolerant(self, path: pathlib.Path, gzipped: bool) -> QCReport:
        tally = Tally()
        tracker = _KeyTracker()
        tiles = TileTally()
        colorspace = False
        with _open(path, gzipped) as stream:
            for chunk, first_record, chunk_colorspace in normalised_chunks(stream, self.chunk_size):
                colorspace = chunk_colorspace
                try:
                    _count_in_order(np.frombuffer(chunk, dtype=np.uint8), tally, tracker, tiles)
                except ChunkError as error:
                    raise error.to_qc_error(first_record) from None
                except IrregularChunk as error:  # cannot happen: chunks are normalised
                    raise QCError(f"unreadable record near record {first_record}") from error
        return _build_report(tally, tracker, tiles,
                             COLORSPACE if colorspace else CONVENTIONAL)

    def _parallel(self, path: pathlib.Path, gzipped: bool, chunk_size: int) -> QCReport:
        with _WorkerPool(self.processes, chunk_size, _start_method(self.start_method)) as pool:
            tally, tracker, tiles = pool.count(path, gzipped)
        return _build_report(tally, tracker, tiles, CONVENTIONAL)


def _count_in_order(data: np.ndarray, tally: Tally, tracker: _KeyTracker,
                    tiles: TileTally) -> None:
    """Count one chunk in-process, feeding the order-dependent modules too."""
    reads_before = tally.reads
    detail = ChunkDetail(key_order=None if tracker.frozen else [], tracked=tracker.tracked)
    keys = count_chunk(data, tally, detail)
    tiles.add(data, detail.seq_starts, detail.qual_starts, detail.lengths, reads_before)
    order = detail.key_order
    tracker.add(keys, tally.reads - reads_before, lambda: order or [])


def _start_method(configured: str | None) -> str:
    """How to start workers: fork when that is safe and cheap, else forkserver or spawn.

    Forking is ~10x faster than the alternatives (no re-import of numpy), but is only safe
    in a process that has no other threads (a web server has them): another thread could
    hold a lock at the moment of the fork. The forkserver preloads this module, so its
    workers start without importing numpy again either.
    """
    if configured is not None:
        return configured
    methods = multiprocessing.get_all_start_methods()
    if "fork" in methods and threading.active_count() == 1:
        return "fork"
    if "forkserver" in methods:
        multiprocessing.get_context("forkserver").set_forkserver_preload([__name__])
        return "forkserver"
    return "spawn"


class _WorkerPool:
    """Worker processes that count chunks placed in shared-memory slots.

    A :class:`_SlotFiller` thread reads the file into whichever slot is free; chunk ``n``
    goes to worker ``n % workers``. Results are collected in chunk order from the
    per-worker result queues, so the overrepresented-sequence keys are merged in file
    order and a slot is refilled only after its chunk's result came back. Leaving the
    ``with`` block always stops the workers and frees the shared memory, also on errors.
    """

    def __init__(self, workers: int, chunk_size: int, start_method: str) -> None:
        self.workers = workers
        self.chunk_size = chunk_size
        self.slots = workers * _SLOTS_PER_WORKER
        # get_context(name) is annotated as a BaseContext, which has no Process; the context
        # of every start method has it.
        self.context = cast(SpawnContext, multiprocessing.get_context(start_method))
        self.memory: SharedMemory | None = None
        self.tasks: list[Any] = []
        self.results: list[Any] = []
        self.processes: list[Any] = []

    def __enter__(self) -> _WorkerPool:
        try:
            self.memory = SharedMemory(create=True, size=self.slots * self.chunk_size)
            for _ in range(self.workers):
                tasks = self.context.Queue()
                results = self.context.Queue()
                process = self.context.Process(
                    target=_worker_main,
                    args=(self.memory.name, self.chunk_size, tasks, results),
                    daemon=True,
                )
                process.start()
                self.tasks.append(tasks)
                self.results.append(results)
                self.processes.append(process)
        except BaseException:
            self._shutdown()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._shutdown()

    def count(self, path: pathlib.Path, gzipped: bool) -> tuple[Tally, _KeyTracker, TileTally]:
        assert self.memory is not None
        tally = Tally()
        tracker = _KeyTracker()
        tiles = TileTally()
        # (slot, size) of the chunks dispatched and not yet collected, in chunk order.
        pending: collections.deque[tuple[int, int]] = collections.deque()
        reads_before = 0
        dispatched = 0
        collected = 0

        # Set once per-tile quality gave up: workers then stop sending the layout.
        tiles_off = False

        def collect() -> None:
            nonlocal collected, reads_before, tiles_off
            message = self._receive(collected % self.workers)
            kind = message[0]
            if kind == "irregular":
                raise _Restart
            if kind == "chunk-error":
                raise ChunkError(message[1], message[2]).to_qc_error(reads_before + 1)
            if kind == "error":
                raise QCError(f"QC worker failed: {message[1]}")
            _, reads, keys, layout = message
            slot, size = pending[0]  # popped by the caller, which then frees the slot
            # The slot still holds the chunk: it is refilled only after this collection.
            assert memory is not None
            data = np.frombuffer(memory, dtype=np.uint8, count=size,
                                 offset=slot * self.chunk_size)
            try:
                if layout is not None:
                    seq_starts, qual_starts, lengths = layout
                    tiles.add(data, seq_starts, qual_starts, lengths, reads_before)
                filled = tracker.add(keys, reads, functools.partial(chunk_keys, data))
            finally:
                del data
            reads_before += reads
            if filled:
                for tasks in self.tasks:
                    tasks.put(("freeze", tracker.tracked))
            if tiles.ignored and not tiles_off:
                tiles_off = True
                for tasks in self.tasks:
                    tasks.put(("no-layout",))
            collected += 1

        memory = self.memory.buf
        if memory is None:  # only once the shared memory is closed
            raise RuntimeError("the worker pool is not open")
        filler = _SlotFiller(path, gzipped, memory, self.chunk_size, self.slots)
        try:
            while True:
                # Merge the results that are in, so that their slots are refilled early;
                # with every slot in flight, wait for the oldest.
                while collected < dispatched and (
                        dispatched - collected >= self.slots
                        or not self.results[collected % self.workers].empty()):
                    collect()
                    filler.free.put(pending.popleft()[0])
                item = filler.filled.get()
                if item is None:
                    break
                if isinstance(item, BaseException):
                    if isinstance(item, _READ_ERRORS):
                        raise QCError(f"could not read {path.name}: "
                                      f"{type(item).__name__}: {item}") from None
                    raise item
                slot, size = item
                self.tasks[dispatched % self.workers].put(("chunk", slot, size))
                pending.append((slot, size))
                dispatched += 1
            while collected < dispatched:
                collect()
                pending.popleft()
        finally:
            filler.stop()
        for tasks in self.tasks:
            tasks.put(None)
        for worker in range(self.workers):
            message = self._receive(worker)
            if message[0] != "done":
                raise QCError(f"QC worker failed: {message[1]}")
            tally.merge(message[1])
        return tally, tracker, tiles

    def _receive(self, worker: int) -> tuple[Any, ...]:
        while True:
            try:
                return cast("tuple[Any, ...]", self.results[worker].get(timeout=_POLL_SECONDS))
            except queue.Empty:
                process = self.processes[worker]
                if not process.is_alive():
                    raise QCError(
                        f"QC worker process stopped unexpectedly (exit code {process.exitcode})"
                    ) from None

    def _shutdown(self) -> None:
        for tasks, process in zip(self.tasks, self.processes, strict=False):
            if process.is_alive():
                with contextlib.suppress(Exception):
                    tasks.put_nowait(None)
        for process in self.processes:
            process.join(timeout=2)
            if process.is_alive():
                process.terminate()
                process.join(timeout=2)
            if process.is_alive():
                process.kill()
                process.join()
        for q in (*self.tasks, *self.results):
            q.close()
            q.cancel_join_thread()
        if self.memory is not None:
            try:
                self.memory.close()
            except BufferError:
                # A decompression error can leave a view of a slot in a reference cycle
                # (reader -> exception -> traceback -> frame); collect it, then close.
                gc.collect()
                with contextlib.suppress(BufferError):
                    self.memory.close()
            with contextlib.suppress(FileNotFoundError):
                self.memory.unlink()
            self.memory = None


class _SlotFiller:
    """Reads the file straight into free shared-memory slots, in a thread of its own.

    ISA-L inflates (and the file is read) without holding the GIL, so decompression goes
    on while the main thread merges results; it writes into the slot itself, with no
    intermediate buffer. Each slot taken from ``free`` comes back through ``filled`` as
    ``(slot, size)``: whole records, the partial last one carried over to the next slot.
    ``filled`` ends with ``None`` (end of file) or the exception that stopped the reading
    (its traceback dropped: its frames held views of a slot).
    """

    def __init__(self, path: pathlib.Path, gzipped: bool, memory: memoryview,
                 chunk_size: int, slots: int) -> None:
        self.free: queue.Queue[int | None] = queue.Queue()
        for slot in range(slots):
            self.free.put(slot)
        self.filled: queue.Queue[tuple[int, int] | BaseException | None] = queue.Queue()
        self._thread = threading.Thread(
            target=self._fill, args=(path, gzipped, memory, chunk_size), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop reading (after the slot being filled, if any) and wait for the thread."""
        self.free.put(None)
        self._thread.join()

    def _fill(self, path: pathlib.Path, gzipped: bool, memory: memoryview,
              chunk_size: int) -> None:
        carry = b""
        try:
            with _open(path, gzipped) as stream:
                while (slot := self.free.get()) is not None:
                    offset = slot * chunk_size
                    with memory[offset : offset + chunk_size] as view:
                        view[: len(carry)] = carry
                        size = len(carry) + _read_into(cast(io.BufferedIOBase, stream),
                                                       view[len(carry) :])
                        # A short read means end of file: the rest is the last chunk.
                        end = size
                        if size == chunk_size:
                            end = _last_record_end(view, size)
                        carry = bytes(view[end:size])
                    if end == 0:
                        break
                    self.filled.put((slot, end))
        except BaseException as error:  # handed to the main thread, which raises it
            cause: BaseException | None = error
            while cause is not None:
                cause.__traceback__ = None
                cause = cause.__cause__ or cause.__context__
            self.filled.put(error)
            return
        self.filled.put(None)


def _worker_main(memory_name: str, chunk_size: int, tasks: Any, results: Any) -> None:
    """Worker loop: count the chunks it is given, send keys back, the tally at the end."""
    memory = SharedMemory(name=memory_name)
    tally = Tally()
    tracked: TrackedKeys | None = None
    layout_wanted = True
    try:
        shared = memory.buf
        if shared is None:  # only once closed
            raise RuntimeError(f"shared memory {memory_name} is closed")
        while True:
            task = tasks.get()
            if task is None:
                break
            if task[0] == "freeze":
                tracked = task[1]
                continue
            if task[0] == "no-layout":
                layout_wanted = False
                continue
            _, slot, size = task
            reads_before = tally.reads
            detail = ChunkDetail(tracked=tracked)
            try:
                data = np.frombuffer(
                    shared, dtype=np.uint8, count=size, offset=slot * chunk_size
                )
                try:
                    keys = count_chunk(data, tally, detail)
                finally:
                    del data
            except IrregularChunk:
                results.put(("irregular",))
                continue
            except ChunkError as error:
                results.put(("chunk-error", error.index, error.message))
                continue
            except Exception as error:  # reported to the main process, which raises QCError
                results.put(("error", repr(error)))
                continue
            # Where the records lie, for the main process's per-tile sampling (int32: a
            # chunk is far smaller than 2 GiB), until that module gave up.
            layout = tuple(array.astype(np.int32) for array in
                           (detail.seq_starts, detail.qual_starts, detail.lengths)) \
                if layout_wanted else None
            # Once tracked is set the keys are only the few that may be tracked.
            results.put(("chunk", tally.reads - reads_before, dict(keys), layout))
        results.put(("done", tally))
    finally:
        memory.close()


# -- input ------------------------------------------------------------------------------


def _is_gzip(path: pathlib.Path) -> bool:
    with path.open("rb") as handle:
        magic = handle.read(6)
    if magic.startswith(_GZIP_MAGIC):
        return True
    for prefix, name in _OTHER_COMPRESSION.items():
        if magic.startswith(prefix):
            raise QCError(f"{path.name} is {name}-compressed; upload plain or gzipped FASTQ")
    return False


@contextlib.contextmanager
def _open(path: pathlib.Path, gzipped: bool) -> Iterator[BinaryIO]:
    stream: Any = igzip.open(path, "rb") if gzipped else path.open("rb", buffering=MiB)
    try:
        yield stream
    finally:
        stream.close()


def _read_head(path: pathlib.Path, gzipped: bool, size: int = 64 * 1024) -> bytes:
    with _open(path, gzipped) as stream:
        return stream.read(size)


def _first_read_is_colorspace(head: bytes) -> bool:
    lines = head.split(b"\n", 2)
    return len(lines) > 1 and is_colorspace(lines[1].rstrip(b"\r").decode("latin-1"))


def _read_into(stream: io.BufferedIOBase, view: memoryview) -> int:
    """Fill ``view`` from ``stream`` as far as the data goes; return the bytes read."""
    total = 0
    while total < len(view):
        with view[total:] as rest:
            count = stream.readinto(rest)
        if not count:
            break
        total += count
    return total


def _last_record_end(view: memoryview, size: int) -> int:
    """Offset just past the last complete 4-line record in ``view[:size]``.

    The buffer starts at a record. Only its tail is inspected: the last line starting
    with '@' whose next-but-one line starts with '+' is a header (a quality line that
    starts with '@' is followed, two lines on, by a sequence line). The record it starts
    ends the chunk if it is complete, else the chunk ends before it. This is what
    ``dnaio.read_chunks`` does by counting every newline of the buffer, which the main
    process, also busy decompressing, cannot afford for large files. A chunk boundary
    misplaced on irregular input is harmless: the worker then rejects the chunk as
    irregular and the file is re-read tolerantly.
    """
    window = 64 * 1024
    while True:
        base = max(0, size - window)
        tail = bytes(view[base:size])
        end = _tail_record_end(tail, base == 0)
        if end is not None:
            return base + end
        if base == 0:
            raise OverflowError("FASTQ record does not fit into a chunk")
        window *= 4


def _tail_record_end(tail: bytes, at_start: bool) -> int | None:
    search_end = len(tail)
    while True:
        found = tail.rfind(b"\n@", 0, search_end)
        if found == -1:
            if not at_start or tail[:1] != b"@":
                return None
            header = 0
        else:
            header = found + 1
        lines = [header]
        position = header
        for _ in range(4):
            newline = tail.find(b"\n", position)
            if newline == -1:
                break
            position = newline + 1
            lines.append(position)
        if len(lines) > 2 and lines[2] < len(tail) and tail[lines[2] : lines[2] + 1] == b"+":
            # A real header: its record ends the chunk if complete, else starts the carry.
            if len(lines) == 5:
                return lines[4]
            return header if header > 0 or not at_start else None
        if header == 0:
            return None
        search_end = found


def _chunks(stream: BinaryIO, chunk_size: int) -> Iterator[memoryview]:
    try:
        # dnaio annotates a BufferedIOBase and uses only readinto, which every stream that
        # _open gives (a buffered file, an isal gzip reader) has.
        yield from dnaio.read_chunks(cast(io.BufferedIOBase, stream), chunk_size)
    except dnaio.UnknownFileFormat:
        raise _Restart from None


# -- report -----------------------------------------------------------------------------


def _build_report(tally: Tally, tracker: _KeyTracker, tiles: TileTally,
                  file_type: str) -> QCReport:
    if tally.reads == 0:
        raise QCError("the file contains no FASTQ records")
    lengths = np.flatnonzero(tally.lengths)
    min_length, max_length = int(lengths[0]), int(lengths[-1])
    total_bases = int(np.dot(np.arange(tally.lengths.size, dtype=np.int64), tally.lengths))

    seen_chars = np.flatnonzero(tally.quality.sum(axis=0))
    if seen_chars.size == 0:
        raise QCError("every read is empty: there are no bases to QC")
    encoding, offset = encoding_for(QUAL_LOW + int(seen_chars[0]))

    counts = tally.bases
    a, c, g, t = (int(counts[ord(b)] + counts[ord(b.lower())]) for b in "ACGT")
    gc_content = (g + c) * 100 // (a + c + g + t) if a + c + g + t else 0

    scores = np.arange(QUAL_LOW, QUAL_HIGH + 1, dtype=np.int64) - offset
    per_base = [
        _position_quality(position, row, scores)
        for position, row in enumerate(tally.quality, start=1)
    ]
    per_sequence = {
        int(raw) - offset: int(tally.mean_quality[raw])
        for raw in np.flatnonzero(tally.mean_quality)
    }

    total = tally.reads
    overrepresented = [
        (key, count, (count / total) * 100)
        for key, count in tracker.counts.items()
        if (count / total) * 100 > OVERREPRESENTED_MIN_PERCENT
    ]
    overrepresented.sort(key=lambda item: (-item[1], item[0]))
    return QCReport(
        file_type=file_type,
        encoding=encoding,
        total_sequences=total,
        filtered_sequences=0,
        total_bases=total_bases,
        min_length=min_length,
        max_length=max_length,
        gc_content=gc_content,
        overrepresented_sequences=[
            OverrepresentedSequence(
                sequence=key.decode("latin-1"),
                count=count,
                percentage=percentage,
                possible_source=possible_source(key.decode("latin-1")),
            )
            for key, count, percentage in overrepresented
        ],
        per_base_quality=per_base,
        per_sequence_quality=per_sequence,
        per_base_counts=[(int(a), int(c), int(g), int(t), int(n))
                         for a, c, g, t, n in tally.position_bases],
        length_counts={int(length): int(tally.lengths[length]) for length in lengths},
        gc_distribution=gc_distribution(tally.gc_reads),
        duplication=duplication_levels(tracker.counts.values(), tracker.count_at_limit,
                                       total),
        adapter_content=adapter_content(tally.adapter_hits, total, max_length),
        per_tile_quality=tiles.table(),
    )


def _position_quality(position: int, row: np.ndarray, scores: np.ndarray) -> BaseQuality:
    """FastQC's statistics of one position from its quality-character histogram.

    The mean is an exact integer sum divided once, like FastQC's. A percentile p is the
    first score whose cumulative count reaches ``count * p // 100`` (integer division),
    and is only reported for positions seen in more than 100 reads.
    """
    count = int(row.sum())
    mean = int(np.dot(row, scores)) / count if count else 0.0
    if count <= 100:
        return BaseQuality(position, count, mean, None, None, None, None, None)
    cumulative = np.cumsum(row)

    def percentile(p: int) -> float:
        return float(scores[int(np.searchsorted(cumulative, count * p // 100, side="left"))])

    return BaseQuality(
        position,
        count,
        mean,
        median=percentile(50),
        lower_quartile=percentile(25),
        upper_quartile=percentile(75),
        percentile_10=percentile(10),
        percentile_90=percentile(90),
    )
