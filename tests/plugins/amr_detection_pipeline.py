"""The test AMR detection pipeline: which panel sequences the reads cover, in staramr's
tables.

For each gene and plasmid replicon of :data:`PANEL`, the pipeline collects the canonical
21-mers of every read (both files of the pair, so either strand), marks each position of the
panel sequence covered by a 21-mer found in the reads, and reports the sequence when the
covered share (staramr's ``%Overlap``) reaches :data:`MIN_OVERLAP`. Covered positions match
the reads exactly, so ``%Identity`` is 100 over the covered span. The outputs are staramr's
files: the ResFinder and PlasmidFinder hits, the detailed and per-isolate summaries (genotype,
phenotypes, plasmids), MLST (no scheme: ``-``), the settings (``key = value``) and the
workbook with a sheet per table.
"""

from __future__ import annotations

import gzip
import random
import zipfile
from pathlib import Path
from xml.sax.saxutils import escape

from seqcore.plugin import PipelineContext, PipelineError

K = 21
MIN_OVERLAP = 60.0  # staramr's default --plength-threshold-resfinder (and plasmidfinder)
PID_THRESHOLD = 98.0  # staramr's default --pid-threshold
_COMPLEMENT = str.maketrans("ACGT", "TGCA")


def synthetic(name: str, length: int) -> str:
    """A fixed pseudo-random sequence for ``name`` (the same in every process)."""
    rng = random.Random(f"seqcore-amr-panel:{name}")
    return "".join(rng.choice("ACGT") for _ in range(length))


# name → (kind, phenotype, accession, sequence). Synthetic: no real gene or replicon.
PANEL = {
    "syn-ampR": ("Resistance", "ampicillin", "SYN0001", synthetic("syn-ampR", 600)),
    "syn-sulR": ("Resistance", "sulfisoxazole", "SYN0002", synthetic("syn-sulR", 600)),
    "syn-tetR": ("Resistance", "tetracycline", "SYN0003", synthetic("syn-tetR", 600)),
    "syn-IncFII": ("Plasmid", "", "SYN0101", synthetic("syn-IncFII", 300)),
    "syn-ColE1": ("Plasmid", "", "SYN0102", synthetic("syn-ColE1", 300)),
}


def reverse_complement(sequence: str) -> str:
    return sequence.translate(_COMPLEMENT)[::-1]


def _canonical(kmer: str) -> str:
    return min(kmer, reverse_complement(kmer))


def _sequences(path: Path):
    with path.open("rb") as raw:
        gzipped = raw.read(2) == b"\x1f\x8b"
    opener = gzip.open if gzipped else open
    with opener(path, "rt") as handle:
        for number, line in enumerate(handle):
            if number % 4 == 1:
                yield line.strip().upper()


def read_kmers(files: tuple[Path, ...]) -> tuple[set[str], int, int]:
    """The reads' canonical 21-mers, and how many reads and bases there were."""
    kmers: set[str] = set()
    reads = bases = 0
    for path in files:
        for sequence in _sequences(path):
            reads += 1
            bases += len(sequence)
            for start in range(len(sequence) - K + 1):
                kmers.add(_canonical(sequence[start:start + K]))
    return kmers, reads, bases


def coverage(sequence: str, kmers: set[str]) -> tuple[int, int, int]:
    """Covered positions of ``sequence``, and the first and last covered (1-based)."""
    covered = [False] * len(sequence)
    for start in range(len(sequence) - K + 1):
        if _canonical(sequence[start:start + K]) in kmers:
            covered[start:start + K] = [True] * K
    positions = [i for i, hit in enumerate(covered) if hit]
    if not positions:
        return 0, 0, 0
    return len(positions), positions[0] + 1, positions[-1] + 1


def _tsv(rows: list[list[str]]) -> str:
    return "".join("\t".join(row) + "\n" for row in rows)


def detect(ctx: PipelineContext) -> dict[str, Path]:
    if len(ctx.inputs) != 1:
        raise PipelineError("AMR detection takes one pair of reads")
    item = ctx.inputs[0]
    isolate = item.sample_name
    kmers, reads, bases = read_kmers(item.files)
    hits = []
    for gene, (kind, phenotype, accession, sequence) in PANEL.items():
        covered, first, last = coverage(sequence, kmers)
        overlap = 100.0 * covered / len(sequence)
        if overlap >= MIN_OVERLAP:
            hits.append((gene, kind, phenotype, accession, covered, len(sequence), first,
                         last, overlap))
    ctx.log(f"{isolate}: {reads} reads, {len(kmers)} distinct 21-mers, {len(hits)} hits")

    def hit_row(hit: tuple, *columns: str) -> list[str]:
        gene, _kind, _phenotype, accession, covered, total, first, last, overlap = hit
        return [isolate, gene, *columns, "100.00", f"{overlap:.2f}", f"{covered}/{total}",
                "reads", str(first), str(last), accession]

    resistance = [h for h in hits if h[1] == "Resistance"]
    plasmids = [h for h in hits if h[1] == "Plasmid"]
    hit_columns = ["%Identity", "%Overlap", "HSP Length/Total Length", "Contig", "Start",
                   "End", "Accession"]
    tables = {
        "ResFinder": [["Isolate ID", "Gene", "Predicted Phenotype", *hit_columns]]
        + [hit_row(h, h[2]) for h in resistance],
        "PlasmidFinder": [["Isolate ID", "Gene", *hit_columns]]
        + [hit_row(h) for h in plasmids],
        "Detailed_Summary": [["Isolate ID", "Gene", "Data Type", "Predicted Phenotype",
                              *hit_columns]]
        + [hit_row(h, h[1], h[2]) for h in hits],
        "Summary": [["Isolate ID", "Genotype", "Predicted Phenotype", "Plasmid", "Scheme",
                     "Sequence Type", "Reads", "Bases"],
                    [isolate,
                     ", ".join(h[0] for h in resistance) or "None",
                     ", ".join(h[2] for h in resistance) or "Sensitive",
                     ", ".join(h[0] for h in plasmids) or "None", "-", "-", str(reads),
                     str(bases)]],
        "MLST_Summary": [["Isolate ID", "Scheme", "Sequence Type"], [isolate, "-", "-"]],
    }
    settings = {"command_line": "seqcore amr-detection (test panel)", "version": "0.1",
                "kmer_size": str(K), "pid_threshold": f"{PID_THRESHOLD:.1f}",
                "plength_threshold_resfinder": f"{MIN_OVERLAP:.1f}",
                "plength_threshold_plasmidfinder": f"{MIN_OVERLAP:.1f}",
                "panel": ", ".join(PANEL), "reads": str(reads), "bases": str(bases)}
    outputs = {
        "resfinder": ("staramr-resfinder.tsv", _tsv(tables["ResFinder"])),
        "detailed_summary": ("staramr-detailed-summary.tsv", _tsv(tables["Detailed_Summary"])),
        "summary": ("staramr-summary.tsv", _tsv(tables["Summary"])),
        "plasmidfinder": ("staramr-plasmidfinder.tsv", _tsv(tables["PlasmidFinder"])),
        "mlst": ("staramr-mlst.tsv", _tsv(tables["MLST_Summary"])),
        "settings": ("staramr-settings.txt",
                     "".join(f"{key} = {value}\n" for key, value in settings.items())),
    }
    paths = {}
    for key, (file_name, text) in outputs.items():
        paths[key] = ctx.output_path(file_name)
        paths[key].write_text(text)
    workbook = ctx.output_path("staramr-excel.xlsx")
    write_workbook(workbook, {**tables, "Settings": [[k, v] for k, v in settings.items()]})
    paths["excel"] = workbook
    return paths


def write_workbook(path: Path, sheets: dict[str, list[list[str]]]) -> None:
    """A minimal Office Open XML workbook (inline strings, no styles): one sheet per table,
    as staramr's ``--output-excel`` has."""
    def cell_ref(row: int, column: int) -> str:
        letters = ""
        column += 1
        while column:
            column, rest = divmod(column - 1, 26)
            letters = chr(65 + rest) + letters
        return f"{letters}{row + 1}"

    def sheet_xml(rows: list[list[str]]) -> str:
        body = "".join(
            f'<row r="{r + 1}">' + "".join(
                f'<c r="{cell_ref(r, c)}" t="inlineStr"><is><t>{escape(value)}</t></is></c>'
                for c, value in enumerate(row)) + "</row>"
            for r, row in enumerate(rows))
        return ('<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
                '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">'
                f"<sheetData>{body}</sheetData></worksheet>")

    main = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
    rel = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
    names = list(sheets)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as book:
        book.writestr("[Content_Types].xml", (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
            '<Default Extension="rels" '
            'ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
            '<Default Extension="xml" ContentType="application/xml"/>'
            '<Override PartName="/xl/workbook.xml" ContentType="application/'
            'vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>'
            + "".join(f'<Override PartName="/xl/worksheets/sheet{i}.xml" ContentType='
                      '"application/vnd.openxmlformats-officedocument.spreadsheetml.'
                      'worksheet+xml"/>' for i in range(1, len(names) + 1))
            + "</Types>"))
        book.writestr("_rels/.rels", (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/'
            'officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/>'
            "</Relationships>"))
        book.writestr("xl/workbook.xml", (
            f'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            f'<workbook xmlns="{main}" xmlns:r="{rel}"><sheets>'
            + "".join(f'<sheet name="{escape(name)}" sheetId="{i}" r:id="rId{i}"/>'
                      for i, name in enumerate(names, start=1))
            + "</sheets></workbook>"))
        book.writestr("xl/_rels/workbook.xml.rels", (
            '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>'
            '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            'relationships">'
            + "".join(f'<Relationship Id="rId{i}" Type="{rel}/worksheet" '
                      f'Target="worksheets/sheet{i}.xml"/>'
                      for i in range(1, len(names) + 1))
            + "</Relationships>"))
        for i, name in enumerate(names, start=1):
            book.writestr(f"xl/worksheets/sheet{i}.xml", sheet_xml(sheets[name]))
