"""Copying every stored file from one backend to another (``seqcore storage migrate``).

Keys stay as they are, so the database needs no change: once the copy is complete and
verified, the deployment's settings name the new backend and it starts on it.

A run copies each key the source holds that the target does not already hold intact, hashing
the bytes as they stream through and reading the copy back to compare; an interrupted run is
resumed by running again (what is already there and intact is skipped, after its checksum is
read). The files the database records a SHA-256 for must match it in the target: a file that
is missing from the source, or whose bytes differ from the record, is reported, never hidden.
Keys the target holds that the source does not (files deleted since an earlier run) are
reported, and removed with ``prune``, so the switch leaves no orphan behind.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from seqcore.storage.backends.base import Backend

BLOCK = 8 << 20
# Where a local directory keeps files in flight and export bundles being built: not stored
# files.
SKIPPED_PREFIXES = ("tmp/",)


@dataclass
class MigrationReport:
    copied: int = 0
    copied_bytes: int = 0
    already: int = 0
    #: Keys the database refers to that the source does not hold.
    missing: list[str] = field(default_factory=list)
    #: Keys whose bytes differ from the database's checksum, or whose copy differs.
    mismatched: list[str] = field(default_factory=list)
    #: Keys in the target that the source does not hold (removed when pruning).
    extra: list[str] = field(default_factory=list)
    pruned: int = 0

    @property
    def problems(self) -> list[str]:
        return ([f"missing from the source: {k}" for k in self.missing]
                + [f"checksum differs: {k}" for k in self.mismatched])


def sha256_of(backend: Backend, key: str) -> str:
    digest = hashlib.sha256()
    with backend.open(key) as fh:
        while block := fh.read(BLOCK):
            digest.update(block)
    return digest.hexdigest()


def copy_one(source: Backend, target: Backend, key: str) -> tuple[str, int]:
    """Stream ``key`` from ``source`` into ``target``; its SHA-256 and size."""
    digest = hashlib.sha256()
    size = 0
    out = target.writer(key)
    try:
        with source.open(key) as fh:
            while block := fh.read(BLOCK):
                digest.update(block)
                size += len(block)
                out.write(block)
        out.close()
    except BaseException:
        abort = getattr(out, "abort", None)
        if abort is not None:
            abort()
        raise
    return digest.hexdigest(), size


def migrate(source: Backend, target: Backend, recorded: Mapping[str, str | None],
            track: Callable[[Sequence[str]], Iterable[str]] | None = None,
            prune: bool = False) -> MigrationReport:
    """Copy every key of ``source`` into ``target`` (see module). ``recorded`` maps the keys
    the database refers to onto their recorded SHA-256 (``None``: no checksum recorded)."""
    report = MigrationReport()
    keys = sorted(k for k in source.stored_keys() if not k.startswith(SKIPPED_PREFIXES))
    present = set(keys)
    report.missing = sorted(set(recorded) - present)
    walk: Iterable[str] = track(keys) if track is not None else keys
    for key in walk:
        expected = recorded.get(key)
        size = source.size(key)
        if target.size(key) == size:
            found = sha256_of(target, key)
            if expected is None:
                expected = sha256_of(source, key)
            if found == expected:
                report.already += 1
                continue
        digest, copied = copy_one(source, target, key)
        if (expected is not None and digest != expected) or sha256_of(target, key) != digest:
            report.mismatched.append(key)
            continue
        report.copied += 1
        report.copied_bytes += copied
    report.extra = sorted(k for k in target.stored_keys()
                          if k not in present and not k.startswith(SKIPPED_PREFIXES))
    if prune:
        for key in report.extra:
            target.delete(key)
        report.pruned = len(report.extra)
    return report
