"""Generated phylogenomics data with a known answer: a random reference with repeat families,
isolates derived from it along a known tree with known SNVs (some inside repeats, one isolate
missing a region), and paired reads simulated from each with numpy. No downloads."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)
COMPLEMENT = np.array([3, 2, 1, 0], dtype=np.uint8)


@dataclass
class Truth:
    reference: np.ndarray                      # codes 0-3
    names: list[str]
    newick: str
    snvs: dict[int, tuple[int, frozenset[str]]] = field(default_factory=dict)  # 0-based
    repeats: list[tuple[int, int]] = field(default_factory=list)
    deletion: tuple[str, int, int] | None = None
    genomes: dict[str, np.ndarray] = field(default_factory=dict)

    def in_repeat(self, pos: int) -> bool:
        return any(lo <= pos < hi for lo, hi in self.repeats)

    def in_deletion(self, pos: int) -> bool:
        return self.deletion is not None and self.deletion[1] <= pos < self.deletion[2]

    def expected_valid(self) -> dict[int, dict[str, str]]:
        """1-based position -> base of every isolate, for SNVs outside repeats and the
        deleted region."""
        out = {}
        for pos, (alt, carriers) in self.snvs.items():
            if self.in_repeat(pos) or self.in_deletion(pos):
                continue
            ref = "ACGT"[self.reference[pos]]
            out[pos + 1] = {n: ("ACGT"[alt] if n in carriers else ref) for n in self.names}
        return out

    def expected_matrix(self) -> dict[tuple[str, str], int]:
        valid = self.expected_valid()
        labels = ["reference", *self.names]
        out = {}
        for a in labels:
            for b in labels:
                out[a, b] = sum(1 for pos, cells in valid.items()
                                if _base(self, a, pos, cells) != _base(self, b, pos, cells))
        return out


def _base(truth: Truth, name: str, pos: int, cells: dict[str, str]) -> str:
    return "ACGT"[truth.reference[pos - 1]] if name == "reference" else cells[name]


# A rooted tree as clades with how many SNVs arise on the branch above each.
TREE_5 = ("((iso1,iso2),(iso3,(iso4,iso5)))",
          [({"iso1"}, 6), ({"iso2"}, 5), ({"iso3"}, 7), ({"iso4"}, 5), ({"iso5"}, 6),
           ({"iso1", "iso2"}, 5), ({"iso3", "iso4", "iso5"}, 4), ({"iso4", "iso5"}, 5)])

TREE_8 = ("(((iso1,iso2),(iso3,iso4)),((iso5,iso6),(iso7,iso8)))",
          [({f"iso{i}"}, 12) for i in range(1, 9)] +
          [({"iso1", "iso2"}, 10), ({"iso3", "iso4"}, 10), ({"iso5", "iso6"}, 10),
           ({"iso7", "iso8"}, 10), ({"iso1", "iso2", "iso3", "iso4"}, 10),
           ({"iso5", "iso6", "iso7", "iso8"}, 10)])


def make_truth(length: int = 150_000, seed: int = 7, tree: tuple = TREE_5,
               families: tuple[tuple[int, int], ...] = ((1500, 3), (900, 2)),
               divergence: float = 0.03, snvs_in_repeats: int = 4,
               deletion: int | None = 2500, spacing: int = 700, scale: int = 1) -> Truth:
    """The reference and every isolate's genome. ``scale`` multiplies the SNVs per branch
    (larger genomes)."""
    rng = np.random.default_rng(seed)
    newick, branches = tree
    names = sorted(set().union(*(clade for clade, _ in branches)),
                   key=lambda n: int(n[3:]))
    ref = rng.integers(0, 4, length, dtype=np.uint8)
    # Repeat families: copies at least 2 kb apart, each 3 % diverged from the family unit.
    taken = np.zeros(length, dtype=bool)
    taken[:2000] = taken[-2000:] = True
    repeats: list[tuple[int, int]] = []
    for unit_length, copies in families:
        unit = rng.integers(0, 4, unit_length, dtype=np.uint8)
        for _ in range(copies):
            start = _free_spot(rng, taken, unit_length, margin=2000)
            copy = unit.copy()
            flip = rng.random(unit_length) < divergence
            copy[flip] = (copy[flip] + rng.integers(1, 4, int(flip.sum()))) % 4
            ref[start:start + unit_length] = copy
            taken[start - 2000:start + unit_length + 2000] = True
            repeats.append((start, start + unit_length))
    truth = Truth(ref, names, newick, repeats=repeats)
    avoid = taken.copy()  # SNVs outside repeats stay clear of them and of the ends
    deleted_in = None
    if deletion:
        deleted_in = names[-1]
        start = _free_spot(rng, avoid, deletion, margin=1000)
        truth.deletion = (deleted_in, start, start + deletion)
        avoid[start - 400:start + deletion + 400] = True
    snv_taken = np.zeros(length, dtype=bool)

    def place(pos: int, carriers: set[str]) -> None:
        alt = (int(ref[pos]) + int(rng.integers(1, 4))) % 4
        truth.snvs[pos] = (alt, frozenset(carriers))
        snv_taken[max(0, pos - spacing):pos + spacing] = True

    for clade, count in branches:
        for _ in range(count * scale):
            place(_free_spot(rng, avoid | snv_taken, 1, margin=0), clade)
    if truth.deletion:  # other lineages' SNVs inside the deleted region: '-' for its isolate
        _, lo, hi = truth.deletion
        others = [c for c, _ in branches if deleted_in not in c]
        for k, clade in enumerate(others[:2]):
            place(lo + (k + 1) * (hi - lo) // 3, clade)
    for k in range(snvs_in_repeats):
        lo, hi = repeats[k % len(repeats)]
        pos = lo + 200 + (k * 211) % max(1, hi - lo - 400)
        clade = branches[k % len(branches)][0]
        place(pos, clade)
    for name in names:
        genome = ref.copy()
        for pos, (alt, carriers) in truth.snvs.items():
            if name in carriers:
                genome[pos] = alt
        if truth.deletion and truth.deletion[0] == name:
            genome = np.concatenate([genome[:truth.deletion[1]], genome[truth.deletion[2]:]])
        truth.genomes[name] = genome
    return truth


def _free_spot(rng: np.random.Generator, taken: np.ndarray, size: int, margin: int) -> int:
    for _ in range(10_000):
        start = int(rng.integers(margin, taken.size - size - margin))
        if not taken[start:start + size].any():
            return start
    raise RuntimeError("no room left in the genome")


def write_fasta(codes: np.ndarray, path: Path, name: str = "chromosome") -> None:
    seq = LETTERS[codes].tobytes()
    path.write_bytes(b">" + name.encode() + b"\n" + b"\n".join(
        seq[i:i + 80] for i in range(0, len(seq), 80)) + b"\n")


def simulate_reads(genome: np.ndarray, coverage: float, out1: Path, out2: Path,
                   seed: int, read_length: int = 150, insert: int = 400,
                   error_rate: float = 0.001) -> None:
    """Illumina-like pairs: uniform fragments (insert ~ N(400, 40)), either strand, rare
    substitution errors, quality 40."""
    rng = np.random.default_rng(seed)
    pairs = int(coverage * genome.size / (2 * read_length))
    sizes = np.clip(rng.normal(insert, 40, pairs).astype(np.int64), read_length + 50,
                    3 * insert)
    starts = (rng.random(pairs) * (genome.size - sizes)).astype(np.int64)
    offsets = np.arange(read_length)
    forward = genome[starts[:, None] + offsets]
    reverse = COMPLEMENT[genome[(starts + sizes - 1)[:, None] - offsets]]
    for reads in (forward, reverse):
        errors = rng.random(reads.shape) < error_rate
        reads[errors] = (reads[errors] + rng.integers(1, 4, int(errors.sum()))) % 4
    swap = rng.random(pairs) < 0.5
    first = np.where(swap[:, None], reverse, forward)
    second = np.where(swap[:, None], forward, reverse)
    quality = b"I" * read_length
    for reads, path, mate in ((first, out1, 1), (second, out2, 2)):
        letters = LETTERS[reads]
        with open(path, "wb") as handle:
            handle.write(b"".join(
                b"@r%d/%d\n%s\n+\n%s\n" % (i, mate, letters[i].tobytes(), quality)
                for i in range(pairs)))


def balanced_tree(isolates: int, per_branch: int) -> tuple[str, list[tuple[set[str], int]]]:
    """A balanced tree of ``isoN`` leaves with ``per_branch`` SNVs on every branch below the
    root (benchmarks: any number of isolates)."""
    names = [f"iso{i}" for i in range(1, isolates + 1)]
    branches: list[tuple[set[str], int]] = []

    def build(group: list[str]) -> str:
        branches.append((set(group), per_branch))
        if len(group) == 1:
            return group[0]
        half = len(group) // 2
        return f"({build(group[:half])},{build(group[half:])})"

    half = len(names) // 2
    newick = f"({build(names[:half])},{build(names[half:])})"
    return newick, branches
