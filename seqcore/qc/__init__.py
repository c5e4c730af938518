"""FastQC-compatible quality control of FASTQ uploads.

``FastQCCompatibleEngine().run(path)`` returns a :class:`QCReport` whose numbers equal
FastQC's; :class:`QCEngine` is the interface another engine (e.g. from a plugin) must
implement. :mod:`~seqcore.qc.processing` is the worker's part: checksums, decompression and
QC of every upload. The web layer registers the engine; the engine depends on nothing of
Pyramid's. Part of the domain layer; it imports no transport.
"""

from .engine import FastQCCompatibleEngine, QCEngine
from .fastqc_rules import FASTQC_VERSION
from .report import QCError, QCReport

__all__ = ["FASTQC_VERSION", "FastQCCompatibleEngine", "QCEngine", "QCError", "QCReport"]
