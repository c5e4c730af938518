"""FastQC's (0.11.9) rules that are not plain counting: encoding names and contaminants.

Kept apart from the counting code so the rules can be read (and checked against FastQC's
own output, see ``tests/qc``) without wading through the numpy machinery.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from .report import QCError

# The FastQC release whose rules these are and whose numbers the engine reproduces: the
# tests compare against it (the Debian ``fastqc`` package, ``fastqc --version``).
FASTQC_VERSION = "0.11.9"

SANGER = "Sanger / Illumina 1.9"
ILLUMINA_1_3 = "Illumina 1.3"
ILLUMINA_1_5 = "Illumina 1.5"

# A distinct sequence is only tracked for the overrepresented table if it was among the
# first 100,000 distinct ones (later ones are ignored, tracked ones keep counting).
OVERREPRESENTED_TRACKING_LIMIT = 100_000
# Reads longer than this are cut to OVERREPRESENTED_PREFIX bases before counting.
OVERREPRESENTED_LONG_READ = 75
OVERREPRESENTED_PREFIX = 50
# Reported when count / total * 100 exceeds this (FastQC's "overrepresented warn" limit).
OVERREPRESENTED_MIN_PERCENT = 0.1

# FastQC's adapter list (Configuration/adapter_list.txt): name and the 12-mer searched for.
ADAPTERS: tuple[tuple[str, bytes], ...] = (
    ("Illumina Universal Adapter", b"AGATCGGAAGAG"),
    ("Illumina Small RNA 3' Adapter", b"TGGAATTCTCGG"),
    ("Illumina Small RNA 5' Adapter", b"GATCGTCGGACT"),
    ("Nextera Transposase Sequence", b"CTGTCTCTTATA"),
    ("SOLID Small RNA Adapter", b"CGCCTTGGCCGT"),
)
ADAPTER_LENGTH = max(len(sequence) for _name, sequence in ADAPTERS)

# Per-tile quality looks at every TILE_SAMPLING-th read (the 10th, 20th, ... of the file)
# and gives up (module not reported) beyond TILE_LIMIT tiles: the headers are then
# probably not Illumina's.
TILE_SAMPLING = 10
TILE_LIMIT = 1000

CONVENTIONAL = "Conventional base calls"
COLORSPACE = "Colorspace converted to bases"


def encoding_for(lowest_char: int) -> tuple[str, int]:
    """FastQC's encoding name and Phred offset for the lowest quality character seen.

    FastQC guesses from the single lowest character: below ``@`` (64) it is Sanger /
    Illumina 1.9 (offset 33); exactly ``A`` (65) is Illumina 1.3; anything else up to
    ``~`` (126), including ``@`` itself and ``B``, is Illumina 1.5 (both offset 64).
    """
    if lowest_char < 33:
        raise QCError(
            f"quality character {lowest_char!r} (below '!') is not valid in any FASTQ "
            "quality encoding"
        )
    if lowest_char < 64:
        return SANGER, 33
    if lowest_char == 65:
        return ILLUMINA_1_3, 64
    if lowest_char <= 126:
        return ILLUMINA_1_5, 64
    raise QCError(
        f"quality character {lowest_char!r} (above '~') is not valid in any FASTQ quality encoding"
    )


@dataclass(frozen=True)
class Contaminant:
    """An entry of the contaminant list with its reverse complement precomputed."""

    name: str
    forward: str
    reverse: str


_COMPLEMENT = str.maketrans("ACGT", "TGCA")


def parse_contaminants(text: str) -> list[Contaminant]:
    """Parse a FastQC-format contaminant list (``name<TAB(s)>sequence`` lines).

    Comment (``#``) and blank lines are skipped, and so is any line that does not split
    into exactly two fields on runs of tabs, as FastQC does.
    """
    entries: list[Contaminant] = []
    for line in text.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        fields = re.split(r"\t+", line)
        while fields and fields[-1] == "":
            fields.pop()
        if len(fields) != 2:
            continue
        sequence = fields[1].upper()
        if set(sequence) - set("ACGT"):
            raise ValueError(f"contaminant {fields[0]!r} has a non-ACGT base")
        entries.append(Contaminant(fields[0], sequence, sequence.translate(_COMPLEMENT)[::-1]))
    return entries


@lru_cache(maxsize=1)
def default_contaminants() -> tuple[Contaminant, ...]:
    """The contaminant list FastQC ships (``seqcore/qc/data/contaminant_list.txt``)."""
    text = resources.files(__package__).joinpath("data/contaminant_list.txt").read_text("ascii")
    return tuple(parse_contaminants(text))


@dataclass(frozen=True)
class ContaminantHit:
    """A contaminant match: FastQC prints it as ``name (97% over 36bp)``."""

    name: str
    length: int
    percent_id: int

    def __str__(self) -> str:
        return f"{self.name} ({self.percent_id}% over {self.length}bp)"


_SEED = 10


@lru_cache(maxsize=8)
def _seed_index(contaminants: tuple[Contaminant, ...]) -> dict[str, list[tuple[int, int, int]]]:
    """Every 10-mer of every contaminant strand -> (contaminant, strand, position)."""
    index: dict[str, list[tuple[int, int, int]]] = {}
    for number, contaminant in enumerate(contaminants):
        for strand, bases in enumerate((contaminant.forward, contaminant.reverse)):
            for position in range(len(bases) - _SEED + 1):
                index.setdefault(bases[position : position + _SEED], []).append(
                    (number, strand, position)
                )
    return index


def find_contaminant_hit(
    query: str, contaminants: tuple[Contaminant, ...] | None = None
) -> ContaminantHit | None:
    """FastQC's best contaminant hit for an overrepresented sequence, or ``None``.

    Queries of 8-19 bases hit a contaminant they are an exact substring of (forward,
    then reverse complement). Otherwise every overlap of query and contaminant (both
    strands) is scanned for stretches of more than 20 bases with at most one mismatch;
    the longest stretch wins, and on equal length the first contaminant in the list, the
    forward strand and the leftmost overlap win. The percent identity is an integer,
    truncated. ``None`` means FastQC's "No Hit".

    FastQC scans every overlap; here only overlaps that share an aligned 10-mer with the
    query are scanned. That loses nothing: a stretch of 21 or more bases with at most
    one mismatch always contains an exact 10-mer (the mismatch can spoil only one of two
    disjoint 10-mers), and it keeps the search fast when a file has hundreds of
    overrepresented sequences.
    """
    if contaminants is None:
        contaminants = default_contaminants()
    query = query.upper()
    if 8 <= len(query) < 20:
        for contaminant in contaminants:
            if query in contaminant.forward or query in contaminant.reverse:
                return ContaminantHit(contaminant.name, len(query), 100)
    index = _seed_index(contaminants)
    offsets: dict[tuple[int, int], set[int]] = {}
    for query_position in range(len(query) - _SEED + 1):
        for number, strand, position in index.get(
            query[query_position : query_position + _SEED], ()
        ):
            offsets.setdefault((number, strand), set()).add(query_position - position)
    best: ContaminantHit | None = None
    for number in sorted({number for number, _ in offsets}):
        contaminant = contaminants[number]
        hit = _match_contaminant(
            query, contaminant, offsets.get((number, 0)), offsets.get((number, 1))
        )
        if hit is not None and (best is None or hit.length > best.length):
            best = hit
    return best


@lru_cache(maxsize=4096)
def possible_source(query: str) -> str:
    """FastQC's "Possible Source" text for an overrepresented sequence."""
    hit = find_contaminant_hit(query)
    return "No Hit" if hit is None else str(hit)


def _match_contaminant(
    query: str,
    contaminant: Contaminant,
    forward_offsets: set[int] | None,
    reverse_offsets: set[int] | None,
) -> ContaminantHit | None:
    best: tuple[int, int] | None = None  # (length, percent id)
    for strand, offsets in (
        (contaminant.forward, forward_offsets),
        (contaminant.reverse, reverse_offsets),
    ):
        # Overlaps place contaminant position i against query position i + offset;
        # FastQC tries offsets from 20 - len(contaminant) up to len(query) - 21.
        for offset in sorted(offsets or ()):
            if not 20 - len(strand) <= offset < len(query) - 20:
                continue
            found = _best_stretch(strand, query, offset)
            if found is not None and (best is None or found[0] > best[0]):
                best = found
    if best is None:
        return None
    return ContaminantHit(contaminant.name, best[0], best[1])


def _best_stretch(strand: str, query: str, offset: int) -> tuple[int, int] | None:
    """Longest stretch (> 20 bases, at most one mismatch) of one overlap.

    The scan walks the overlap keeping ``start``/``end`` of the current stretch, where
    ``end`` is the last matching position; a second mismatch closes the stretch and the
    next one starts right after it. The identity of a closed stretch counts the one
    mismatch it contains; a stretch still open at the end counts its mismatches so far.
    These are FastQC's exact bookkeeping rules, including its off-by-one quirks.
    """
    best: tuple[int, int] | None = None
    mismatches = 0
    start = 0
    end = 0
    first = max(0, -offset)
    last = min(len(strand), len(query) - offset)
    if first > 0:
        start = first
    for i in range(first, last):
        if strand[i] == query[i + offset]:
            end = i
            continue
        mismatches += 1
        if mismatches > 1:
            length = 1 + end - start
            if length > 20:
                pid = ((length - (mismatches - 1)) * 100) // length
                if best is None or best[0] < length or (best[0] == length and best[1] < pid):
                    best = (length, pid)
            start = i + 1
            end = i + 1
            mismatches = 0
    length = 1 + end - start
    if length > 20:
        pid = ((length - mismatches) * 100) // length
        if best is None or best[0] < length or (best[0] == length and best[1] < pid):
            best = (length, pid)
    return best


def _java_round(value: float) -> int:
    """Java's ``Math.round``: halves go up (Python's ``round`` goes to even)."""
    return math.floor(value + 0.5)


@lru_cache(maxsize=256)
def gc_model(length: int) -> tuple[tuple[tuple[int, float], ...], ...]:
    """FastQC's GC model of reads of ``length`` bases: for each G+C count (0 to length),
    the percentage bins it is spread over and the share each bin gets, so reads of every
    length fill the 0-100% bins evenly (a bin claimed by several counts shares itself)."""
    def bins(count: int) -> range:
        low = min(max(count - 0.5, 0), length)
        high = min(max(count + 0.5, 0), length)
        return range(_java_round(low * 100 / length), _java_round(high * 100 / length) + 1)

    claiming = [0] * 101
    for count in range(length + 1):
        for percentage in bins(count):
            claiming[percentage] += 1
    return tuple(tuple((p, 1 / claiming[p]) for p in bins(count))
                 for count in range(length + 1))


def gc_distribution(gc_reads: Mapping[tuple[int, int], int]) -> list[float]:
    """FastQC's per-sequence GC content: reads counted by (length, G+C count), spread over
    the 0-100% bins by :func:`gc_model`, in FastQC's order of addition."""
    distribution = [0.0] * 101
    for (length, gc), reads in sorted(gc_reads.items()):
        for percentage, share in gc_model(length)[gc]:
            distribution[percentage] += share * reads
    return distribution
