"""SNV evidence, consolidation and SNVPhyl's output formats, as plain numpy functions.

Everything here works on genome-wide arrays: the reference's contigs are concatenated and a
position is an index into that concatenation, so one vectorised pass filters every site of
every contig. Bases are coded 0-3 (A, C, G, T), 4 for ``N`` (ambiguous, or caller
disagreement) and 5 for ``-`` (below the minimum coverage), the cell values of SNVPhyl's
``snvTable.tsv``. The module has no seqcore imports, so benchmarks and tests can reuse it.
"""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dnaio
import numpy as np

N_CODE = 4
GAP_CODE = 5
LETTERS = np.frombuffer(b"ACGTN-", dtype=np.uint8)
_ENCODE = np.full(256, N_CODE, dtype=np.uint8)
for _i, _b in enumerate(b"ACGT"):
    _ENCODE[_b] = _i
    _ENCODE[ord(chr(_b).lower())] = _i

VALID = "valid"
COVERAGE = "filtered-coverage"
MPILEUP = "filtered-mpileup"
INVALID = "filtered-invalid"


class ReferenceError(ValueError):
    """The reference is not a usable FASTA file."""


@dataclass
class Reference:
    """The reference genome: contig names and lengths, and all bases coded, concatenated."""

    names: list[str]
    lengths: list[int]
    codes: np.ndarray

    @property
    def offsets(self) -> np.ndarray:
        return np.concatenate([[0], np.cumsum(self.lengths)]).astype(np.int64)

    @property
    def size(self) -> int:
        return int(sum(self.lengths))

    def contig_index(self, positions: np.ndarray) -> np.ndarray:
        """Which contig each genome-wide position falls in."""
        return np.searchsorted(self.offsets, positions, side="right") - 1


def read_fasta(path: Path) -> Reference:
    """Parse a FASTA reference (plain or gzip, as uploads may be) with dnaio; refuses what
    is not FASTA with a message for the user."""
    names: list[str] = []
    seqs: list[bytes] = []
    try:
        with dnaio.open(path, fileformat="fasta") as records:
            for record in records:
                names.append(record.id)
                seqs.append(record.sequence.encode("ascii"))
    except dnaio.FileFormatError as err:
        raise ReferenceError(f"this is not FASTA: {err}") from err
    except UnicodeError as err:
        raise ReferenceError("this is not FASTA: it holds characters that are not "
                             "ASCII.") from err
    except (OSError, EOFError) as err:  # a damaged gzip stream
        raise ReferenceError(f"the compressed file cannot be read ({err}).") from err
    return _reference(names, seqs)


def _reference(names: list[str], seqs: list[bytes]) -> Reference:
    """The parsed records as a :class:`Reference`, once every contig is a usable one."""
    if not names:
        raise ReferenceError("this is not FASTA: no sequence records.")
    seen: set[str] = set()
    for name, seq in zip(names, seqs, strict=True):
        if not name:
            raise ReferenceError("a FASTA header without a name.")
        if name in seen:
            raise ReferenceError(f"the contig name {name!r} appears twice.")
        seen.add(name)
        if seq and not seq.replace(b"-", b"").isalpha():
            odd = next(chr(b) for b in seq if not (chr(b).isalpha() or b == ord("-")))
            raise ReferenceError(f"contig {name!r}: not a sequence line (it holds {odd!r}).")
    empty = [n for n, s in zip(names, seqs, strict=True) if not s]
    if empty:
        raise ReferenceError(f"contig(s) without sequence: {', '.join(empty)}.")
    codes = _ENCODE[np.frombuffer(b"".join(seqs), dtype=np.uint8)]
    return Reference(names, [len(s) for s in seqs], codes)


def write_fasta(reference: Reference, path: Path, width: int = 80) -> None:
    """The reference as clean upper-case FASTA (what every tool is given)."""
    letters = LETTERS[reference.codes].tobytes()
    with dnaio.FastaWriter(path, line_length=width) as out:
        for name, start, length in zip(reference.names, reference.offsets,
                                       reference.lengths, strict=False):
            out.write(dnaio.SequenceRecord(name, letters[start:start + length].decode()))


# -- repeats ---------------------------------------------------------------------------------

def parse_self_alignment(coords: str, reference: Reference) -> np.ndarray:
    """The repeat mask from ``show-coords -T -H`` of a reference aligned to itself.

    Every alignment marks both of its copies (1-based, ends included), except those
    SNVPhyl's ``find-repeats.pl`` takes for a contig's alignment onto itself: on one
    contig, starting or ending at the same position in both copies.
    """
    mask = np.zeros(reference.size, dtype=bool)
    index = {name: i for i, name in enumerate(reference.names)}
    offsets = reference.offsets
    for line in coords.splitlines():
        fields = line.split("\t")
        if len(fields) < 9 or not fields[0].strip().isdigit():
            continue
        s1, e1, s2, e2 = (int(f) for f in fields[:4])
        tag1, tag2 = fields[7], fields[8]
        if tag1 == tag2 and (s1 == s2 or e1 == e2):
            continue
        for tag, a, b in ((tag1, s1, e1), (tag2, s2, e2)):
            if tag not in index:
                continue
            lo, hi = min(a, b), max(a, b)
            base = offsets[index[tag]]
            mask[base + lo - 1: base + hi] = True
    return mask


def start_repeat_search(reference_fasta: Path, prefix: Path) -> subprocess.Popen:
    """Start ``nucmer`` aligning the reference to itself (it runs while reads are mapped)."""
    log = open(f"{prefix}.nucmer.log", "wb")  # noqa: SIM115 - closed by finish_repeat_search
    return subprocess.Popen(["nucmer", "--maxmatch", "--nosimplify", f"--prefix={prefix}",
                             str(reference_fasta), str(reference_fasta)],
                            stdout=log, stderr=subprocess.STDOUT)


def finish_repeat_search(process: subprocess.Popen, prefix: Path, reference: Reference,
                         min_length: int, min_identity: float) -> np.ndarray:
    """Wait for ``nucmer``, keep repeats of ``min_length`` bp at ``min_identity`` %."""
    if process.wait() != 0:
        raise RuntimeError("nucmer failed: " + _tail(Path(f"{prefix}.nucmer.log")))
    coords = subprocess.run(
        ["show-coords", "-T", "-H", "-r", "-I", f"{min_identity:g}", "-L", str(min_length),
         f"{prefix}.delta"], capture_output=True, text=True)
    if coords.returncode != 0:
        raise RuntimeError("show-coords failed: " + coords.stderr[-2000:])
    Path(f"{prefix}.coords").write_text(coords.stdout)
    return parse_self_alignment(coords.stdout, reference)


def _tail(path: Path, size: int = 2000) -> str:
    try:
        return path.read_text(errors="replace")[-size:].strip()
    except OSError:
        return ""


def write_bed(mask: np.ndarray, reference: Reference, path: Path) -> None:
    """Masked positions as BED intervals (``invalid_positions.bed`` in SNVPhyl)."""
    lines = []
    for name, start, length in zip(reference.names, reference.offsets, reference.lengths,
                                   strict=False):
        part = np.concatenate([[False], mask[start:start + length], [False]]).astype(np.int8)
        edges = np.flatnonzero(np.diff(part))
        for lo, hi in zip(edges[::2], edges[1::2], strict=True):
            lines.append(f"{name}\t{lo}\t{hi}\n")
    path.write_text("".join(lines))


# -- evidence ----------------------------------------------------------------------------------

@dataclass
class Thresholds:
    min_coverage: int = 15
    min_mean_mapping: int = 30
    snv_abundance_ratio: float = 0.75


@dataclass
class Evidence:
    """One isolate: depth, the base called at each position (coded), and where it carries a
    variant that passes the caller-side filters (coverage, abundance ratio, mapping
    quality) - SNVPhyl's filtered freebayes calls."""

    depth: np.ndarray
    base: np.ndarray
    variant: np.ndarray

    def save(self, path: Path) -> None:
        np.savez(path, depth=self.depth, base=self.base, variant=self.variant)

    @classmethod
    def load(cls, path: Path) -> Evidence:
        with np.load(path) as data:
            return cls(data["depth"], data["base"], data["variant"])


def evidence_from_counts(counts: np.ndarray, mean_mq: np.ndarray, ref_codes: np.ndarray,
                         t: Thresholds) -> Evidence:
    """Calls from base counts (4 x L) and the mean mapping quality of covering reads.

    A base is called where coverage reaches the minimum and one base makes at least the
    abundance ratio of the reads; a variant base also needs the minimum mean mapping
    quality. Anything else covered enough is ``N``: there SNVPhyl's two callers disagree.
    """
    depth = counts.sum(axis=0, dtype=np.int32)
    top = counts.argmax(axis=0).astype(np.uint8)
    top_count = counts.max(axis=0)
    covered = depth >= t.min_coverage
    abundant = (depth > 0) & (top_count >= t.snv_abundance_ratio * depth)
    mapped_well = mean_mq >= t.min_mean_mapping
    differs = (top != ref_codes) & (ref_codes < N_CODE)
    called = abundant & (~differs | mapped_well)
    base = np.where(covered, np.where(called, top, N_CODE), GAP_CODE).astype(np.uint8)
    variant = covered & abundant & mapped_well & differs
    return Evidence(depth, base, variant)


def pileup_counts(bam: Path, reference: Reference) -> tuple[np.ndarray, np.ndarray]:
    """Base counts (all base qualities, as SNVPhyl's mpileup ``-Q 0``) and the mean mapping
    quality of the primary alignments covering each position, straight from the BAM."""
    import pysam

    counts = np.zeros((4, reference.size), dtype=np.int32)
    mean_mq = np.zeros(reference.size, dtype=np.float32)
    with pysam.AlignmentFile(str(bam), "rb") as alignments:
        for name, offset, length in zip(reference.names, reference.offsets,
                                        reference.lengths, strict=False):
            starts: list[int] = []
            ends: list[int] = []
            quals: list[int] = []
            keep = _collector(starts, ends, quals)

            per_base = alignments.count_coverage(name, 0, length, quality_threshold=0,
                                                 read_callback=keep)
            for i in range(4):
                counts[i, offset:offset + length] = np.asarray(per_base[i])
            if starts:
                s = np.asarray(starts, dtype=np.int64)
                e = np.asarray(ends, dtype=np.int64)
                q = np.asarray(quals, dtype=np.float64)
                total = np.zeros(length + 1)
                number = np.zeros(length + 1)
                np.add.at(total, s, q)
                np.add.at(total, e, -q)
                np.add.at(number, s, 1)
                np.add.at(number, e, -1)
                total, number = np.cumsum(total)[:length], np.cumsum(number)[:length]
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean_mq[offset:offset + length] = np.where(number > 0, total / number, 0)
    return counts, mean_mq


def _collector(starts: list[int], ends: list[int], quals: list[int]) -> Any:
    """The read filter of ``count_coverage``, which also notes each kept read's span and
    mapping quality (one pass over the BAM gives both)."""

    def keep(read: Any) -> bool:
        # unmapped, secondary, QC-failed, duplicate and supplementary records
        if read.flag & 0xF04:
            return False
        starts.append(read.reference_start)
        ends.append(read.reference_end)
        quals.append(read.mapping_quality)
        return True

    return keep


def read_freebayes(query: str, reference: Reference, t: Thresholds) -> np.ndarray:
    """Filtered freebayes SNVs from ``bcftools query`` (CHROM POS REF ALT DP AO MQM):
    genome-wide positions and alternative bases (coded) as a (2, n) array. Complex and
    multi-base records are split into their single-base differences, as SNVPhyl does."""
    index = {name: i for i, name in enumerate(reference.names)}
    offsets = reference.offsets
    found: list[tuple[int, int]] = []
    for line in query.splitlines():
        chrom, pos, ref, alts, dp, ao, mqm = line.split("\t")
        alt, ao, mqm = alts.split(",")[0], ao.split(",")[0], mqm.split(",")[0]
        if len(ref) != len(alt) or dp in (".", "0") or ao == "." or mqm == ".":
            continue
        if int(dp) < t.min_coverage or int(ao) < t.snv_abundance_ratio * int(dp):
            continue
        if float(mqm) < t.min_mean_mapping:
            continue
        start = offsets[index[chrom]] + int(pos) - 1
        for k, (r, a) in enumerate(zip(ref, alt, strict=True)):
            if r != a:
                found.append((start + k, int(_ENCODE[ord(a)])))
    return np.array(found, dtype=np.int64).reshape(-1, 2).T


def read_mpileup(query: str, reference: Reference) -> tuple[np.ndarray, np.ndarray]:
    """Depth and consensus base at every position from ``bcftools call -c`` output queried
    as ``%CHROM\\t%POS\\t%REF\\t%ALT\\t%DP\\t[%GT]``."""
    index = {name: i for i, name in enumerate(reference.names)}
    offsets = reference.offsets
    depth = np.zeros(reference.size, dtype=np.int32)
    base = np.full(reference.size, N_CODE, dtype=np.uint8)
    for line in query.splitlines():
        chrom, pos, ref, alt, dp, gt = line.split("\t")
        if len(ref) != 1:
            continue
        at = offsets[index[chrom]] + int(pos) - 1
        depth[at] = int(dp) if dp != "." else 0
        allele = ref if gt in ("0", "0/0") else (alt.split(",")[0] if gt in ("1", "1/1")
                                                 else "N")
        base[at] = _ENCODE[ord(allele[0])] if len(allele) == 1 else N_CODE
    return depth, base


def evidence_from_callers(variants: np.ndarray, mp_depth: np.ndarray, mp_base: np.ndarray,
                          ref_codes: np.ndarray, t: Thresholds) -> Evidence:
    """SNVPhyl's way: freebayes' filtered SNVs confirmed by mpileup's consensus. Below the
    coverage a cell is ``-``; where the callers disagree it is ``N``."""
    fb_base = ref_codes.copy()
    variant = np.zeros(ref_codes.size, dtype=bool)
    if variants.size:
        fb_base[variants[0]] = variants[1].astype(np.uint8)
        variant[variants[0]] = True
    covered = mp_depth >= t.min_coverage
    agree = mp_base == fb_base
    base = np.where(covered, np.where(agree, fb_base, N_CODE), GAP_CODE).astype(np.uint8)
    return Evidence(mp_depth, base, variant)


# -- consolidation -----------------------------------------------------------------------------

def density_mask(variant_positions: Sequence[np.ndarray], reference: Reference, window: int,
                 threshold: int) -> np.ndarray:
    """SNVPhyl's density filter (``filter_snv_density``), per isolate: wherever at least
    ``threshold`` of its SNVs on one contig lie at most ``window`` bp apart (first to
    last), the positions from the first to the last of them are masked.

    SNVPhyl slides a queue over each isolate's SNVs, drops from its head while the span
    exceeds the window (``last - first > window``), and marks the queue's span dense when
    it holds ``>= threshold`` SNVs; the regions it writes are the union of those spans,
    which is what this computes for every SNV as the queue's tail."""
    mask = np.zeros(reference.size, dtype=bool)
    offsets = reference.offsets
    for positions in variant_positions:
        pos = np.sort(np.asarray(positions, dtype=np.int64))
        if pos.size < threshold or pos.size == 0:
            continue
        contig_start = np.searchsorted(pos, offsets[reference.contig_index(pos)], "left")
        first = np.maximum(np.searchsorted(pos, pos - window, "left"), contig_start)
        dense = np.arange(pos.size) - first + 1 >= threshold
        edges = np.zeros(reference.size + 1, dtype=np.int64)
        np.add.at(edges, pos[first[dense]], 1)
        np.add.at(edges, pos[dense] + 1, -1)
        mask |= np.cumsum(edges[:-1]) > 0
    return mask


@dataclass
class Consolidated:
    """Every candidate site: genome-wide position, status, and the cells (isolates x sites)."""

    positions: np.ndarray
    status: np.ndarray
    cells: np.ndarray
    invalid: np.ndarray
    core: np.ndarray

    @property
    def valid(self) -> np.ndarray:
        return self.status == VALID


def consolidate(reference: Reference, evidence: Sequence[Evidence], repeats: np.ndarray,
                density: tuple[int, int] | None,
                names: Sequence[str] | None = None) -> Consolidated:
    """SNVPhyl's consolidation (``vcf2snv_alignment.pl``): the sites where any isolate has
    a passing variant. ``filtered-invalid`` (repeats, dense regions) comes first; else a
    site where some isolate is ``-`` or ``N`` takes the status of the first such isolate
    in name order (Perl's ``cmp`` over ``names``; input order without them):
    ``filtered-coverage`` for ``-``, ``filtered-mpileup`` for ``N``; the rest are
    ``valid``."""
    invalid = repeats.copy()
    if density is not None:
        invalid |= density_mask([np.flatnonzero(e.variant) for e in evidence], reference,
                                *density)
    any_variant = np.zeros(reference.size, dtype=bool)
    for e in evidence:
        any_variant |= e.variant
    positions = np.flatnonzero(any_variant)
    cells = np.stack([e.base[positions] for e in evidence]) if evidence else np.zeros((0, 0))
    status = np.full(positions.size, VALID, dtype=object)
    order = (sorted(range(len(evidence)), key=lambda i: names[i].encode()) if names
             else list(range(len(evidence))))
    for isolate in reversed(order):  # the first in name order is written last
        status[cells[isolate] == N_CODE] = MPILEUP
        status[cells[isolate] == GAP_CODE] = COVERAGE
    status[invalid[positions]] = INVALID
    core = ~invalid
    for e in evidence:
        core &= e.base < N_CODE
    # SNVPhyl counts a listed site as core when every isolate is covered and none is
    # invalid: a site with some isolate N and none - is in the core, though an N
    # elsewhere (no isolate has a variant there) is not.
    listed = positions[~invalid[positions]]
    covered = ~(cells == GAP_CODE).any(axis=0)[~invalid[positions]]
    core[listed[covered]] = True
    return Consolidated(positions, status.astype(str), cells, invalid, core)


# -- outputs -----------------------------------------------------------------------------------

def write_table(result: Consolidated, reference: Reference, names: Sequence[str],
                path: Path) -> None:
    contig = reference.contig_index(result.positions)
    offsets = reference.offsets
    ref_letters = LETTERS[reference.codes[result.positions]]
    cell_letters = LETTERS[result.cells]
    with open(path, "w") as out:
        out.write("\t".join(["#Chromosome", "Position", "Status", "Reference", *names]) + "\n")
        for j, position in enumerate(result.positions):
            row = [reference.names[contig[j]], str(position - offsets[contig[j]] + 1),
                   result.status[j], chr(ref_letters[j]),
                   *(chr(c) for c in cell_letters[:, j])]
            out.write("\t".join(row) + "\n")


def alignment(result: Consolidated, reference: Reference) -> tuple[list[str], np.ndarray]:
    """Valid sites only: ``reference`` first, then each isolate (rows of letters)."""
    valid = result.positions[result.valid]
    rows = np.vstack([reference.codes[valid][None, :], result.cells[:, result.valid]])
    return ["reference"], LETTERS[rows]


def write_matrix(result: Consolidated, reference: Reference, names: Sequence[str],
                 path: Path) -> None:
    """``snvMatrix.tsv``: SNVPhyl's ``snv_matrix.pl`` on the alignment (``reference`` and
    the isolates), byte for byte; see :func:`snv_matrix`."""
    _, rows = alignment(result, reference)
    path.write_text(snv_matrix(["reference", *names], rows))


def snv_matrix(labels: Sequence[str], rows: np.ndarray) -> str:
    """SNVPhyl's ``snv_matrix.pl`` on an alignment (one row of letters per label).

    Distances count the columns where two rows differ, over the columns made only of
    A, C, G and T (either case; any other letter drops the column). Letters are compared
    as they are, as the script compares them: ``a`` and ``A`` differ. Rows and columns are
    in SNVPhyl's order, which its script derives from the values: the label pairs ``(a,
    b)`` with ``a`` not after ``b`` in name order (Perl's ``cmp``, so ``(a, a)`` too) are
    grouped by their distance; going from the largest distance down, each group's pairs
    in that order place their first and then their second label, unless already placed.
    The header is ``strain`` then the labels, and every line ends with a tab."""
    letters = np.asarray(rows, dtype=np.uint8).reshape(len(labels), -1)
    clean = np.isin(letters, np.frombuffer(b"ACGTacgt", dtype=np.uint8)).all(axis=0)
    kept = letters[:, clean]
    distances = np.array([(kept != row).sum(axis=1) for row in kept], dtype=np.int64)
    by_name = sorted(range(len(labels)), key=lambda i: labels[i].encode())
    groups: dict[int, list[tuple[int, int]]] = {}
    for place, first in enumerate(by_name):
        for second in by_name[place:]:
            groups.setdefault(int(distances[first, second]), []).append((first, second))
    order: list[int] = []
    placed: set[int] = set()
    for value in sorted(groups, reverse=True):
        for pair in groups[value]:
            for label in pair:
                if label not in placed:
                    order.append(label)
                    placed.add(label)
    lines = ["\t".join(["strain", *(labels[i] for i in order)])]
    lines += ["\t".join([labels[i], *(str(int(distances[i, j])) for j in order)])
              for i in order]
    return "".join(line + "\t\n" for line in lines)


def write_phylip(result: Consolidated, reference: Reference, names: Sequence[str],
                 path: Path) -> None:
    """Relaxed PHYLIP: ``N L`` then ``name sequence`` rows, ``reference`` included."""
    _, rows = alignment(result, reference)
    labels = ["reference", *names]
    lines = [f"{len(labels)} {rows.shape[1]}"]
    lines += [f"{label} {row.tobytes().decode()}" for label, row in zip(labels, rows,
                                                                          strict=True)]
    path.write_text("\n".join(lines) + "\n")


def write_core(result: Consolidated, reference: Reference, path: Path,
               invalid_positions: bool = True) -> None:
    """``vcf2core.tsv``, as SNVPhyl's ``vcf2snv_alignment`` writes its ``-stats.csv``: one
    row per contig in name order (Perl's ``cmp``), then ``all``. A contig without invalid
    positions reads ``N/A`` there (SNVPhyl counts only contigs its invalid-positions file
    names), and so does ``all`` when no such file was given (``invalid_positions=False``;
    the pipeline always has one, the repeats); percentages ``%.2f``, ``NaN`` when every
    position is invalid, computed as SNVPhyl's ``print_stats`` does: see :func:`_core_row`."""
    header = ["#Reference name", "Total length", "Total invalid and excluded positions",
              "Total valid and included positions",
              "Total valid and included positions in core genome",
              "Percentage of valid and included positions in core genome",
              "Percentage of all positions that are valid, included, and part of the core "
              "genome"]
    rows = [header]
    total_length = total_invalid = total_core = 0
    order = sorted(range(len(reference.names)), key=lambda i: reference.names[i].encode())
    for index in order:
        start, length = int(reference.offsets[index]), reference.lengths[index]
        invalid = int(result.invalid[start:start + length].sum())
        core = int(result.core[start:start + length].sum())
        total_length, total_invalid, total_core = (total_length + length,
                                                   total_invalid + invalid, total_core + core)
        rows.append([reference.names[index], *_core_row(length, invalid, core,
                                                         "N/A" if not invalid else None)])
    rows.append(["all", *_core_row(total_length, total_invalid, total_core,
                                   None if invalid_positions else "N/A")])
    path.write_text("".join("\t".join(r) + "\n" for r in rows))


def _core_row(length: int, invalid: int, core: int, no_invalid: str | None) -> list[str]:
    """Length, invalid (or ``no_invalid``), valid, core, core % of valid, core % of all.

    The percentages are SNVPhyl's ``core / total * 100`` in that order (divide, then
    multiply; two roundings of doubles, as Perl computes them), not ``100 * core /
    total``: the two differ in the last bit for some counts, and ``%.2f`` then rounds a
    half-way value differently (23 of 160 is ``14.37`` in SNVPhyl, ``14.38`` the other
    way)."""
    valid = length - invalid
    in_core = f"{core / valid * 100:.2f}" if valid else "NaN"
    of_all = f"{core / length * 100:.2f}" if length else "NaN"
    return [str(length), no_invalid or str(invalid), str(valid), str(core), in_core, of_all]


def write_filter_stats(table: Path, path: Path) -> None:
    """``filterStats.txt``: SNVPhyl's ``filter-stats.pl -a`` (as its workflow runs it) on
    ``snvTable.tsv``."""
    path.write_text(filter_stats(table.read_text()))


def filter_stats(table: str, all_invalid: bool = True) -> str:
    """SNVPhyl's ``filter-stats.pl`` on a positions table, byte for byte.

    Per contig that has sites (in Perl's ``cmp`` order): the sites with an N or - in any
    isolate, then each isolate's count of N and -, isolates in descending count then name
    (so the order may differ between contigs, as SNVPhyl's does), with percentages of the
    contig's sites; then the summary over all sites. ``all_invalid`` is its ``-a`` (the
    workflow's choice): without it ``filtered-invalid`` sites are left out of the counts,
    and the summary says so."""
    lines = table.splitlines()
    header = lines[0].split("\t") if lines else []
    totals: dict[str, int] = {}
    any_missing: dict[str, int] = {}
    counts: dict[str, dict[str, int]] = {}
    by_status = {VALID: 0, INVALID: 0, COVERAGE: 0, MPILEUP: 0}
    for line in lines[1:]:
        entries = line.split("\t")
        chrom, status = entries[0], entries[2]
        totals[chrom] = totals.get(chrom, 0) + 1
        by_status[status] = by_status.get(status, 0) + 1
        skip = status == INVALID and not all_invalid
        if skip and len(entries) > 4:
            totals[chrom] -= 1
        seen = False
        for name, cell in zip(header[4:], entries[4:], strict=False):
            here = counts.setdefault(chrom, {})
            here.setdefault(name, 0)
            if cell in ("N", "-") and not skip:
                here[name] += 1
                if not seen:
                    any_missing[chrom] = any_missing.get(chrom, 0) + 1
                    seen = True

    def pct(value: int, total: int) -> str:
        return f"{100 * value / total:.2f}" if total else "0.00"

    out: list[str] = []
    for chrom in sorted(counts, key=str.encode):
        here, total = counts[chrom], totals.get(chrom, 0)
        order = sorted(here, key=lambda n: (-here[n], n.encode()))
        missing = any_missing.get(chrom, 0)
        out += ["Chromosome\tGenomes",
                "\t".join([chrom, "ALL", *order]),
                "\t".join(["Total number of N's and -'s", str(missing),
                           *(str(here[n]) for n in order)]),
                "\t".join(["Total percent of N's and -'s", pct(missing, total),
                           *(pct(here[n], total) for n in order)]),
                f"Total number of unfiltered variants in chromosome: {total}", ""]
    total = len(lines) - 1
    filtered = total - by_status[VALID]
    invalid: int | str = by_status[INVALID]
    if not all_invalid:
        total, filtered = total - by_status[INVALID], filtered - by_status[INVALID]
        invalid = "Invalid positions not analyzed.  Please use -a flag to analyze.\n"
    out += ["================= Filter Summary Statistics =====================",
            f"Number of sites used to generate phylogeny: {total - filtered}",
            f"Total number of sites identified: {total}",
            f"Number of sites filtered: {filtered}",
            # SNVPhyl's script stops on a division by zero with no site; 0.00 here.
            f"Percentage of sites filtered: {pct(filtered, total)}",
            f"Coverage filtered: {by_status[COVERAGE]}",
            f"mpileup filtered: {by_status[MPILEUP]}",
            f"Invalid filtered: {invalid}"]
    return "\n".join(out) + "\n"


def mapped_percentages(evidence: Sequence[Evidence], min_coverage: int) -> list[float]:
    """Percentage of the reference each isolate covers at the minimum depth."""
    return [100.0 * float((e.depth >= min_coverage).mean()) for e in evidence]


def write_mapping_quality(reference: Reference, names: Sequence[str], percentages:
                          Sequence[float], min_coverage: int, min_percent: float,
                          path: Path) -> list[str]:
    """SNVPhyl's ``mappingQuality.txt``; returns the isolates below the minimum."""
    low = sorted((p, n) for n, p in zip(names, percentages, strict=True) if p < min_percent)
    lines = ["==========Reference Mapping Quality===========",
             f"NUMBER OF BP's IN REFERENCE GENOME: {reference.size}",
             f"MINIMUM DEPTH: {min_coverage}",
             f"MINIMUM MAPPING: {min_percent:g}"]
    lines += [f"{n} : {p:.2f}%" for p, n in low]
    path.write_text("\n".join(lines) + "\n")
    return [n for _, n in low]
