"""Annotation of the filtered contigs: the four annotation outputs.

Two ways, the same four files (``genome.gbk``, ``prokka_stats.txt``, ``prokka.log``,
``prokka.err``):

* pyrodigal (always available, a wheel): Prodigal's gene model trained on the assembly
  (metagenomic mode below 20 kb, too little to train on), written as GenBank with
  Biopython: one LOCUS per contig, ``source``, ``gene`` and ``CDS`` (locus_tag, inference,
  product, translation). Gene calls only: no gene names, no RNA genes.
* Prokka, when it is installed and the administrator names its database directory
  (``seqcore.assembly.prokka_dbdir``; Debian's package ships no kingdom database, see
  docs/analyses/assembly.md): product names from that database, tRNA/rRNA calls.

Contigs are renamed ``contig00001``... first: GenBank's LOCUS name holds 20 characters and
Prokka refuses longer ids; the assembler's header stays as the record's description.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from seqcore.plugin import PipelineError
from seqcore_assembly.contigs import Contig, write_fasta
from seqcore_assembly.tools import ToolRunner, tool_version

META_BELOW = 20_000  # Prodigal needs this much sequence to train on


@dataclass(frozen=True)
class AnnotationFiles:
    genbank: Path
    stats: Path
    log: Path
    err: Path


@dataclass(frozen=True)
class AnnotationOptions:
    genus: str = "Genus"
    species: str = "species"
    strain: str = "strain"
    locustag: str = "PROKKA"
    gcode: int = 11
    evalue: float = 1e-6
    threads: int = 1
    prokka_dbdir: str = ""

    @property
    def organism(self) -> str:
        return " ".join(p for p in (self.genus, self.species, self.strain) if p)


def renamed(contigs: list[Contig]) -> list[tuple[str, Contig]]:
    return [(f"contig{n:05d}", c) for n, c in enumerate(contigs, start=1)]


def stats_text(options: AnnotationOptions, contigs: list[Contig], features: dict[str, int]
               ) -> str:
    """``prokka_stats.txt``: Prokka's ``.txt`` layout."""
    lines = [f"organism: {options.organism}", f"contigs: {len(contigs)}",
             f"bases: {sum(len(c) for c in contigs)}"]
    lines += [f"{kind}: {count}" for kind, count in sorted(features.items())]
    return "\n".join(lines) + "\n"


def annotate(contigs: list[Contig], out_dir: Path, options: AnnotationOptions,
             runner: ToolRunner) -> AnnotationFiles:
    out_dir.mkdir(parents=True, exist_ok=True)
    if options.prokka_dbdir:
        return annotate_with_prokka(contigs, out_dir, options, runner)
    return annotate_with_pyrodigal(contigs, out_dir, options, runner)


def annotate_with_pyrodigal(contigs: list[Contig], out_dir: Path,
                            options: AnnotationOptions, runner: ToolRunner) -> AnnotationFiles:
    import Bio
    import pyrodigal
    from Bio.Seq import Seq
    from Bio.SeqFeature import AfterPosition, BeforePosition, FeatureLocation, SeqFeature
    from Bio.SeqIO import write as write_records
    from Bio.SeqRecord import SeqRecord

    files = AnnotationFiles(out_dir / "genome.gbk", out_dir / "prokka_stats.txt",
                            out_dir / "prokka.log", out_dir / "prokka.err")
    progress: list[str] = []

    def say(message: str) -> None:
        progress.append(f"[{time.strftime('%H:%M:%S')}] {message}")

    started = time.monotonic()
    total = sum(len(c) for c in contigs)
    meta = total < META_BELOW
    say(f"This is pyrodigal {pyrodigal.__version__} (Prodigal's gene model) with "
        f"Biopython {Bio.__version__}, run by seqcore")
    say(f"Annotating {len(contigs)} contigs, {total} bp, as {options.organism}")
    finder = pyrodigal.GeneFinder(meta=meta)
    if meta:
        say(f"Less than {META_BELOW} bp: metagenomic mode (pre-trained models)")
    else:
        # pyrodigal's stub lists the valid tables as a Literal; the parameter is a checked
        # int, and pyrodigal refuses (ValueError) a table it does not know.
        finder.train(*(c.sequence for c in contigs),
                     translation_table=options.gcode)  # type: ignore[call-overload]
        say(f"Trained on the assembly, translation table {options.gcode}")
    inference = f"ab initio prediction:pyrodigal:{pyrodigal.__version__}"
    today = date.today().strftime("%d-%b-%Y").upper()
    records = []
    cds = 0
    for name, contig in renamed(contigs):
        record = SeqRecord(Seq(contig.sequence), id=name, name=name,
                           description=contig.header)
        record.annotations.update({
            "molecule_type": "DNA", "topology": "linear", "data_file_division": "BCT",
            "date": today, "organism": options.organism, "source": options.organism,
            # Biopython annotates the values as str | int; GenBank's taxonomy is a list.
            "taxonomy": ["Bacteria"]})  # type: ignore[dict-item]
        record.features.append(SeqFeature(
            FeatureLocation(0, len(contig)), type="source",
            qualifiers={"organism": [options.organism], "mol_type": ["genomic DNA"],
                        "strain": [options.strain]}))
        for gene in finder.find_genes(contig.sequence):
            cds += 1
            tag = f"{options.locustag}_{cds:05d}"
            start: Any = (BeforePosition(gene.begin - 1) if gene.partial_begin
                          else gene.begin - 1)
            end: Any = AfterPosition(gene.end) if gene.partial_end else gene.end
            location = FeatureLocation(start, end, strand=gene.strand)
            record.features.append(SeqFeature(location, type="gene",
                                              qualifiers={"locus_tag": [tag]}))
            record.features.append(SeqFeature(location, type="CDS", qualifiers={
                "locus_tag": [tag], "inference": [inference], "codon_start": ["1"],
                "transl_table": [str(gene.translation_table)],
                "product": ["hypothetical protein"],
                "translation": [gene.translate(include_stop=False)]}))
        records.append(record)
    with files.genbank.open("w") as out:
        write_records(records, out, "genbank")
    say(f"Found {cds} CDS in {time.monotonic() - started:.1f} s")
    say(f"Wrote {files.genbank.name}")
    files.stats.write_text(stats_text(options, contigs, {"CDS": cds}))
    files.err.write_text("\n".join(progress) + "\n")
    files.log.write_text(
        f"# annotation: pyrodigal {pyrodigal.__version__}, Biopython {Bio.__version__}\n"
        f"# mode: {'meta' if meta else 'single (trained on the assembly)'}; "
        f"translation table {options.gcode}; locus tags {options.locustag}_NNNNN\n"
        f"contigs: {len(contigs)}\nbases: {total}\nCDS: {cds}\n")
    runner.log(f"annotation: pyrodigal {pyrodigal.__version__}: {cds} CDS")
    return files


def annotate_with_prokka(contigs: list[Contig], out_dir: Path, options: AnnotationOptions,
                         runner: ToolRunner) -> AnnotationFiles:
    """Prokka on the renamed contigs; its stdout and stderr are the two logs (Prokka writes
    its progress to stderr)."""
    work = out_dir / "prokka"
    fasta = out_dir / "contigs-renamed.fasta"
    pairs = renamed(contigs)
    write_fasta(fasta, (Contig(name, c.sequence) for name, c in pairs))
    log, err = out_dir / "prokka.log", out_dir / "prokka.err"
    argv: list[str | float | Path] = [
        "prokka", "--outdir", work, "--prefix", "genome", "--force",
        "--cpus", options.threads, "--evalue", f"{options.evalue:g}",
        "--gcode", options.gcode, "--kingdom", "Bacteria", "--locustag", options.locustag,
        "--genus", options.genus, "--species", options.species, "--strain", options.strain,
        "--dbdir", options.prokka_dbdir, fasta]
    runner.run("Prokka", argv, cwd=out_dir, stdout=log, stderr=err, error_log=err)
    genbank = next((work / f"genome.{ext}" for ext in ("gbk", "gbf")
                    if (work / f"genome.{ext}").is_file()), None)
    if genbank is None or not (work / "genome.txt").is_file():
        raise PipelineError("Prokka finished without writing genome.gbk and genome.txt")
    files = AnnotationFiles(out_dir / "genome.gbk", out_dir / "prokka_stats.txt", log, err)
    genbank.replace(files.genbank)
    (work / "genome.txt").replace(files.stats)
    runner.log(f"annotation: {tool_version('prokka', '--version')}")
    return files
