"""The serotyper end to end on a generated Salmonella-like genome: reads uploaded, MEGAHIT
(the assembly plugin's front end), real SISTR with its database, write-back, the pair's
links, IRIDA's names, and the ways it fails."""

import csv
import io
import json
import os
import subprocess
import tempfile
from pathlib import Path

from salmonella import (
    MONOPHASIC,
    MONOPHASIC_ANTIGENS,
    MONOPHASIC_GENOME,
    expected_serovars,
    salmonella_like,
)
from simulate import random_genome, simulate_reads

from seqcore.plugin import not_ready_message, readiness, tool_environment_python
from seqcore.testing.contracts import AnalysisPluginContract
from seqcore.testing.uploads import multipart
from seqcore.testing.workers import AnalysisWorker, Worker
from seqcore_serotyper.database import database_problem
from seqcore_serotyper.environment import RUNNER, SISTR_ENVIRONMENT, sistr_root
from seqcore_serotyper.pipeline import OUTPUTS
from seqcore_serotyper.plugin import WORKFLOW_ID, serotyper_type

RELS = {f"outputFile/{key}" for key in OUTPUTS}
IRIDA_RELS = {f"outputFile/sistr-{key[len('serotyper-'):]}" for key in OUTPUTS
              if key.startswith("serotyper-")}
LAUNCH = "/api/analysisSubmissions/analysisType/{}"
QUICK = {"assembler": "megahit", "use_full_cgmlst_db": False}


class TestSerotyperContract(AnalysisPluginContract):
    analysis_type = "serotyper"
    output_rels = RELS | IRIDA_RELS
    aliases = ("sistr",)
    parameters = QUICK

    def sample_data(self, kind):
        """Random DNA (40 kb, 30x of 2x150 bp): SISTR cannot type it, and says so in
        completed outputs (QC status FAIL)."""
        genome = random_genome(40_000, seed=33, families=())
        with tempfile.TemporaryDirectory() as tmp:
            r1, r2 = Path(tmp) / "contract_R1.fastq", Path(tmp) / "contract_R2.fastq"
            simulate_reads(genome.sequence, 30.0, r1, r2, seed=133)
            return [[(r1.name, r1.read_bytes()), (r2.name, r2.read_bytes())]]


# -- data -----------------------------------------------------------------------------------

_cache: dict = {}


def salmonella_reads(reads_dir):
    """The Salmonella-like genome (330 cgMLST alleles of a Typhimurium reference genome, a
    B / i / 1,2 antigen set, 400 kb) and 30x of 2x150 bp reads from it."""
    if "salmonella" not in _cache:
        genome = salmonella_like(400_000, seed=21)
        r1, r2 = reads_dir / "salm_R1.fastq", reads_dir / "salm_R2.fastq"
        simulate_reads(genome.sequence, 30.0, r1, r2, seed=121)
        _cache["salmonella"] = (genome, r1.read_bytes(), r2.read_bytes())
    return _cache["salmonella"]


def monophasic_reads(reads_dir):
    """A monophasic Typhimurium (I 1,4,[5],12:i:-): the 330 cgMLST alleles of SISTR's
    reference genome SRR2156567, a B / i antigen set and no fljB; 400 kb, 30x."""
    if "monophasic" not in _cache:
        genome = salmonella_like(400_000, seed=21, genome=MONOPHASIC_GENOME,
                                 antigen_genes=MONOPHASIC_ANTIGENS, expected=MONOPHASIC)
        r1, r2 = reads_dir / "mono_R1.fastq", reads_dir / "mono_R2.fastq"
        simulate_reads(genome.sequence, 30.0, r1, r2, seed=121)
        _cache["monophasic"] = (genome, r1.read_bytes(), r2.read_bytes())
    return _cache["monophasic"]


def sistr_by_hand(contigs: Path, name: str, work: Path, full: bool) -> tuple[dict, dict]:
    """SISTR run directly (its environment's interpreter, the offline wrapper, the options
    the pipeline gives it), outside seqcore: its one prediction and its cgMLST profile."""
    out, profiles = work / f"{contigs.stem}.json", work / f"{contigs.stem}-profiles.csv"
    argv = [str(tool_environment_python(SISTR_ENVIRONMENT)), "-s", str(RUNNER), "--qc",
            "-i", str(contigs), name, "-f", "json", "-o", str(out), "-p", str(profiles),
            "-T", str(work / f"{contigs.stem}-tmp"), "-t", "1"]
    if full:
        argv.append("--use-full-cgmlst-db")
    subprocess.run(argv, check=True, capture_output=True, cwd=work)
    (prediction,) = json.loads(out.read_text())
    return prediction, cgmlst_profile(profiles.read_text())


def cgmlst_profile(text: str) -> dict[str, str]:
    """SISTR's cgMLST profiles CSV (a header of the 330 markers, one row per genome) as
    marker -> allele for its one genome (an empty cell: no allele placed)."""
    header, row = list(csv.reader(io.StringIO(text)))
    return dict(zip(header[1:], row[1:], strict=True))


def other_reads(reads_dir):
    """Not Salmonella: random DNA, 40 kb at 30x (the contract's size). The tests using it
    are about what happens around SISTR (a FAIL it reports, no write-back, a failing tool,
    parameter checks), none about the genome's size: a small genome keeps the real assembly
    and SISTR's run on it short."""
    if "other" not in _cache:
        genome = random_genome(40_000, seed=31, families=())
        r1, r2 = reads_dir / "other_R1.fastq", reads_dir / "other_R2.fastq"
        simulate_reads(genome.sequence, 30.0, r1, r2, seed=131)
        _cache["other"] = (genome, r1.read_bytes(), r2.read_bytes())
    return _cache["other"]


def links(body):
    return {link["rel"]: link["href"] for link in body["links"]}


def upload_pair(testapp, headers, sample, reads, name):
    """A real upload (multipart, as the IRIDA uploader sends it), then the processing worker
    (QC) as after any upload."""
    body, content_type = multipart([("file1", f"{name}_R1.fastq", reads[1], None),
                                    ("file2", f"{name}_R2.fastq", reads[2], None)])
    created = testapp.post(f"/api/samples/{sample.id}/pairs", body,
                           headers={**headers, "Content-Type": content_type}, status=201)
    return created.json["resource"]


def world(testapp, app_config, factories, reads, name):
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project, name=name)
    headers = factories.headers(owner)
    pair = upload_pair(testapp, headers, sample, reads, name)
    Worker(app_config.registry).run_until_idle()
    return owner, project, sample, int(pair["identifier"]), headers


def launch(testapp, headers, pair_id, parameters, write_back=True, name="typing",
           projects=()):
    return testapp.post_json(LAUNCH.format("serotyper"), {
        "name": name, "sequencingObjects": [pair_id], "writeResultsToSamples": write_back,
        "parameters": parameters, "projects": list(projects)}, headers=headers,
        status=201).json["resource"]


def run(app_config, timeout=600):
    AnalysisWorker(app_config.registry).run_until_idle(timeout=timeout)


def submission(testapp, headers, sid):
    return testapp.get(f"/api/analysisSubmissions/{sid}", headers=headers).json["resource"]


def outputs(testapp, headers, body, rels=RELS):
    analysis = testapp.get(links(body)["analysis"], headers=headers).json["resource"]
    found = links(analysis)
    assert set(found) >= rels
    return {rel.split("/", 1)[1]: testapp.get(
        found[rel], headers={**headers, "Accept": "text/plain"}).text for rel in rels}


def metadata(testapp, headers, sample):
    body = testapp.get(f"/api/samples/{sample.id}/metadata", headers=headers).json["resource"]
    return {field: entry["value"] for field, entry in body["metadata"].items()}


def provenance(db, sample):
    from sqlalchemy import select

    from seqcore.plugin import MetadataEntry

    db.expire_all()
    return dict(db.execute(select(MetadataEntry.field, MetadataEntry.submission_id)
                           .where(MetadataEntry.sample_id == sample.id)).all())


def fasta_records(text):
    records, name = {}, None
    for line in text.splitlines():
        if line.startswith(">"):
            name = line[1:]
            records[name] = ""
        elif name is not None:
            records[name] += line.strip()
    return records


# -- the whole pipeline ---------------------------------------------------------------------


def test_types_a_salmonella_like_genome(testapp, app_config, factories, db, reads_dir):
    """Full cgMLST database (the default): the serovar, serogroup and antigens of the genes
    used, every cgMLST locus found with the alleles used, SISTR's formats, write-back with
    provenance, the pair's links and IRIDA's names."""
    genome, *_ = data = salmonella_reads(reads_dir)
    _, project, sample, pair_id, headers = world(testapp, app_config, factories, data,
                                                 "salmonella-1")
    pair_url = f"/api/samples/{sample.id}/pairs/{pair_id}"
    assert "analysis/serotyper" not in links(testapp.get(pair_url, headers=headers).json[
        "resource"])
    created = launch(testapp, headers, pair_id, {"assembler": "megahit"},
                     projects=[project.id])
    assert created["workflowId"] == WORKFLOW_ID
    assert created["inputParameters"]["use_full_cgmlst_db"] in ("true", "True")
    assert created["inputParameters"]["min_contig_length"] == "500"
    run(app_config)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    files = outputs(testapp, headers, body, RELS | IRIDA_RELS)

    # Predictions: SISTR's JSON array of one genome, typed as the genes used.
    (prediction,) = json.loads(files["serotyper-predictions"])
    expected = genome.expected
    assert prediction["serovar"] == expected["serovar"]
    assert prediction["serovar_cgmlst"] == expected["serovar"]
    assert expected["serovar"] in prediction["serovar_antigen"].split("|")
    assert expected["serovar"] in expected_serovars(expected["serogroup"], expected["h1"],
                                                    expected["h2"])
    assert (prediction["serogroup"], prediction["h1"], prediction["h2"]) == (
        expected["serogroup"], expected["h1"], expected["h2"])
    assert prediction["o_antigen"] == expected["o_antigen"]
    assert prediction["antigenic_formula"] == "1,4,[5],12:i:1,2"
    assert prediction["genome"] == "salmonella-1"
    assert prediction["cgmlst_genome_match"] == expected["genome"]
    assert prediction["cgmlst_found_loci"] == 330
    assert prediction["cgmlst_matching_alleles"] >= 325
    assert prediction["qc_status"] in ("PASS", "WARNING")  # 400 kb is far below 4-6 Mb
    assert "genome size" in prediction["qc_messages"]
    assert isinstance(prediction["cgmlst_ST"], int)
    for nested in ("h1_flic_prediction", "h2_fljb_prediction", "serogroup_prediction"):
        assert isinstance(prediction[nested], dict)
    assert prediction["h1_flic_prediction"]["h1"] == "i"
    assert {"mash_genome", "mash_serovar", "mash_distance", "mash_subspecies"} <= set(
        prediction)  # --run-mash, as IRIDA ran it
    assert prediction["serogroup_prediction"]["serogroup"] == "B"

    # cgMLST profile: a CSV with an empty first header cell, the 330 markers, one row whose
    # allele numbers are those of the alleles used.
    rows = list(csv.reader(io.StringIO(files["serotyper-cgmlst"])))
    assert rows[0][0] == "" and len(rows[0]) == 331 and len(rows) == 2
    assert set(rows[0][1:]) == set(genome.alleles)
    profile = dict(zip(rows[0][1:], rows[1][1:], strict=True))
    assert rows[1][0] == "salmonella-1"
    same = sum(profile[m] == str(a) for m, a in genome.alleles.items())
    assert same >= 325, same

    # Alleles: {genome: {marker: {name, seq, blast_result}}}.
    alleles = json.loads(files["serotyper-alleles"])["salmonella-1"]
    assert set(alleles) == set(genome.alleles)
    some = next(iter(alleles.values()))
    assert {"name", "seq", "blast_result"} <= set(some)
    assert {"qseqid", "pident", "sseq", "is_perfect", "marker"} <= set(some["blast_result"])

    # Novel alleles: FASTA >marker|allele number.
    novel = fasta_records(files["serotyper-novel-alleles"])
    assert novel and all(h.split("|")[0] in genome.alleles and h.split("|")[1].isdigit()
                         for h in novel)

    # The assembly SISTR ran on (min length 500) and its statistics.
    contigs = fasta_records(files["assembly"])
    assert contigs and all(len(seq) >= 500 for seq in contigs.values())
    assert sum(len(s) for s in contigs.values()) >= 0.9 * len(genome)
    assert f"{sum(len(s) for s in contigs.values()):,}" in files["assembly-stats"]
    assert "# SISTR: sistr_cmd 1.1.3" in files["serotyper-log"]
    assert "--use-full-cgmlst-db" in files["serotyper-log"]
    assert "serovar Typhimurium" in files["serotyper-log"]
    # IRIDA's names are the same files.
    for key in OUTPUTS:
        if key.startswith("serotyper-"):
            assert files["sistr-" + key[len("serotyper-"):]] == files[key]

    # Accept: text/plain (irida-sistr-results) gives the JSON array itself.
    analysis = testapp.get(links(body)["analysis"], headers=headers).json["resource"]
    got = testapp.get(links(analysis)["outputFile/sistr-predictions"],
                      headers={**headers, "Accept": "text/plain"})
    assert got.content_type == "text/plain"
    assert isinstance(json.loads(got.text), list)

    # Written back, with the submission as provenance.
    values = metadata(testapp, headers, sample)
    assert values["serovar"] == "Typhimurium" and values["serogroup"] == "B"
    assert values["antigenic formula"] == "1,4,[5],12:i:1,2"
    assert values["cgMLST ST"] == str(prediction["cgmlst_ST"])
    assert values["SISTR QC status"] == prediction["qc_status"]
    written = provenance(db, sample)
    for field in ("serovar", "serogroup", "antigenic formula", "cgMLST ST", "SISTR QC status"):
        assert written[field] == int(body["identifier"])

    # The pair links to it under both names; the alias paths list it.
    pair_links = links(testapp.get(pair_url, headers=headers).json["resource"])
    for rel in ("analysis/serotyper", "analysis/sistr"):
        assert pair_links[rel].endswith(f"/api/analysisSubmissions/{body['identifier']}")
        # ... and the submission to its analysis, under both names too.
        assert links(body)[rel] == links(body)["analysis"]
    # The type answers under IRIDA's name as well.
    by_alias = testapp.get("/api/analysisTypes/sistr", headers=headers).json["resource"]
    assert by_alias["name"] == "serotyper"
    for path in ("/api/analysisSubmissions/analysisType/sistr",
                 f"/api/projects/{project.id}/analyses/sistr"):
        listed = testapp.get(path, headers=headers).json["resource"]["resources"]
        assert [s["identifier"] for s in listed] == [body["identifier"]]
    timings = json.loads((Path(body["remoteInputDataId"]) / "timings.json").read_text())
    assert set(timings) == {"merge", "assembly", "filter", "sistr"}


def test_monophasic_cgmlst_matches_a_direct_sistr_run(testapp, app_config, factories,
                                                      reads_dir, tmp_path):
    """A monophasic genome (I 1,4,[5],12:i:-, an allele at each of the 330 loci): seqcore's
    cgMLST result is SISTR's own on the same contigs, run by hand: every locus found, the
    same allele at each of the 330, and the same count of alleles matching the closest
    reference profile, which is below 330 because of how SISTR names alleles
    (docs/analyses/serotyper.md), not because seqcore loses any."""
    _genome, *_ = data = monophasic_reads(reads_dir)
    _, _, _, pair_id, headers = world(testapp, app_config, factories, data, "mono-1")
    created = launch(testapp, headers, pair_id, QUICK, write_back=False)
    run(app_config)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    files = outputs(testapp, headers, body)
    (prediction,) = json.loads(files["serotyper-predictions"])
    assert prediction["serovar"] == "I 1,4,[5],12:i:-"
    assert (prediction["h1"], prediction["h2"]) == ("i", "-")
    assert prediction["cgmlst_genome_match"] == MONOPHASIC_GENOME
    assert prediction["cgmlst_found_loci"] == 330

    typed = tmp_path / "typed.fasta"
    typed.write_text(files["assembly"])
    by_hand, by_hand_profile = sistr_by_hand(typed, "mono-1", tmp_path, full=False)
    fields = ("cgmlst_found_loci", "cgmlst_matching_alleles", "cgmlst_ST",
              "cgmlst_genome_match", "serovar", "h2")
    assert {f: prediction[f] for f in fields} == {f: by_hand[f] for f in fields}
    assert prediction["cgmlst_matching_alleles"] < 330
    # The same allele at every locus, not only the same counts: seqcore places what SISTR
    # places. The loci where that allele is not the genome's own are exactly those SISTR
    # names otherwise (a centroid inside a longer allele, a re-extracted allele's CRC32).
    profile = cgmlst_profile(files["serotyper-cgmlst"])
    assert len(profile) == 330 and all(profile.values())
    assert profile == by_hand_profile
    own = {marker: str(allele) for marker, allele in _genome.alleles.items()}
    renamed = sorted(m for m in profile if profile[m] != own[m])
    assert len(renamed) == 330 - prediction["cgmlst_matching_alleles"], renamed


def test_not_salmonella_completes_with_fail(testapp, app_config, factories, db, reads_dir):
    """SISTR cannot type random DNA: COMPLETED, QC status FAIL, saying so; the sample's
    metadata records FAIL, unknowns as '-'."""
    data = other_reads(reads_dir)
    _, _, sample, pair_id, headers = world(testapp, app_config, factories, data, "other-1")
    created = launch(testapp, headers, pair_id, QUICK)
    run(app_config)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    files = outputs(testapp, headers, body)
    (prediction,) = json.loads(files["serotyper-predictions"])
    assert prediction["qc_status"] == "FAIL"
    assert prediction["cgmlst_found_loci"] == 0
    assert "FAIL: Wzx/Wzy genes missing" in prediction["qc_messages"]
    assert "SISTR QC status FAIL" in files["serotyper-log"]
    assert "may not be Salmonella" in files["serotyper-log"]
    assert "--use-full-cgmlst-db" not in files["serotyper-log"]
    values = metadata(testapp, headers, sample)
    assert values["SISTR QC status"] == "FAIL"
    assert values["serogroup"] == "-" and values["cgMLST ST"] == "-"
    assert set(provenance(db, sample).values()) == {int(body["identifier"])}


def test_automated_typing_on_upload_writes_back(testapp, app_config, factories, db,
                                                reads_dir):
    """An automated serotyper run on upload writes back without being asked."""
    data = salmonella_reads(reads_dir)
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="auto-1")
    headers = factories.headers(owner)
    testapp.put_json(f"/api/projects/{project.id}/automatedAnalyses", {"analysisTypes": [
        {"type": "sistr", "parameters": QUICK}]}, headers=headers)
    upload_pair(testapp, headers, sample, data, "auto-1")
    Worker(app_config.registry).run_until_idle()
    run(app_config)
    (entry,) = testapp.get(f"/api/projects/{project.id}/analyses/serotyper",
                           headers=headers).json["resource"]["resources"]
    assert entry["analysisState"] == "COMPLETED"
    values = metadata(testapp, headers, sample)
    assert values["serovar"] == "Typhimurium"
    assert values["antigenic formula"] == "1,4,[5],12:i:1,2"
    assert set(provenance(db, sample).values()) == {int(entry["identifier"])}


def test_not_asked_leaves_the_sample_alone(testapp, app_config, factories, reads_dir):
    data = other_reads(reads_dir)
    _, _, sample, pair_id, headers = world(testapp, app_config, factories, data, "other-2")
    created = launch(testapp, headers, pair_id, QUICK, write_back=False)
    run(app_config)
    assert submission(testapp, headers, created["identifier"])["analysisState"] == "COMPLETED"
    assert metadata(testapp, headers, sample) == {}


# -- failures -------------------------------------------------------------------------------


def fake_tool(tmp_path, monkeypatch, name, script):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    tool = bin_dir / name
    tool.write_text("#!/bin/sh\n" + script)
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")


def test_a_failing_tool_is_an_error_with_the_reason(testapp, app_config, factories,
                                                    reads_dir, tmp_path, monkeypatch):
    """BLAST failing inside SISTR: ERROR, naming SISTR and what went wrong."""
    data = other_reads(reads_dir)
    _, _, sample, pair_id, headers = world(testapp, app_config, factories, data, "broken-1")
    fake_tool(tmp_path, monkeypatch, "makeblastdb",
              'echo "BLAST Database error: cannot write the database" >&2; exit 2')
    created = launch(testapp, headers, pair_id, QUICK)
    run(app_config)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "ERROR"
    assert body["analysisError"].startswith(
        "SISTR failed with exit code 1: makeblastdb was not able to create a BLAST DB")
    assert "BLAST Database error: cannot write the database" in body["analysisError"]
    assert metadata(testapp, headers, sample) == {}


def test_parameters_are_checked(testapp, app_config, factories, reads_dir):
    data = other_reads(reads_dir)
    _, _, _, pair_id, headers = world(testapp, app_config, factories, data, "params-1")
    res = testapp.post_json(LAUNCH.format("serotyper"), {
        "sequencingObjects": [pair_id], "parameters": {"use_full_cgmlst_db": "maybe",
                                                       "assembler": "velvet"}},
        headers=headers, status=400).json
    assert "parameters.use_full_cgmlst_db" in json.dumps(res)
    assert "parameters.assembler" in json.dumps(res)
    created = launch(testapp, headers, pair_id, {"read_merge_min_overlap": 200,
                                                 "read_merge_max_overlap": 100})
    run(app_config, timeout=60)
    body = submission(testapp, headers, created["identifier"])
    assert body["analysisState"] == "ERROR"
    assert "read_merge_min_overlap is larger" in body["analysisError"]


# -- readiness and the database -------------------------------------------------------------


def test_readiness_reports_sistr_and_its_database(testapp, factories):
    headers = factories.headers(factories.user())
    for info in [testapp.get("/api/analysisTypes/serotyper", headers=headers).json[
            "resource"]]:
        assert info["name"] == "serotyper" and info["aliases"] == ["sistr"]
        assert info["ready"] is True
        tools = {t["name"]: t for t in info["tools"]}
        assert tools["SISTR"]["version"] == "1.1.3"
        assert tools["BLAST+"]["version"].startswith("2.")
        assert tools["MAFFT"]["version"] and tools["Mash"]["version"] == "2.3"
        assert {"FLASH", "SPAdes", "MEGAHIT"} <= set(tools)
        defaults = {p["name"]: p["default"] for p in info["parameters"]}
        assert defaults["use_full_cgmlst_db"] is True and defaults["min_contig_length"] == 500
        assert defaults["assembler"] == "spades" and defaults["run_mash"] is True


def sistr_without_marker(tmp_path):
    """A copy of the installed sistr package (its files linked) without dbstatus.txt: what
    sistr_cmd takes as 'no database, download it'."""
    copy = tmp_path / "site" / "sistr"
    copy.mkdir(parents=True)
    for entry in sistr_root().iterdir():
        if entry.name not in ("dbstatus.txt", "__pycache__"):
            (copy / entry.name).symlink_to(entry)
    return copy


def test_a_missing_database_makes_the_type_not_ready(tmp_path):
    assert database_problem(sistr_root()) is None
    assert readiness(serotyper_type())[0] is True
    copy = sistr_without_marker(tmp_path)
    problem = database_problem(copy)
    assert "missing dbstatus.txt" in problem and "would try to download" in problem
    assert "missing" in database_problem(tmp_path / "empty")
    analysis_type = serotyper_type(copy)
    ready, states = readiness(analysis_type)
    assert not ready
    message = not_ready_message(analysis_type, states)
    assert "SISTR" in message and "missing dbstatus.txt" in message
    assert "seqcore tools install --force sistr_cmd-1.1.3" in message


def test_sistr_never_downloads(tmp_path):
    """With the marker gone, the job wrapper refuses before SISTR starts: exit 3, the reason,
    and no download left behind."""
    copy = sistr_without_marker(tmp_path)
    fasta = tmp_path / "x.fasta"
    fasta.write_text(">x\n" + "ACGT" * 300 + "\n")
    env = {**os.environ, "PYTHONPATH": str(copy.parent)}
    python = str(tool_environment_python(SISTR_ENVIRONMENT))
    done = subprocess.run([python, "-s", str(RUNNER), "-i",
                           str(fasta), "x", "-f", "json", "-o", str(tmp_path / "p.json")],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    assert done.returncode == 3, done.stderr
    assert "dbstatus.txt" in done.stderr
    assert not (copy / "data.tar.gz").exists() and not (tmp_path / "p.json").exists()
    # Even past the check, sistr_cmd's download functions are disabled.
    code = (f"import sys; sys.argv=['x']; sys.path.insert(0, {str(RUNNER.parent)!r}); "
            "import sistr_runner as r; "
            "from sistr import sistr_cmd as s; s.setup_sistr_dbs = r._refuse; "
            "s.setup_sistr_dbs()")
    done = subprocess.run([python, "-s", "-c", code], capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode != 0 and "offline only" in done.stderr
