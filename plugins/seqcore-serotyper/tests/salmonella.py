"""A Salmonella-like genome built only from the data inside ``sistr_cmd`` (installed in SISTR's
own environment, :mod:`seqcore_serotyper.environment`).

SISTR types a genome from two sets of genes: the 330 cgMLST loci (allele sequences in
``cgmlst-full.fasta``, the reference genomes' allele numbers in ``cgmlst-profiles.hdf``) and
the antigen genes (``wzx``/``wzy`` for the serogroup, ``fliC`` for H1, ``fljB`` for H2). So a
genome made of one reference genome's 330 alleles and one allele of each antigen gene, placed
in random spacer DNA, is typed as that genome's serovar, with the antigens of the genes used.
Nothing is downloaded; the tests, and ``bench/serotyper.py``, use it with simulated reads.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from simulate import COMPLEMENT, random_genome

# A Typhimurium genome of SISTR's reference set with an allele at every one of the 330 loci.
REFERENCE_GENOME = "2014-LET-0134"
TYPHIMURIUM = {"serovar": "Typhimurium", "serogroup": "B", "h1": "i", "h2": "1,2",
               "o_antigen": "1,4,[5],12"}


def sistr_data() -> Path:
    """The data directory of sistr_cmd in SISTR's own environment (conftest creates it)."""
    from seqcore_serotyper.environment import sistr_root

    root = sistr_root()
    assert root is not None, "SISTR's environment is missing: seqcore tools install"
    return root / "data"


def read_fasta(path: Path, wanted: set[str] | None = None) -> dict[str, str]:
    """Header (without ``>``) → sequence; only the ``wanted`` headers when given."""
    found: dict[str, str] = {}
    header: str | None = None
    chunks: list[str] = []
    with path.open() as handle:
        for line in handle:
            if line.startswith(">"):
                if header is not None and (wanted is None or header in wanted):
                    found[header] = "".join(chunks)
                header, chunks = line[1:].strip(), []
            else:
                chunks.append(line.strip().upper())
    if header is not None and (wanted is None or header in wanted):
        found[header] = "".join(chunks)
    return found


@dataclass
class SalmonellaLike:
    sequence: str
    alleles: dict[str, int]                      # cgMLST marker → allele number used
    antigens: dict[str, str]                     # gene → the FASTA header of the allele used
    expected: dict[str, str] = field(default_factory=dict)  # serovar, serogroup, h1, h2...

    def __len__(self) -> int:
        return len(self.sequence)


def first_with(path: Path, suffix: str, contains: str = "") -> tuple[str, str]:
    """The first antigen allele whose header ends with ``|<suffix>`` (the antigen SISTR
    reads from the header) and contains ``contains``."""
    for header, seq in read_fasta(path).items():
        if header.rsplit("|", 1)[-1] == suffix and contains in header:
            return header, seq
    raise LookupError(f"no allele ending |{suffix} in {path.name}")


# Typhimurium's antigen genes: gene, the antigen its allele codes, a text its header holds.
TYPHIMURIUM_ANTIGENS = (("wzx", "B", "|1,4,[5],12|"), ("wzy", "B", ""), ("fliC", "i", ""),
                        ("fljB", "1,2", ""))
# A monophasic Typhimurium of SISTR's reference set (I 1,4,[5],12:i:-, an allele at every
# one of the 330 loci): no fljB, so no second phase H antigen.
MONOPHASIC_GENOME = "SRR2156567"
MONOPHASIC_ANTIGENS = TYPHIMURIUM_ANTIGENS[:3]
MONOPHASIC = {"serovar": "I 1,4,[5],12:i:-", "serogroup": "B", "h1": "i", "h2": "-",
              "o_antigen": "1,4,[5],12"}


def salmonella_like(length: int = 400_000, seed: int = 21,
                    families: tuple[tuple[int, int], ...] = ((1500, 3),),
                    genome: str = REFERENCE_GENOME,
                    antigen_genes: tuple[tuple[str, str, str], ...] = TYPHIMURIUM_ANTIGENS,
                    expected: dict[str, str] | None = None) -> SalmonellaLike:
    """``length`` bp (at least the genes' own ~300 kb): the cgMLST alleles of one of
    SISTR's reference genomes and an antigen set (Typhimurium's B / i / 1,2 by default),
    each gene in a random orientation, between stretches of a random genome (with its
    repeat families)."""
    import pandas as pd

    data = sistr_data()
    profiles = pd.read_hdf(data / "cgmlst" / "cgmlst-profiles.hdf", key="cgmlst")
    profile = profiles.loc[genome].dropna().astype("int64")
    alleles = {marker: int(allele) for marker, allele in profile.items()}
    wanted = {f"{marker}|{allele}" for marker, allele in alleles.items()}
    sequences = read_fasta(data / "cgmlst" / "cgmlst-full.fasta", wanted)
    missing = wanted - set(sequences)
    if missing:
        raise LookupError(f"{len(missing)} alleles of {genome} are not in the DB")
    genes = [sequences[key] for key in sorted(wanted)]
    antigens = {}
    for gene, suffix, contains in antigen_genes:
        header, seq = first_with(data / "antigens" / f"{gene}.fasta", suffix, contains)
        antigens[gene] = header
        genes.append(seq)
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(genes))
    gene_bases = sum(len(g) for g in genes)
    spacer_total = max(length - gene_bases, 200 * (len(genes) + 1))
    backbone = random_genome(spacer_total, seed=seed, families=families).sequence
    cuts = np.sort(rng.choice(np.arange(1, spacer_total), size=len(genes), replace=False))
    pieces = [backbone[:cuts[0]]]
    for index, gene_index in enumerate(order):
        gene = genes[gene_index]
        if rng.random() < 0.5:
            gene = COMPLEMENT[np.frombuffer(gene.encode(), dtype=np.uint8)[::-1]].tobytes(
            ).decode()
        pieces.append(gene)
        end = cuts[index + 1] if index + 1 < len(cuts) else spacer_total
        pieces.append(backbone[cuts[index]:end])
    return SalmonellaLike("".join(pieces), alleles, antigens,
                          {**(expected or TYPHIMURIUM), "genome": genome})


def expected_serovars(serogroup: str, h1: str, h2: str) -> set[str]:
    """Serovars of SISTR's antigen table (WHO 2007) with these antigens."""
    with (sistr_data() / "Salmonella-serotype_serogroup_antigen_table-WHO_2007.csv").open(
            ) as handle:
        return {row["Serovar"] for row in csv.DictReader(handle)
                if (row["Serogroup"], row["H1"], row["H2"]) == (serogroup, h1, h2)}


def write_fasta(path: Path, name: str, sequence: str, width: int = 80) -> Path:
    with path.open("w") as out:
        out.write(f">{name}\n")
        for start in range(0, len(sequence), width):
            out.write(sequence[start:start + width] + "\n")
    return path
