"""Contig coverage from the reads mapped back to the contigs (``contig_coverage=reads``).

The assemblers' own figures do not mean the same thing: SPAdes' ``_cov_`` is the k-mer
coverage of the contig in its graph, MEGAHIT's ``multi=`` the mean multiplicity of its
k-mers at the last k (141 for 150 bp reads, so a few k-mers per read, rounded and noisy),
and the two assemblers put a repeat into contigs differently. The read depth of a contig,
from the input pairs mapped back with minimap2, means the same for both: how many reads
cover a base of it, so a k-copy repeat collapsed into one contig carries k times the depth
of a single-copy contig.

Each contig's depth is the **median** over its bases of the depth of primary alignments
(minimap2's ``sr`` preset, PAF; a read from a collapsed repeat lands on the one contig that
holds it). The median, not the mean: the bases near a contig's ends are covered by fewer
reads, and a repeat folded into the end of a long unique contig (MEGAHIT does this) would
raise the mean of a contig that is single copy for most of its length.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import numpy as np

from seqcore_assembly.contigs import Contig
from seqcore_assembly.tools import ToolRunner

PRIMARY = "tp:A:P"


def contig_name(header: str) -> str:
    """The id minimap2 reports a contig by: the header up to the first whitespace."""
    return header.split(maxsplit=1)[0] if header.strip() else ""


def median_depths(paf_lines: Iterable[str], lengths: dict[str, int]) -> dict[str, float]:
    """The median per-base depth of each contig from minimap2's PAF (primary hits only)."""
    changes = {name: np.zeros(length + 1, dtype=np.int64) for name, length in lengths.items()}
    for line in paf_lines:
        fields = line.rstrip("\n").split("\t")
        if len(fields) < 12 or PRIMARY not in fields[12:]:
            continue
        change = changes.get(fields[5])
        if change is None:
            continue
        change[int(fields[7])] += 1
        change[int(fields[8])] -= 1
    return {name: float(np.median(np.cumsum(change[:-1]))) if change.size > 1 else 0.0
            for name, change in changes.items()}


def map_back(contigs_fasta: Path, reads: tuple[Path, Path], work: Path, threads: int,
             runner: ToolRunner) -> Path:
    """minimap2 with the pairs against the contigs; returns the PAF file."""
    paf = work / "reads-on-contigs.paf"
    runner.run("minimap2", ["minimap2", "-x", "sr", "--secondary=no", "-t", threads,
                            "-o", paf, contigs_fasta, *reads],
               cwd=work, stdout=work / "minimap2.log")
    return paf


def with_read_depth(contigs: list[Contig], contigs_fasta: Path, reads: tuple[Path, Path],
                    work: Path, threads: int, runner: ToolRunner) -> list[Contig]:
    """The contigs, each carrying its median read depth as its coverage."""
    lengths = {contig_name(c.header): len(c) for c in contigs}
    paf = map_back(contigs_fasta, reads, work, threads, runner)
    with paf.open() as handle:
        depths = median_depths(handle, lengths)
    return [Contig(c.header, c.sequence, depth=depths.get(contig_name(c.header), 0.0))
            for c in contigs]
