"""The assembly analysis end to end on generated data: real FLASH, MEGAHIT and SPAdes,
pyrodigal annotation, write-back, the pair's link, and the ways it fails."""

import io
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from simulate import (
    genome_fraction,
    random_genome,
    repeat_family_of,
    repeat_positions,
    simulate_reads,
)

from seqcore.testing.contracts import AnalysisPluginContract
from seqcore.testing.workers import AnalysisWorker
from seqcore_assembly.contigs import (
    Contig,
    filter_contigs,
    filter_report,
    read_fasta,
    stats_report,
)
from seqcore_assembly.pipeline import OUTPUTS, check_kmers

RELS = {f"outputFile/{key}" for key in OUTPUTS}
LAUNCH = "/api/analysisSubmissions/analysisType/{}"
IRIDA_CASE = Path(__file__).parent / "data" / "filter_spades_repeats"


class TestAssemblyContract(AnalysisPluginContract):
    analysis_type = "assembly"
    output_rels = RELS
    parameters = {"assembler": "megahit"}  # the quicker assembler: a real run all the same

    def check_write_back(self, testapp, headers, samples, run):
        """The write-back makes an assembly of each analysed sample, not metadata."""
        for sample in samples:
            listed = testapp.get(f"/api/samples/{sample.id}/assemblies", headers=headers)
            assert listed.json["resource"]["resources"], sample.id

    def sample_data(self, kind):
        """30x of 2x150 bp reads from a random 30 kb genome."""
        genome = random_genome(30_000, seed=41, families=())
        with tempfile.TemporaryDirectory() as tmp:
            r1, r2 = Path(tmp) / "contract_R1.fastq", Path(tmp) / "contract_R2.fastq"
            simulate_reads(genome.sequence, 30.0, r1, r2, seed=141)
            return [[(r1.name, r1.read_bytes()), (r2.name, r2.read_bytes())]]


class TestCollectionContract(TestAssemblyContract):
    analysis_type = "assembly-collection"


# -- data -----------------------------------------------------------------------------------

_cache: dict = {}


def dataset(reads_dir, name, length, seed, coverage=30.0, families=((1500, 5), (5000, 3))):
    """A genome and its simulated reads (as FASTQ bytes), made once per session.

    Kept by every argument, not the name alone: two tests that reuse a name with other
    repeat families or another seed each get their own genome."""
    key = (name, length, seed, coverage, families)
    if key not in _cache:
        genome = random_genome(length, seed=seed, families=families)
        stem = f"{name}-{len(_cache)}"
        r1, r2 = reads_dir / f"{stem}_R1.fastq", reads_dir / f"{stem}_R2.fastq"
        simulate_reads(genome.sequence, coverage, r1, r2, seed=seed + 100)
        _cache[key] = (genome, r1.read_bytes(), r2.read_bytes())
    return _cache[key]


def world(factories, reads, name="isolate-1", project=None, owner=None):
    owner = owner or factories.user()
    project = project or factories.project(owner=owner)
    sample = factories.sample(project, name=name)
    pair = factories.sequencing_object(sample, "pairs", files=[
        (f"{name}_R1.fastq", reads[1]), (f"{name}_R2.fastq", reads[2])])
    return owner, project, sample, pair, factories.headers(owner)


def links(body):
    return {link["rel"]: link["href"] for link in body["links"]}


def run(app_config, timeout=240):
    AnalysisWorker(app_config.registry).run_until_idle(timeout=timeout)


def submission(testapp, headers, sid):
    return testapp.get(f"/api/analysisSubmissions/{sid}", headers=headers).json["resource"]


def outputs(testapp, headers, body):
    analysis = testapp.get(links(body)["analysis"], headers=headers).json["resource"]
    rels = links(analysis)
    assert set(rels) >= RELS
    return {rel[len("outputFile/"):]: testapp.get(
        rels[rel], headers={**headers, "Accept": "text/plain"}).text for rel in RELS}


def check_filter(files, **rules):
    """Every contig of contigs-all lands where the filter rules put it."""
    rules = {"min_length": 1000, "coverage_ratio": 0.33, "repeat_ratio": 1.75,
             "length_for_average": 5000, **rules}
    report = files["filter-assembly-log"]
    average = float(re.search(r"Average coverage: ([0-9.]+)", report).group(1))
    with_repeats = fasta_headers(files["contigs-with-repeats"])
    without = fasta_headers(files["contigs-without-repeats"])
    repeats = 0
    for contig in parse_fasta(files["contigs-all"]):
        cov = contig.coverage
        if len(contig) < rules["min_length"] or cov < average * rules["coverage_ratio"]:
            assert contig.header not in without
            assert not any(h.startswith(contig.header) for h in with_repeats)
        elif cov >= average * rules["repeat_ratio"] - 0.01:
            repeats += 1
            copies = int(cov / average)
            assert f"{contig.header}({copies} copies)" in with_repeats
            assert contig.header not in without
            assert f">{contig.header}({copies} copies)" in report.split("Repeat sequences:")[1]
        else:
            assert contig.header in with_repeats and contig.header in without
    return repeats


def check_copy_numbers(genome, files):
    """Against the truth of the generated genome (a 3-copy 5 kb and a 5-copy 1.5 kb repeat
    family, single-copy coverage about 14.5 on this data):

    * IRIDA's rule flags both families but under-counts: the collapsed 5 kb repeat is one
      of the nine contigs >= 5 kb that set the plain mean (17.9 instead of 14.5), and
      int() truncates: 45.2 / 17.9 = 2.5 -> 2 copies, 71.0 / 17.9 = 4.0 -> 3 copies. It
      never over-counts, and here it under-counts the 5-copy family.
    * the median of those contigs (14.5) with rounding to the nearest integer gives the
      true numbers, 3 and 5.
    """
    import mappy

    aligner = mappy.Aligner(seq=genome.sequence, preset="asm5")

    def flagged(contigs):
        found = {}
        for contig in contigs:
            reported = re.search(r"\((\d+) copies\)$", contig.header)
            if reported:
                truth = repeat_family_of(genome, contig.sequence, aligner)
                found.setdefault(truth, []).append(int(reported.group(1)))
        return found

    irida = flagged(parse_fasta(files["contigs-with-repeats"]))
    assert set(irida) == {3, 5}, irida  # both families flagged, nothing unique flagged
    assert all(n <= truth for truth, ns in irida.items() for n in ns), irida
    assert min(irida[5]) < 5, irida
    right = filter_contigs(parse_fasta(files["contigs-all"]), mean="median",
                           copy_numbers="nearest")
    assert flagged(right.repeats) == {3: [3], 5: [5]}


def parse_fasta(text):
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"seqcore-assembly-{os.getpid()}.fasta"
    path.write_text(text)
    try:
        return list(read_fasta(path))
    finally:
        path.unlink()


def fasta_headers(text):
    return [line[1:] for line in text.splitlines() if line.startswith(">")]


def check_genbank(text, contigs):
    from Bio import SeqIO

    records = list(SeqIO.parse(io.StringIO(text), "genbank"))
    assert len(records) == len(contigs)
    assert [str(r.seq) for r in records] == [c.sequence for c in contigs]
    cds = [f for r in records for f in r.features if f.type == "CDS"]
    assert len(cds) > 20
    for record in records[:3]:
        for feature in [f for f in record.features if f.type == "CDS"][:10]:
            protein = feature.qualifiers["translation"][0]
            assert protein and "*" not in protein
            if "<" in str(feature.location) or ">" in str(feature.location):
                continue
            # Prodigal translates every start codon as M; the rest matches the sequence.
            translated = str(feature.extract(record.seq).translate(table=11))
            assert translated[1:].rstrip("*") == protein[1:]
    return len(cds)


# -- the whole pipeline -------------------------------------------------------------------


def test_megahit_assembly_annotation_and_write_back(testapp, app_config, factories,
                                                    reads_dir):
    data = dataset(reads_dir, "g300", 300_000, seed=3)
    genome = data[0]
    _, _, sample, pair, headers = world(factories, data)
    # No submission yet: the pair has no analysis/assembly link.
    pairs_url = f"/api/samples/{sample.id}/sequenceFiles/pairs"
    (listed,) = testapp.get(pairs_url, headers=headers).json["resource"]["resources"]
    pair_url = links(listed)["self"]
    assert "analysis/assembly" not in links(testapp.get(pair_url, headers=headers).json[
        "resource"])

    created = testapp.post_json(LAUNCH.format("assembly"), {
        "name": "assembly of isolate-1", "sequencingObjects": [pair.id],
        "writeResultsToSamples": True, "parameters": {"assembler": "megahit"}},
        headers=headers, status=201).json["resource"]
    assert created["inputParameters"]["assembler"] == "megahit"
    assert created["inputParameters"]["min_contig_length"] == "1000"
    run(app_config)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    files = outputs(testapp, headers, body)
    assert all(files[key] for key in OUTPUTS)

    # Logs: each tool's output, with its version and command line.
    for counted in ("Total pairs", "Combined pairs", "Uncombined pairs", "Percent combined"):
        assert re.search(rf"\[FLASH\]\s+{counted}:\s+\d", files["read-merge-log"])
    assert "# FLASH: FLASH v" in files["read-merge-log"]
    assert "# MEGAHIT: MEGAHIT v" in files["assembly-log"]
    # The deployment's memory setting travelled with the job (conftest sets 3 GB).
    assert re.search(r"# command: megahit .* -t 2 -m 3000000000", files["assembly-log"])

    # Contigs cover the genome; repeats are flagged by the filter's rules.
    contigs = parse_fasta(files["contigs-with-repeats"])
    assert genome_fraction(genome.sequence, [c.sequence for c in contigs]) >= 0.95
    assert check_filter(files) >= 2
    repeat_contigs = [c for c in contigs if c.header.endswith("copies)")]
    mask = repeat_positions(genome)
    import mappy

    aligner = mappy.Aligner(seq=genome.sequence, preset="asm5")
    for contig in repeat_contigs:
        hit = next(aligner.map(contig.sequence))
        assert mask[hit.r_st:hit.r_en].mean() > 0.9  # a flagged repeat is a real repeat
    assert "Number of contigs:" in files["assembly-stats-repeats"]
    assert f"{sum(len(c) for c in contigs):,}" in files["assembly-stats-repeats"]

    # Annotation: GenBank with translated CDS, Prokka-style stats.
    cds = check_genbank(files["annotations-genbank"], contigs)
    stats = files["annotations-stats"].splitlines()
    assert stats[:3] == ["organism: Genus species strain", f"contigs: {len(contigs)}",
                         f"bases: {sum(len(c) for c in contigs)}"]
    assert f"CDS: {cds}" in stats
    assert "pyrodigal" in files["annotations-log"] and "CDS" in files["annotations-error"]

    # Written back: the filtered assembly is the sample's, linked to the submission.
    (assembly,) = testapp.get(f"/api/samples/{sample.id}/assemblies", headers=headers).json[
        "resource"]["resources"]
    assert links(assembly)["assembly/analysis"].endswith(
        f"/api/analysisSubmissions/{body['identifier']}")
    fasta = testapp.get(links(assembly)["self"],
                        headers={**headers, "Accept": "application/fasta"}).text
    assert fasta == files["contigs-with-repeats"]
    pair_links = links(testapp.get(pair_url, headers=headers).json["resource"])
    assert pair_links["analysis/assembly"].endswith(
        f"/api/analysisSubmissions/{body['identifier']}")


def test_spades_on_a_small_genome(testapp, app_config, factories, reads_dir):
    data = dataset(reads_dir, "g120", 120_000, seed=5)
    _, _, sample, pair, headers = world(factories, data)
    created = testapp.post_json(LAUNCH.format("assembly"), {
        "sequencingObjects": [pair.id],
        "parameters": {"spades_kmers": "21,33,55,77"}}, headers=headers,
        status=201).json["resource"]
    assert created["inputParameters"]["assembler"] == "spades"  # the default
    run(app_config)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    files = outputs(testapp, headers, body)
    assert all(h.startswith("NODE_") for h in fasta_headers(files["contigs-all"]))
    assert "SPAdes" in files["assembly-log"] and "-k 21,33,55,77" in files["assembly-log"]
    contigs = parse_fasta(files["contigs-with-repeats"])
    assert genome_fraction(data[0].sequence, [c.sequence for c in contigs]) >= 0.95
    assert check_filter(files) >= 1
    check_copy_numbers(data[0], files)
    check_genbank(files["annotations-genbank"], contigs)
    # Not asked to write back: no assembly on the sample.
    assert testapp.get(f"/api/samples/{sample.id}/assemblies", headers=headers).json[
        "resource"]["resources"] == []


COPY_FAMILIES = ((1500, 5), (5000, 3), (21000, 1))


@pytest.mark.parametrize("assembler", ["spades", "megahit"])
def test_copy_numbers_from_reads_mapped_back(testapp, app_config, factories, reads_dir,
                                             assembler):
    """A 300 kb genome with a 5-copy 1.5 kb, a 3-copy 5 kb and a single-copy 21 kb family,
    30x: with the read depth of the reads mapped back (contig_coverage=reads), the median
    and rounding to the nearest integer, both assemblers' repeat contigs get their true
    copy numbers, and no contig of single-copy sequence is flagged: the 21 kb family stays
    among the contigs without repeats."""
    import mappy

    data = dataset(reads_dir, "copies300", 300_000, seed=5, families=COPY_FAMILIES)
    genome = data[0]
    _, _, _, pair, headers = world(factories, data)
    parameters = {"assembler": assembler, "coverage_mean": "median",
                  "copy_numbers": "nearest", "contig_coverage": "reads"}
    if assembler == "spades":
        parameters.update(spades_kmers="21,33,55,77", spades_isolate=True)
    created = testapp.post_json(LAUNCH.format("assembly"), {
        "sequencingObjects": [pair.id], "parameters": parameters}, headers=headers,
        status=201).json["resource"]
    run(app_config, timeout=1800)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    files = outputs(testapp, headers, body)
    assert re.search(r"Average coverage: [0-9.]+ \(median; read depth\)",
                     files["filter-assembly-log"])
    aligner = mappy.Aligner(seq=genome.sequence, preset="asm5")
    flagged: dict = {}
    for contig in parse_fasta(files["contigs-with-repeats"]):
        reported = re.search(r"\((\d+) copies\)$", contig.header)
        if reported:
            truth = repeat_family_of(genome, contig.sequence, aligner)
            flagged.setdefault(truth, []).append(int(reported.group(1)))
    assert flagged == {3: [3], 5: [5]}, flagged
    # Every contig that is one repeat family is flagged (none hides among the others).
    for contig in parse_fasta(files["contigs-without-repeats"]):
        family = repeat_family_of(genome, contig.sequence, aligner)
        assert family in (None, 1), (contig.header, family)
    start = next(starts[0] for length, starts in genome.repeats if length == 21000)
    single = genome.sequence[start:start + 21000]
    without = [c.sequence for c in parse_fasta(files["contigs-without-repeats"])]
    assert genome_fraction(single, without) >= 0.95


def test_collection_combines_samples_and_writes_each_back(testapp, app_config, factories,
                                                          reads_dir):
    families = ((1500, 3),)
    a = dataset(reads_dir, "c1", 60_000, seed=11, families=families)
    b = dataset(reads_dir, "c2", 70_000, seed=12, families=families)
    owner, project, s1, _, headers = world(factories, a, name="coll-1")
    _, _, s2, _, _ = world(factories, b, name="coll-2", project=project, owner=owner)
    created = testapp.post_json(LAUNCH.format("assembly-collection"), {
        "samples": [s1.id, s2.id], "writeResultsToSamples": True,
        "parameters": {"assembler": "megahit", "length_for_average": 2000}},
        headers=headers, status=201).json["resource"]
    run(app_config)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    files = outputs(testapp, headers, body)
    combined = parse_fasta(files["contigs-with-repeats"])
    by_sample = {"coll-1": [], "coll-2": []}
    for contig in combined:
        by_sample[contig.header.split("|")[0]].append(contig.sequence)
    assert genome_fraction(a[0].sequence, by_sample["coll-1"]) >= 0.95
    assert genome_fraction(b[0].sequence, by_sample["coll-2"]) >= 0.95
    for key in ("read-merge-log", "assembly-log", "filter-assembly-log", "annotations-stats"):
        assert "==> coll-1 <==" in files[key] and "==> coll-2 <==" in files[key]
    check_genbank(files["annotations-genbank"], combined)
    for sample, genome in ((s1, a[0]), (s2, b[0])):
        (assembly,) = testapp.get(f"/api/samples/{sample.id}/assemblies",
                                  headers=headers).json["resource"]["resources"]
        fasta = testapp.get(links(assembly)["self"],
                            headers={**headers, "Accept": "application/fasta"}).text
        own = [c.sequence for c in parse_fasta(fasta)]
        assert genome_fraction(genome.sequence, own) >= 0.95  # its own contigs only


# -- failures -----------------------------------------------------------------------------


def fail_reason(testapp, app_config, headers, sid):
    run(app_config, timeout=120)
    body = submission(testapp, headers, sid)
    assert body["analysisState"] == "ERROR"
    return body


def test_unpaired_input_is_an_error(testapp, app_config, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner), name="single-end")
    single = factories.sequencing_object(sample, "unpaired")
    headers = factories.headers(owner)
    # Launching refuses it; a submission that holds one anyway fails with the reason.
    testapp.post_json(LAUNCH.format("assembly"), {"sequencingObjects": [single.id]},
                      headers=headers, status=400)
    sub = factories.submission(owner, [single], "assembly")
    body = fail_reason(testapp, app_config, headers, sub.id)
    assert "paired-end" in body["analysisError"] and "single-end" in body["analysisError"]


def fake_tool(tmp_path, monkeypatch, name, script):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / name
    tool.write_text("#!/bin/sh\n" + script)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


@pytest.mark.parametrize(("tool", "script", "expected"), [
    ("flash", "echo 'ERROR: cannot read input' >&2; exit 3",
     "FLASH failed with exit code 3: ERROR: cannot read input"),
    ("megahit", 'case "$1" in --version) echo MEGAHIT v0;; *) kill -9 $$;; esac',
     "MEGAHIT was killed by signal SIGKILL (out of memory?)"),
])
def test_a_failing_tool_is_an_error_with_the_reason(testapp, app_config, factories,
                                                    reads_dir, tmp_path, monkeypatch, tool,
                                                    script, expected):
    data = dataset(reads_dir, "g120", 120_000, seed=5)
    _, _, _, pair, headers = world(factories, data)
    fake_tool(tmp_path, monkeypatch, tool, script)
    created = testapp.post_json(LAUNCH.format("assembly"), {
        "sequencingObjects": [pair.id], "parameters": {"assembler": "megahit"}},
        headers=headers, status=201).json["resource"]
    body = fail_reason(testapp, app_config, headers, created["identifier"])
    assert expected in body["analysisError"]
    work_dir = Path(body["remoteInputDataId"])  # kept for inspection
    assert (work_dir / "job.json").is_file() and (work_dir / "pipeline.log").is_file()


def test_reads_that_assemble_to_nothing(testapp, app_config, factories, reads_dir):
    # 0.5x of a 1 Mb genome: the pairs barely overlap, no contig reaches 1 kb.
    data = dataset(reads_dir, "sparse", 1_000_000, seed=7, coverage=0.5, families=())
    _, _, _, pair, headers = world(factories, data)
    created = testapp.post_json(LAUNCH.format("assembly"), {
        "sequencingObjects": [pair.id], "parameters": {"assembler": "megahit"}},
        headers=headers, status=201).json["resource"]
    body = fail_reason(testapp, app_config, headers, created["identifier"])
    assert "assembled to nothing" in body["analysisError"]


def test_parameters_are_checked(testapp, app_config, factories, reads_dir):
    data = dataset(reads_dir, "g120", 120_000, seed=5)
    _, _, _, pair, headers = world(factories, data)
    res = testapp.post_json(LAUNCH.format("assembly"), {
        "sequencingObjects": [pair.id],
        "parameters": {"assembler": "velvet", "coverage_ratio": -1, "gcode": 0,
                       "nonsense": 1}}, headers=headers, status=400).json
    text = json.dumps(res)
    for name in ("assembler", "coverage_ratio", "gcode", "nonsense"):
        assert f"parameters.{name}" in text
    created = testapp.post_json(LAUNCH.format("assembly"), {
        "sequencingObjects": [pair.id], "parameters": {"spades_kmers": "20,33"}},
        headers=headers, status=201).json["resource"]
    body = fail_reason(testapp, app_config, headers, created["identifier"])
    assert "spades_kmers must be ascending odd numbers" in body["analysisError"]


def test_readiness_reports_the_tools(testapp, factories):
    owner = factories.user()
    headers = factories.headers(owner)
    for name in ("assembly", "assembly-collection"):
        info = testapp.get(f"/api/analysisTypes/{name}", headers=headers).json["resource"]
        assert info["ready"] is True
        tools = {t["name"]: t for t in info["tools"]}
        # Clean numbers, not "FLASH v1.2.11" or "SPAdes genome assembler v3.15.5".
        assert re.fullmatch(r"1\.2\.\d+", tools["FLASH"]["version"])
        assert re.fullmatch(r"3\.\d+\.\d+", tools["SPAdes"]["version"])
        assert re.fullmatch(r"1\.\d+\.\d+", tools["MEGAHIT"]["version"])
        assert tools["SPAdes"]["install"] == "apt-get install spades"
        defaults = {p["name"]: p["default"] for p in info["parameters"]}
        assert defaults["min_contig_length"] == 1000 and defaults["repeat_ratio"] == 1.75
        assert defaults["coverage_ratio"] == 0.33 and defaults["length_for_average"] == 5000
        assert defaults["coverage_mean"] == "plain" and defaults["copy_numbers"] == "down"
        assert defaults["contig_coverage"] == "header"
        assert re.fullmatch(r"2\.\d+.*", tools["minimap2"]["version"])
        assert defaults["read_merge_min_overlap"] == 20
        assert defaults["read_merge_max_overlap"] == 300


# -- the filter and the report, by hand -----------------------------------------------------


def node(n, length, cov):
    return Contig(f"NODE_{n}_length_{length}_cov_{cov}", "A" * length)


def test_filter_rules_are_irida_s():
    """A table worked out by hand with the rule of IRIDA's ``filter_spades_repeats.pl``
    at its defaults (length 1000, coverage ratio 0.33, repeat ratio 1.75, mean over
    contigs >= 5000 bp):

    * mean = plain mean of the coverages of NODE_1, NODE_2, NODE_3 (the repeat NODE_3
      counts; NODE_7 is 1 bp too short) = (20 + 22 + 60) / 3 = 34.0
    * coverage cutoff = 34 x 0.33 = 11.22; repeat cutoff = 34 x 1.75 = 59.5
    * NODE_1 (20), NODE_2 (22), NODE_7 (40): kept in both files
    * NODE_3 (60 >= 59.5): repeat, int(60 / 34) = int(1.76) = 1 copy
    * NODE_4 (100): repeat, int(100 / 34) = int(2.94) = 2 copies (the script truncates)
    * NODE_5 (900 bp < 1000): discarded; NODE_6 (7 < 11.22): discarded
    """
    contigs = [node(1, 10_000, 20.0), node(2, 6_000, 22.0), node(3, 5_000, 60.0),
               node(4, 1_500, 100.0), node(5, 900, 20.0), node(6, 2_000, 7.0),
               node(7, 4_999, 40.0)]
    result = filter_contigs(contigs)
    assert result.average == 34.0
    assert result.coverage_cutoff == pytest.approx(11.22)
    assert result.repeat_cutoff == 59.5
    assert [c.header for c in result.without_repeats] == [
        "NODE_1_length_10000_cov_20.0", "NODE_2_length_6000_cov_22.0",
        "NODE_7_length_4999_cov_40.0"]
    assert [c.header for c in result.repeats] == [
        "NODE_3_length_5000_cov_60.0(1 copies)", "NODE_4_length_1500_cov_100.0(2 copies)"]
    assert [c.header for c in result.discarded] == [
        "NODE_5_length_900_cov_20.0", "NODE_6_length_2000_cov_7.0"]
    assert [c.header for c in result.with_repeats] == [
        "NODE_1_length_10000_cov_20.0", "NODE_2_length_6000_cov_22.0",
        "NODE_3_length_5000_cov_60.0(1 copies)", "NODE_4_length_1500_cov_100.0(2 copies)",
        "NODE_7_length_4999_cov_40.0"]
    report = filter_report(result, min_length=1000, coverage_ratio=0.33, repeat_ratio=1.75,
                           length_for_average=5000)
    assert "Average coverage: 34\nCoverage cutoff: 11.22\nRepeat cutoff: 59.5\n" in report

    # The options: copies rounded to the nearest integer (100 / 34 = 2.94 -> 3; 1.76 -> 2)
    nearest = filter_contigs(contigs, copy_numbers="nearest")
    assert [c.header[-10:] for c in nearest.repeats] == ["(2 copies)", "(3 copies)"]
    # and the length-weighted mean: (10000 x 20 + 6000 x 22 + 5000 x 60) / 21000 = 30.095;
    # repeat cutoff 52.67, so the same repeats, with 60 / 30.095 = 1.99 -> 1 and
    # 100 / 30.095 = 3.32 -> 3 copies; the report names the mean.
    weighted = filter_contigs(contigs, mean="weighted")
    assert weighted.average == pytest.approx(632_000 / 21_000)
    assert [c.header[-10:] for c in weighted.repeats] == ["(1 copies)", "(3 copies)"]
    assert "Average coverage: 30.0952380952381 (length-weighted)\n" in filter_report(
        weighted, min_length=1000, coverage_ratio=0.33, repeat_ratio=1.75,
        length_for_average=5000)
    # and the median of 20, 22, 60 = 22: repeat cutoff 38.5, so NODE_7 (40) is a repeat
    # too; nearest copies 60 / 22 = 2.7 -> 3, 100 / 22 = 4.5 -> 5, 40 / 22 = 1.8 -> 2.
    median = filter_contigs(contigs, mean="median", copy_numbers="nearest")
    assert median.average == 22.0 and median.repeat_cutoff == 38.5
    assert [c.header for c in median.repeats] == [
        "NODE_3_length_5000_cov_60.0(3 copies)", "NODE_4_length_1500_cov_100.0(5 copies)",
        "NODE_7_length_4999_cov_40.0(2 copies)"]


def test_read_depth_is_the_median_of_primary_alignments():
    """minimap2's PAF: secondary hits (tp:A:S) and hits on unknown contigs are left out;
    a contig's depth is the median over its bases, so thin ends and a pile-up on a short
    stretch move it less than they would a mean."""
    from seqcore_assembly.readdepth import median_depths

    def hit(contig, start, end, kind="P"):
        return "\t".join(["r", "150", "0", "150", "+", contig, "1000", str(start),
                          str(end), "150", "150", "60", f"tp:A:{kind}", "cm:i:10"])

    lines = [hit("a", 0, 1000)] * 3 + [hit("a", 0, 100)] * 50 + [hit("a", 0, 1000, "S")] * 9
    lines += [hit("b", 500, 1000), hit("elsewhere", 0, 1000), "not a PAF line"]
    depths = median_depths(lines, {"a": 1000, "b": 1000, "c": 1000})
    assert depths == {"a": 3.0, "b": 0.5, "c": 0.0}
    # The filter then takes the measured depth before the header's figure.
    contig = Contig("NODE_1_length_1000_cov_99.0", "A" * 1000, depth=3.0)
    assert contig.coverage == 3.0


def test_filter_boundaries_and_fallback():
    # Mean 40: a contig exactly at the repeat cutoff (70) is a repeat, one exactly
    # min_length long passes, one just below is discarded.
    contigs = [node(1, 8_000, 40.0), node(2, 5_000, 40.0), node(3, 1_000, 70.0),
               node(4, 999, 40.0)]
    result = filter_contigs(contigs)
    assert result.average == 40.0 and result.repeat_cutoff == 70.0
    assert [c.header for c in result.repeats] == ["NODE_3_length_1000_cov_70.0(1 copies)"]
    assert [c.header for c in result.discarded] == ["NODE_4_length_999_cov_40.0"]
    # No contig of 5 kb: IRIDA's script divides by zero; seqcore takes every contig and
    # says so in the report.
    short = filter_contigs([node(1, 3_000, 30.0), node(2, 2_000, 10.0)])
    assert short.average == 20.0 and short.average_note.startswith("all contigs")
    # MEGAHIT headers carry multi=.
    assert Contig("k141_3 flag=0 multi=72.0000 len=5000", "").coverage == 72.0


def test_filter_reproduces_irida_s_test_case():
    """IRIDA's own test case (galaxy_tools, filter_spades_repeats/test-data): 167 SPAdes
    contigs rebuilt from the stats table give its Results_summary.txt byte for byte: mean
    39.0276794117647 over the 34 contigs >= 5 kb, 5 and 2 copies truncated."""
    rows = [line.split("\t") for line in (IRIDA_CASE / "SPAdes_scaffold_stats.tabular")
            .read_text().splitlines() if not line.startswith("#")]
    contigs = [Contig(f"{name} length_{length}_cov_{cov}", "A" * int(length))
               for name, length, cov in rows]
    rules = {"min_length": 1000, "coverage_ratio": 0.33, "repeat_ratio": 1.75,
             "length_for_average": 5000}
    report = filter_report(filter_contigs(contigs, **rules), **rules)
    assert report == (IRIDA_CASE / "Results_summary.txt").read_text()


def test_stats_report():
    report = stats_report([Contig("a", "GGCC" * 500), Contig("b", "AT" * 250),
                           Contig("c", "ACGT" * 1000)])
    assert "Number of contigs:                      3" in report
    assert "Number of contigs >=1kb:                2" in report
    assert "N50 contig length:                      4,000" in report
    assert "Number of bases in all contigs:         6,500" in report
    assert "GC Content of contigs:                  61.54 %" in report


def test_kmers():
    assert check_kmers("21, 33,55") == [21, 33, 55]
    for bad in ("", "21,22", "33,21", "9,21", "21,129", "a,b"):
        with pytest.raises(Exception, match="spades_kmers"):
            check_kmers(bad)


def test_prokka_when_configured(tmp_path, monkeypatch):
    """With a Prokka database directory set, Prokka annotates: the contigs go in renamed,
    its stdout and stderr become the two logs, its .gbk and .txt the other outputs. (A stand-in
    prokka: the Debian package is not installed for the tests.)"""
    from seqcore_assembly.annotate import AnnotationOptions, annotate
    from seqcore_assembly.tools import ToolRunner

    fake_tool(tmp_path, monkeypatch, "prokka", """
case "$1" in --version) echo "prokka 1.14.6"; exit 0;; esac
while [ $# -gt 1 ]; do [ "$1" = --outdir ] && out=$2; shift; done
mkdir -p "$out"; head -1 "$1" > "$out/first-header"
printf 'LOCUS       contig00001   12 bp    DNA     linear   BCT\\n//\\n' > "$out/genome.gbk"
printf 'organism: Genus species strain\\ncontigs: 1\\nbases: 12\\nCDS: 0\\n' > "$out/genome.txt"
echo "[10:00:00] This is prokka" >&2; echo "stdout line"
""")
    logged = []
    files = annotate([Contig("NODE_1_length_12_cov_3.0", "ACGTACGTACGT")], tmp_path / "out",
                     AnnotationOptions(prokka_dbdir="/srv/prokka-db", threads=2),
                     ToolRunner(logged.append))
    assert files.genbank.read_text().startswith("LOCUS       contig00001")
    assert "CDS: 0" in files.stats.read_text()
    assert "[10:00:00] This is prokka" in files.err.read_text()
    log = files.log.read_text()
    assert "# Prokka: prokka 1.14.6" in log and "--dbdir /srv/prokka-db" in log
    assert "--cpus 2" in log and "--evalue 1e-06" in log and "stdout line" in log
    assert (tmp_path / "out" / "prokka" / "first-header").read_text() == ">contig00001\n"


def test_automated_assembly_on_upload_writes_back(testapp, app_config, factories, reads_dir):
    """An automated run (set on the project) writes back without being asked, because the
    project owns the sample; the pair links to it."""
    from seqcore.testing.uploads import multipart
    from seqcore.testing.workers import Worker

    genome, r1, r2 = dataset(reads_dir, "c1", 60_000, seed=11, families=((1500, 3),))
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="automated-1")
    headers = factories.headers(owner)
    testapp.put_json(f"/api/projects/{project.id}/automatedAnalyses", {"analysisTypes": [
        {"type": "assembly", "parameters": {"assembler": "megahit",
                                            "length_for_average": 2000}}]}, headers=headers)
    body, content_type = multipart([("file1", "a_R1.fastq", r1, None),
                                    ("file2", "a_R2.fastq", r2, None)])
    testapp.post(f"/api/samples/{sample.id}/pairs", body,
                 headers={**headers, "Content-Type": content_type})
    Worker(app_config.registry).run_until_idle()
    run(app_config)
    (entry,) = testapp.get(f"/api/projects/{project.id}/analyses/assembly",
                           headers=headers).json["resource"]["resources"]
    assert entry["analysisState"] == "COMPLETED"
    (assembly,) = testapp.get(f"/api/samples/{sample.id}/assemblies", headers=headers).json[
        "resource"]["resources"]
    sid = links(assembly)["assembly/analysis"].rsplit("/", 1)[1]
    (pair,) = testapp.get(f"/api/samples/{sample.id}/sequenceFiles/pairs",
                          headers=headers).json["resource"]["resources"]
    pair_links = links(testapp.get(links(pair)["self"], headers=headers).json["resource"])
    assert pair_links["analysis/assembly"].endswith(f"/api/analysisSubmissions/{sid}")
    fasta = testapp.get(links(assembly)["self"],
                        headers={**headers, "Accept": "application/fasta"}).text
    assert genome_fraction(genome.sequence, [c.sequence for c in parse_fasta(fasta)]) >= 0.95
