"""FastQC's non-counting rules: encoding ladder, position groups, contaminant search."""

from __future__ import annotations

import random

import pytest

from seqcore.qc import QCError
from seqcore.qc.fastqc_rules import (
    ContaminantHit,
    _best_stretch,
    default_contaminants,
    encoding_for,
    find_contaminant_hit,
    possible_source,
)
from seqcore.qc.report import fastqc_base_groups

pytestmark = pytest.mark.database_independent


@pytest.mark.parametrize(
    ("lowest", "expected"),
    [
        ("!", ("Sanger / Illumina 1.9", 33)),
        ("?", ("Sanger / Illumina 1.9", 33)),
        ("@", ("Illumina 1.5", 64)),
        ("A", ("Illumina 1.3", 64)),
        ("B", ("Illumina 1.5", 64)),
        ("h", ("Illumina 1.5", 64)),
        ("~", ("Illumina 1.5", 64)),
    ],
)
def test_encoding_ladder(lowest: str, expected: tuple[str, int]) -> None:
    assert encoding_for(ord(lowest)) == expected


@pytest.mark.parametrize("value", [32, 10, 127, 200])
def test_encoding_outside_printable_range_is_a_qc_error(value: int) -> None:
    with pytest.raises(QCError):
        encoding_for(value)


def test_base_groups() -> None:
    assert fastqc_base_groups(75) == [(p, p) for p in range(1, 76)]
    # 150 bp: interval 5 gives 9 + 29 groups, below FastQC's limit of 75.
    groups = fastqc_base_groups(150)
    assert groups[:11] == [(p, p) for p in range(1, 10)] + [(10, 14), (15, 19)]
    assert groups[-1] == (150, 150)
    assert fastqc_base_groups(150, nogroup=True) == [(p, p) for p in range(1, 151)]
    # 1000 bp: interval 20, and the group after position 9 runs from 10 to 19.
    long_groups = fastqc_base_groups(1000)
    assert long_groups[9:11] == [(10, 19), (20, 39)]
    assert long_groups[-1] == (1000, 1000)


def _brute_force(query: str) -> ContaminantHit | None:
    """FastQC's search without the 10-mer shortcut: every offset of every strand."""
    best = None
    for contaminant in default_contaminants():
        if 8 <= len(query) < 20 and (query in contaminant.forward or query in contaminant.reverse):
            hit = ContaminantHit(contaminant.name, len(query), 100)
        else:
            found = None
            for strand in (contaminant.forward, contaminant.reverse):
                for offset in range(20 - len(strand), len(query) - 20):
                    stretch = _best_stretch(strand, query, offset)
                    if stretch is not None and (found is None or stretch[0] > found[0]):
                        found = stretch
            hit = None if found is None else ContaminantHit(contaminant.name, *found)
        if hit is not None and (best is None or hit.length > best.length):
            best = hit
    return best


def test_seeded_contaminant_search_equals_exhaustive_search() -> None:
    rng = random.Random(3)
    contaminants = default_contaminants()
    for _ in range(60):
        source = rng.choice(contaminants)
        strand = rng.choice([source.forward, source.reverse])
        piece = strand[rng.randrange(0, max(1, len(strand) - 25)) :][: rng.randint(15, 45)]
        bases = list(piece)
        for _ in range(rng.randint(0, 3)):
            if bases:
                bases[rng.randrange(len(bases))] = rng.choice("ACGTN")
        flank = "".join(rng.choices("ACGT", k=rng.randint(0, 20)))
        query = (flank + "".join(bases) + "".join(rng.choices("ACGT", k=10)))[:50]
        assert find_contaminant_hit(query) == _brute_force(query), query


def test_possible_source_format() -> None:
    read = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCACAAAAAAAAAAAAAAAA"
    # FastQC 0.11.9 prints exactly this for the read above.
    assert possible_source(read) == "TruSeq Adapter, Index 5 (97% over 36bp)"
    assert possible_source("") == "No Hit"
    assert possible_source("ACGT" * 12) == "No Hit"
