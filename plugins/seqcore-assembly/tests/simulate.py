"""Generated test data: a random genome with inserted repeat families, paired reads simulated
from it with numpy, and genome fraction measured by aligning contigs back (mappy).

Used by the tests and by bench/assembly.py; nothing is downloaded.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

BASES = np.frombuffer(b"ACGT", dtype=np.uint8)
COMPLEMENT = np.zeros(256, dtype=np.uint8)
for _a, _b in zip(b"ACGTN", b"TGCAN", strict=True):
    COMPLEMENT[_a] = _b


@dataclass
class Genome:
    sequence: str
    # Repeat families: (length, [start of each copy]).
    repeats: list[tuple[int, list[int]]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.sequence)


def random_genome(length: int, seed: int = 1, gc: float = 0.5,
                  families: tuple[tuple[int, int], ...] = ((1500, 5), (5000, 3))) -> Genome:
    """Random DNA of ``length`` bp with each repeat family (length, copies) inserted at
    random, non-overlapping places (identical copies, some reverse-complemented)."""
    rng = np.random.default_rng(seed)
    probs = [(1 - gc) / 2, gc / 2, gc / 2, (1 - gc) / 2]
    seq = BASES[rng.choice(4, size=length, p=probs)].copy()
    copies = sum(n for _, n in families)
    slots = length // (copies + 1)
    order = rng.permutation(copies)
    placed: list[tuple[int, list[int]]] = []
    slot = 0
    for family_length, n in families:
        unit = BASES[rng.choice(4, size=family_length, p=probs)]
        starts = []
        for _ in range(n):
            base = int(order[slot]) * slots + slots // 4
            slot += 1
            copy = unit if rng.random() < 0.5 else COMPLEMENT[unit[::-1]]
            seq[base:base + family_length] = copy
            starts.append(base)
        placed.append((family_length, sorted(starts)))
    return Genome(seq.tobytes().decode(), placed)


def simulate_reads(genome: str, coverage: float, out1: Path, out2: Path, *,
                   read_length: int = 150, insert_mean: int = 400, insert_sd: int = 40,
                   error_rate: float = 0.002, seed: int = 2) -> int:
    """Paired-end reads (forward/reverse-complement, FR) with substitution errors, written
    as FASTQ; returns the number of pairs."""
    rng = np.random.default_rng(seed)
    ref = np.frombuffer(genome.encode(), dtype=np.uint8)
    pairs = int(coverage * len(ref) / (2 * read_length))
    inserts = np.clip(rng.normal(insert_mean, insert_sd, pairs).astype(np.int64),
                      read_length, None)
    starts = (rng.random(pairs) * (len(ref) - inserts)).astype(np.int64)
    flip = rng.random(pairs) < 0.5  # which strand the fragment comes from
    offsets = np.arange(read_length)
    left = ref[starts[:, None] + offsets]
    right = ref[(starts + inserts - read_length)[:, None] + offsets]
    right = COMPLEMENT[right[:, ::-1]]
    r1 = np.where(flip[:, None], right, left)
    r2 = np.where(flip[:, None], left, right)
    for reads, path, name_seed in ((r1, out1, 1), (r2, out2, 2)):
        # Phred+33 qualities from '+' (10) to 'I' (40): a realistic spread, which SPAdes
        # needs to tell the encoding.
        qualities = rng.integers(43, 74, size=reads.shape, dtype=np.uint8)
        qualities[:, :100] = np.maximum(qualities[:, :100], 63)
        errors = rng.random(reads.shape) < error_rate
        shift = rng.integers(1, 4, size=reads.shape)
        codes = np.searchsorted(BASES, reads)  # A C G T → 0..3
        reads = np.where(errors, BASES[(codes + shift) % 4], reads)
        with path.open("wb") as out:
            for i, read in enumerate(reads):
                out.write(b"@r%d/%d\n%s\n+\n%s\n" % (i, name_seed, read.tobytes(),
                                                       qualities[i].tobytes()))
    return pairs


def write_fastq_pair(genome: Genome, coverage: float, directory: Path, name: str,
                     seed: int = 2) -> tuple[Path, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    r1, r2 = directory / f"{name}_R1.fastq", directory / f"{name}_R2.fastq"
    simulate_reads(genome.sequence, coverage, r1, r2, seed=seed)
    return r1, r2


def genome_fraction(genome: str, contigs: list[str], min_identity: float = 0.95) -> float:
    """Fraction of the genome covered by contig alignments (primary and secondary hits,
    so every copy of a collapsed repeat counts), by mappy (minimap2's asm5 preset)."""
    import mappy

    aligner = mappy.Aligner(seq=genome, preset="asm5", best_n=20)
    covered = np.zeros(len(genome), dtype=bool)
    for contig in contigs:
        for hit in aligner.map(contig):
            if hit.blen and hit.mlen / hit.blen >= min_identity:
                covered[hit.r_st:hit.r_en] = True
    return float(covered.mean())


def repeat_positions(genome: Genome) -> np.ndarray:
    mask = np.zeros(len(genome), dtype=bool)
    for length, starts in genome.repeats:
        for start in starts:
            mask[start:start + length] = True
    return mask


def aligned_blocks(genome: str, contigs: list[str], min_identity: float = 0.95,
                   aligner=None) -> list[int]:
    """Lengths of the contigs' primary alignment blocks to the genome (a misassembled
    contig is broken where its alignment breaks), as NGA50 counts them."""
    import mappy

    aligner = aligner or mappy.Aligner(seq=genome, preset="asm5")
    blocks = []
    for contig in contigs:
        for hit in aligner.map(contig):
            if hit.is_primary and hit.blen and hit.mlen / hit.blen >= min_identity:
                blocks.append(hit.r_en - hit.r_st)
    return blocks


def nga50(genome: str, contigs: list[str], aligner=None) -> int:
    """NGA50: the aligned block length at which the longest blocks reach half the genome
    (0 when they never do)."""
    running = 0
    for length in sorted(aligned_blocks(genome, contigs, aligner=aligner), reverse=True):
        running += length
        if running * 2 >= len(genome):
            return length
    return 0


def repeat_family_of(genome: Genome, contig: str, aligner=None) -> int | None:
    """The number of copies of the repeat family a contig aligns to (most of it inside
    the copies), or ``None`` for a contig of unique sequence."""
    import mappy

    aligner = aligner or mappy.Aligner(seq=genome.sequence, preset="asm5")
    hit = next(iter(aligner.map(contig)), None)
    if hit is None:
        return None
    for length, starts in genome.repeats:
        inside = sum(max(0, min(hit.r_en, s + length) - max(hit.r_st, s)) for s in starts)
        if inside >= 0.5 * (hit.r_en - hit.r_st):
            return len(starts)
    return None
