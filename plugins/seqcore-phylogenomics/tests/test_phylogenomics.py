"""Phylogenomics: reference files, launching with a checked reference, and the real pipeline
on generated isolates with a known tree and known SNVs."""

import itertools
import os
import re
import stat

import pytest
from newick import robinson_foulds

from seqcore.plugin import AnalysisSubmission, ProjectRole, SequenceFile
from seqcore.testing.contracts import AnalysisPluginContract, stored_files
from seqcore.testing.uploads import fasta, fastq, gz, multipart
from seqcore.testing.workers import AnalysisWorker, create_automated_submission
from seqcore.testing.workers import clear_readiness_cache as clear_cache
from seqcore_phylogenomics.models import ReferenceFile, SubmissionReference

LAUNCH = "/api/analysisSubmissions/phylogenomics"
GENERIC = "/api/analysisSubmissions/analysisType/phylogenomics"
RELS = {"outputFile/tree", "outputFile/matrix", "outputFile/table", "outputFile/filter-stats",
        "outputFile/mapping-quality", "outputFile/tree-stats", "outputFile/alignment",
        "outputFile/core"}


class TestPhylogenomicsContract(AnalysisPluginContract):
    analysis_type = "phylogenomics"
    output_rels = RELS
    migration_branch = "phylogenomics"
    launch_path = LAUNCH

    def _truth(self):
        """Three isolates on a 60 kb reference, reads at 30x (made once per test)."""
        if not hasattr(self, "_made"):
            import tempfile
            from pathlib import Path

            import simulate

            truth = simulate.make_truth(length=60_000, seed=11, families=(),
                                        snvs_in_repeats=0, deletion=None)
            with tempfile.TemporaryDirectory() as tmp:
                root = Path(tmp)
                simulate.write_fasta(truth.reference, root / "reference.fasta")
                reads = []
                for i, name in enumerate(truth.names[:3]):
                    r1, r2 = root / f"{name}_R1.fastq", root / f"{name}_R2.fastq"
                    simulate.simulate_reads(truth.genomes[name], 30, r1, r2, seed=200 + i)
                    reads.append([(r1.name, r1.read_bytes()), (r2.name, r2.read_bytes())])
                self._made = ((root / "reference.fasta").read_bytes(), reads)
        return self._made

    def sample_data(self, kind):
        return self._truth()[1]

    def launch_body(self, testapp, headers, project, samples):
        ref = upload_reference(testapp, project, headers, self._truth()[0], "reference.fasta")
        return {"parameters": {"reference": ref.json["resource"]["reference"]}}


def links(body):
    return {link["rel"]: link["href"] for link in body["links"]}


def upload_reference(testapp, project, headers, content=None, name="ref.fasta", status=201):
    body, content_type = multipart([("file", name, content or fasta(2, 500), None)])
    return testapp.post(f"/api/projects/{project.id}/referenceFiles", body,
                        headers={**headers, "Content-Type": content_type}, status=status)


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    stranger = factories.user(username="stranger")
    project = factories.project(owner=owner, members=[(member, ProjectRole.USER)])
    samples = [factories.sample(project, name=f"s{i}") for i in range(2)]
    pairs = [factories.sequencing_object(s, "pairs") for s in samples]
    return {"owner": owner, "member": member, "stranger": stranger, "project": project,
            "samples": samples, "pairs": pairs, "headers": factories.headers(owner),
            "member_headers": factories.headers(member),
            "stranger_headers": factories.headers(stranger)}


# -- reference files -------------------------------------------------------------------------

def test_reference_files_upload_list_download(testapp, world):
    project, headers = world["project"], world["headers"]
    content = fasta(2, 500)
    res = upload_reference(testapp, project, headers, content)
    body = res.json["resource"]
    assert res.headers["Location"] == links(body)["self"]
    assert body["fileName"] == "ref.fasta" and body["fileLength"] == 1000
    assert body["reference"] == f"referenceFile:{body['identifier']}"
    listed = testapp.get(f"/api/projects/{project.id}/referenceFiles",
                         headers=world["member_headers"]).json["resource"]
    assert listed["resources"] == [body]
    assert "project" in links(listed)
    got = testapp.get(res.headers["Location"],
                      headers={**world["member_headers"], "Accept": "application/fasta"})
    assert got.body == content and got.content_type == "application/fasta"
    project_links = links(testapp.get(f"/api/projects/{project.id}", headers=headers).json[
        "resource"])
    assert project_links["project/referenceFiles"].endswith(
        f"/api/projects/{project.id}/referenceFiles")


def test_gzipped_references_are_read(testapp, world):
    body = upload_reference(testapp, world["project"], world["headers"], gz(fasta(3, 400)),
                            name="ref.fasta.gz").json["resource"]
    assert body["fileLength"] == 1200


def test_reference_files_follow_the_project_acl(testapp, world, db):
    project = world["project"]
    url = upload_reference(testapp, project, world["headers"]).headers["Location"]
    upload_reference(testapp, project, world["member_headers"], status=403)
    testapp.delete(url, headers=world["member_headers"], status=403)
    testapp.get(f"/api/projects/{project.id}/referenceFiles",
                headers=world["stranger_headers"], status=404)
    testapp.get(url, headers=world["stranger_headers"], status=404)
    testapp.delete(url, headers=world["headers"])
    testapp.get(url, headers=world["headers"], status=404)
    assert db.query(ReferenceFile).count() == 0


def test_reference_files_go_with_their_project(testapp, world, db, app_config):
    project = world["project"]
    upload_reference(testapp, project, world["headers"], name="gone.fasta")
    testapp.delete(f"/api/projects/{project.id}", headers=world["headers"])
    assert db.query(ReferenceFile).count() == 0
    assert db.query(SequenceFile).filter(SequenceFile.file_name == "gone.fasta").count() == 0
    storage = app_config.get_settings()["seqcore.storage.path"]
    assert not [p for p in stored_files(storage) if p.name == "gone.fasta"]


@pytest.mark.parametrize(("content", "message"), [
    (fastq(), "not FASTA"),
    (b">contig1\nACGT\n12345\n", "not a sequence line"),
    (b">contig1\n>contig2\nACGT\n", "without sequence"),
])
def test_bad_references_leave_nothing(testapp, world, db, app_config, content, message):
    res = upload_reference(testapp, world["project"], world["headers"], content, status=400)
    assert message in res.json["message"]
    assert db.query(ReferenceFile).count() == 0 and db.query(SequenceFile).filter(
        SequenceFile.file_name == "ref.fasta").count() == 0
    storage = app_config.get_settings()["seqcore.storage.path"]
    assert not [p for p in stored_files(storage) if p.name == "ref.fasta"]


# -- launching -------------------------------------------------------------------------------

def _launch(testapp, headers, status=201, path=LAUNCH, **body):
    return testapp.post_json(path, body, headers=headers, status=status)


@pytest.mark.parametrize(("parameters", "field", "text"), [
    ({}, "parameters.reference", "required"),
    ({"reference": "genome.fasta"}, "parameters.reference", "referenceFile:<id>"),
    ({"reference": "referenceFile:999999"}, "parameters.reference", "no reference file"),
    ({"reference": "assembly:999999"}, "parameters.reference", "no assembly"),
    # ids beyond what an id column holds, and digits int() reads but ids are not written in
    ({"reference": "referenceFile:999999999999999999"}, "parameters.reference",
     "no reference file"),
    ({"reference": "assembly:2147483648"}, "parameters.reference", "no assembly"),
    ({"reference": "referenceFile:\u0661"}, "parameters.reference", "referenceFile:<id>"),
    ({"reference": "REF", "snv-abundance-ratio": 2}, "parameters.snv-abundance-ratio",
     "at most"),
    ({"reference": "REF", "minimum-read-coverage": 0}, "parameters.minimum-read-coverage",
     "at least"),
    ({"reference": "REF", "mapper": "bowtie"}, "parameters.mapper", "one of"),
])
@pytest.mark.parametrize("path", [LAUNCH, GENERIC])
def test_bad_launches_are_refused(testapp, world, db, parameters, field, text, path):
    ref_id = upload_reference(testapp, world["project"], world["headers"]).json["resource"][
        "identifier"]
    if parameters.get("reference") == "REF":
        parameters = {**parameters, "reference": f"referenceFile:{ref_id}"}
    res = _launch(testapp, world["headers"], status=400, parameters=parameters,
                  sequencingObjects=[p.id for p in world["pairs"]], path=path)
    assert field in res.json and text in " ".join(res.json[field]), res.json
    assert db.query(AnalysisSubmission).count() == 0
    assert db.query(SubmissionReference).count() == 0


@pytest.mark.parametrize("body", [
    {"parameters": {"reference": "genome.fasta"}},
    {"parameters": {"reference": "referenceFile:999999"}, "priority": ["HIGH"]},
    {"parameters": {"reference": "assembly:1", "mapper": "bowtie"}, "samples": "all"},
    {"parameters": {}, "writeResultsToSamples": True},
    {"parameters": "reference", "name": "x" * 300},
    {"parameters": {"reference": "referenceFile:1"}, "unknown": 1},
])
def test_the_alias_and_the_generic_path_answer_alike(testapp, world, db, body):
    body = {"sequencingObjects": [p.id for p in world["pairs"]], **body}
    old = _launch(testapp, world["headers"], status=400, **body)
    new = _launch(testapp, world["headers"], status=400, path=GENERIC, **body)
    assert new.json == old.json
    assert db.query(AnalysisSubmission).count() == 0


def test_reference_problems_come_with_the_others(testapp, world):
    res = _launch(testapp, world["headers"], status=400,
                  parameters={"reference": "x", "minimum-read-coverage": "many"},
                  sequencingObjects=[999999])
    assert set(res.json) == {"parameters.reference", "parameters.minimum-read-coverage",
                             "sequencingObjects"}


def test_a_reference_the_caller_cannot_read_does_not_exist(testapp, world, factories, db):
    other = factories.project(owner=world["stranger"])
    ref_id = upload_reference(testapp, other, world["stranger_headers"]).json["resource"][
        "identifier"]
    res = _launch(testapp, world["headers"], status=400,
                  parameters={"reference": f"referenceFile:{ref_id}"},
                  sequencingObjects=[p.id for p in world["pairs"]])
    assert res.json["parameters.reference"] == [f"There is no reference file {ref_id}."]
    assert db.query(AnalysisSubmission).count() == 0


def test_one_isolate_is_refused_and_nothing_is_saved(testapp, world, db):
    ref_id = upload_reference(testapp, world["project"], world["headers"]).json["resource"][
        "identifier"]
    res = _launch(testapp, world["headers"], status=400,
                  parameters={"reference": f"referenceFile:{ref_id}"},
                  sequencingObjects=[world["pairs"][0].id])
    assert "at least two samples" in res.json["samples"][0]
    assert db.query(AnalysisSubmission).count() == 0
    assert db.query(SubmissionReference).count() == 0


def test_members_launch_with_the_project_reference(testapp, world, db):
    ref_id = upload_reference(testapp, world["project"], world["headers"]).json["resource"][
        "identifier"]
    res = _launch(testapp, world["member_headers"],
                  parameters={"reference": f"referenceFile:{ref_id}"},
                  samples=[s.id for s in world["samples"]])
    body = res.json["resource"]
    assert body["analysisState"] == "NEW" and body["analysisType"] == "phylogenomics"
    assert body["inputParameters"]["reference"] == f"referenceFile:{ref_id}"
    assert body["inputParameters"]["minimum-read-coverage"] == "15"
    assert body["inputParameters"]["snv-abundance-ratio"] == "0.75"
    assert body["inputParameters"]["run-density-filter"] == "true"
    assert res.headers["Location"] == links(body)["self"]
    row = db.get(SubmissionReference, int(body["identifier"]))
    assert row.reference == f"referenceFile:{ref_id}" and row.path.endswith("ref.fasta")


def test_the_generic_path_checks_and_records_the_reference(testapp, world, db):
    ref_id = upload_reference(testapp, world["project"], world["headers"]).json["resource"][
        "identifier"]
    res = _launch(testapp, world["member_headers"], path=GENERIC,
                  parameters={"reference": f"referenceFile:{ref_id}"},
                  samples=[s.id for s in world["samples"]])
    body = res.json["resource"]
    assert body["analysisState"] == "NEW"
    assert body["inputParameters"]["reference"] == f"referenceFile:{ref_id}"
    assert res.headers["Location"] == links(body)["self"]
    row = db.get(SubmissionReference, int(body["identifier"]))
    assert row.reference == f"referenceFile:{ref_id}" and row.path.endswith("ref.fasta")


def test_one_isolate_is_refused_on_the_generic_path(testapp, world, db):
    ref_id = upload_reference(testapp, world["project"], world["headers"]).json["resource"][
        "identifier"]
    res = _launch(testapp, world["headers"], status=400, path=GENERIC,
                  parameters={"reference": f"referenceFile:{ref_id}"},
                  sequencingObjects=[world["pairs"][0].id])
    assert "at least two samples" in res.json["samples"][0]
    assert db.query(AnalysisSubmission).count() == 0


def test_a_submission_without_a_resolved_reference_fails_with_a_reason(app_config, world, db):
    """A submission created without the launch check (as automated analyses are) has no
    reference for the pipeline, which says how to launch instead."""
    submission = create_automated_submission(
        app_config.registry, db, "phylogenomics", inputs=world["pairs"],
        parameters={"reference": "referenceFile:1"}, name="unchecked")
    submission_id = submission.id
    db.commit()
    AnalysisWorker(app_config.registry).run_until_idle(timeout=120)
    db.expire_all()
    submission = db.get(AnalysisSubmission, submission_id)
    assert submission.state == "ERROR"
    assert GENERIC in submission.error


# -- the real pipeline -----------------------------------------------------------------------

def _isolates(factories, project, dataset, names=None, coverage_fraction=None):
    samples, pairs = {}, {}
    for name in names or dataset["truth"].names:
        r1, r2 = dataset["reads"][name]
        if coverage_fraction and name in coverage_fraction:
            r1, r2 = (_first_records(r, coverage_fraction[name]) for r in (r1, r2))
        sample = factories.sample(project, name=name)
        samples[name] = sample
        pairs[name] = factories.sequencing_object(
            sample, "pairs", files=[(f"{name}_R1.fastq", r1), (f"{name}_R2.fastq", r2)])
    return samples, pairs


def _first_records(fastq_bytes, fraction):
    lines = fastq_bytes.split(b"\n")
    keep = int(len(lines) // 4 * fraction) * 4
    return b"\n".join(lines[:keep]) + b"\n"


def _outputs(testapp, headers, submission_url):
    body = testapp.get(submission_url, headers=headers).json["resource"]
    assert body["analysisState"] == "COMPLETED", body.get("analysisError")
    analysis = testapp.get(links(body)["analysis"], headers=headers).json["resource"]
    rels = links(analysis)
    assert set(rels) >= RELS
    return {rel.split("/", 1)[1]: testapp.get(href, headers={**headers,
                                                             "Accept": "text/plain"}).text
            for rel, href in rels.items() if rel.startswith("outputFile/")}


def test_known_snvs_matrix_and_tree(testapp, app_config, factories, dataset):
    truth = dataset["truth"]
    owner = factories.user()
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    samples, _ = _isolates(factories, project, dataset)
    ref = upload_reference(testapp, project, headers, dataset["reference"], "genome.fasta")
    res = _launch(testapp, headers, name="tree of five", path=GENERIC,
                  parameters={"reference": ref.json["resource"]["reference"]},
                  samples=[s.id for s in samples.values()], projects=[project.id])
    AnalysisWorker(app_config.registry).run_until_idle(timeout=240)
    out = _outputs(testapp, headers, res.headers["Location"])

    rows = [line.split("\t") for line in out["table"].splitlines()]
    assert rows[0] == ["#Chromosome", "Position", "Status", "Reference", *truth.names]
    by_position = {int(r[1]): r for r in rows[1:]}
    statuses = {r[2] for r in rows[1:]}
    assert statuses <= {"valid", "filtered-coverage", "filtered-mpileup", "filtered-invalid"}
    valid = {pos: dict(zip(truth.names, r[4:], strict=True))
             for pos, r in by_position.items() if r[2] == "valid"}
    expected = truth.expected_valid()
    assert valid == expected  # precision and recall 1.0, with the right bases
    in_repeats = [p for p in truth.snvs if truth.in_repeat(p)]
    assert in_repeats and all(by_position[p + 1][2] == "filtered-invalid" for p in in_repeats)
    deleted = [p for p in truth.snvs if truth.in_deletion(p)]
    lacking = truth.deletion[0]
    assert deleted
    for p in deleted:
        row = by_position[p + 1]
        assert row[2] == "filtered-coverage"
        assert row[4 + truth.names.index(lacking)] == "-"

    matrix = [line.split("\t") for line in out["matrix"].splitlines()]
    labels = ["reference", *truth.names]
    want = truth.expected_matrix()
    # SNVPhyl's snv_matrix.pl order: the name-ordered pairs (a <= b), stably sorted by
    # descending distance, each placing its labels when first seen.
    pairs = sorted(itertools.combinations_with_replacement(sorted(labels), 2),
                   key=lambda pair: -want[pair])
    order = list(dict.fromkeys(label for pair in pairs for label in pair))
    assert matrix[0] == ["strain", *order, ""]
    assert [row[0] for row in matrix[1:]] == order
    for row in matrix[1:]:
        assert row[-1] == ""
        for other, value in zip(order, row[1:-1], strict=True):
            assert int(value) == want[row[0], other], (row[0], other)

    assert robinson_foulds(out["tree"], f"(reference,{truth.newick.rstrip(';')});") == 0
    alignment = out["alignment"].splitlines()
    assert alignment[0] == f"{len(labels)} {len(expected)}"
    assert "MINIMUM DEPTH: 15" in out["mapping-quality"]
    assert " : " not in out["mapping-quality"]  # every isolate maps well
    assert f"Number of sites used to generate phylogeny: {len(expected)}" in out[
        "filter-stats"]
    # filterStats.txt as SNVPhyl's filter-stats.pl -a writes it from the table: isolates by
    # descending count of N and -, then name.
    header, *rows = [line.split("\t") for line in out["table"].splitlines()]
    missing = {n: sum(r[4 + i] in ("N", "-") for r in rows) for i, n in enumerate(header[4:])}
    order = sorted(header[4:], key=lambda n: (-missing[n], n))
    stats = out["filter-stats"].splitlines()
    assert stats[:2] == ["Chromosome\tGenomes", "\t".join(["chromosome", "ALL", *order])]
    assert stats[2].split("\t")[2:] == [str(missing[n]) for n in order]
    assert stats[4] == f"Total number of unfiltered variants in chromosome: {len(rows)}"
    assert stats[-1] == f"Invalid filtered: {sum(r[2] == 'filtered-invalid' for r in rows)}"
    core = [line.split("\t") for line in out["core"].splitlines()]
    assert [r[0] for r in core] == ["#Reference name", "chromosome", "all"]
    assert core[-1][:2] == ["all", str(truth.reference.size)] and int(core[-1][2]) > 0
    assert "Log-likelihood" in out["tree-stats"] or "likelihood" in out["tree-stats"].lower()


def test_assembly_reference_low_coverage_isolate_fasttree_bwa(testapp, app_config, factories,
                                                              dataset):
    """An assembly as the reference; one isolate at a quarter of the reads is reported in
    mappingQuality.txt and the run completes, as SNVPhyl's does."""
    truth = dataset["truth"]
    owner = factories.user()
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    names = truth.names[:3]
    samples, _ = _isolates(factories, project, dataset, names, {names[2]: 0.25})
    body, content_type = multipart([("file", "assembly.fasta", dataset["reference"], None)])
    assembly = testapp.post(f"/api/samples/{samples[names[0]].id}/assemblies", body,
                            headers={**headers, "Content-Type": content_type}).json["resource"]
    res = _launch(testapp, headers, parameters={
        "reference": f"assembly:{assembly['identifier']}", "mapper": "bwa",
        "tree": "fasttree", "minimum-percent-coverage": 90},
        samples=[s.id for s in samples.values()])
    AnalysisWorker(app_config.registry).run_until_idle(timeout=240)
    out = _outputs(testapp, headers, res.headers["Location"])
    low = [line for line in out["mapping-quality"].splitlines() if " : " in line]
    assert len(low) == 1 and low[0].startswith(f"{names[2]} : ")
    assert float(low[0].split(" : ")[1].rstrip("%")) < 90
    rows = [line.split("\t") for line in out["table"].splitlines()[1:]]
    assert any(r[2] == "filtered-coverage" for r in rows)
    assert out["tree"].strip().endswith(";")


def test_a_failing_tool_gives_error_and_no_outputs(testapp, app_config, factories, dataset,
                                                   tmp_path, monkeypatch, db):
    owner = factories.user()
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    names = dataset["truth"].names[:2]
    samples, _ = _isolates(factories, project, dataset, names)
    ref = upload_reference(testapp, project, headers, dataset["reference"])
    res = _launch(testapp, headers, parameters={"reference": ref.json["resource"]["reference"]},
                  samples=[s.id for s in samples.values()])
    fake = tmp_path / "bin" / "nucmer"
    fake.parent.mkdir()
    fake.write_text("#!/bin/sh\necho 'nucmer: out of memory' >&2\nexit 3\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    try:
        AnalysisWorker(app_config.registry).run_until_idle(timeout=240)
    finally:
        clear_cache()
    body = testapp.get(res.headers["Location"], headers=headers).json["resource"]
    assert body["analysisState"] == "ERROR"
    assert "nucmer failed" in body["analysisError"] and "out of memory" in body[
        "analysisError"]
    assert db.get(AnalysisSubmission, int(body["identifier"])).outputs == []


GRAPHQL_LAUNCH = """
mutation($input: LaunchAnalysisInput!) {
  launchAnalysis(input: $input) { submission { id state } errors { message path } }
}
"""


def test_graphql_launches_check_the_reference(graphql, testapp, world, db):
    ref_id = upload_reference(testapp, world["project"], world["headers"]).json["resource"][
        "identifier"]
    graphql.as_user(world["member"])
    samples = [f"gid://seqcore/Sample/{s.id}" for s in world["samples"]]
    payload = graphql(GRAPHQL_LAUNCH, {"input": {
        "analysisType": "phylogenomics", "sampleIds": samples,
        "parameters": {"reference": "referenceFile:999999"}}})["data"]["launchAnalysis"]
    assert payload["errors"] == [{"message": "There is no reference file 999999.",
                                  "path": ["parameters", "reference"]}]
    assert db.query(AnalysisSubmission).count() == 0
    payload = graphql(GRAPHQL_LAUNCH, {"input": {
        "analysisType": "phylogenomics", "sampleIds": samples,
        "parameters": {"reference": f"referenceFile:{ref_id}"}}})["data"]["launchAnalysis"]
    assert payload["errors"] == [] and payload["submission"]["state"] == "NEW"
    row = db.query(SubmissionReference).one()
    assert row.reference == f"referenceFile:{ref_id}" and row.path.endswith("ref.fasta")


def test_deleting_a_submission_removes_its_reference_row_not_the_file(testapp, world, db,
                                                                      engine, app_config):
    from seqcore.testing.consistency import check_consistency

    ref_id = upload_reference(testapp, world["project"], world["headers"]).json["resource"][
        "identifier"]
    body = _launch(testapp, world["member_headers"],
                   parameters={"reference": f"referenceFile:{ref_id}"},
                   samples=[s.id for s in world["samples"]]).json["resource"]
    submission_id = int(body["identifier"])
    # Shared with no project, the submission is hidden from the project's owner (404);
    # its submitter deletes it.
    testapp.delete(f"/api/analysisSubmissions/{submission_id}",
                   headers=world["headers"], status=404)
    testapp.delete(f"/api/analysisSubmissions/{submission_id}",
                   headers=world["member_headers"])
    db.expire_all()
    assert db.get(SubmissionReference, submission_id) is None
    assert db.get(AnalysisSubmission, submission_id) is None
    assert db.query(ReferenceFile).count() == 1
    testapp.get(f"/api/projects/{world['project'].id}/referenceFiles/{ref_id}",
                headers=world["headers"])
    report = check_consistency(engine, app_config.get_settings()["seqcore.storage.path"])
    assert not report, report.problems


def test_readiness_reports_clean_version_numbers(testapp, world):
    """/api/analysisTypes gives each tool's version as a number (BWA's only in its usage
    text, PhyML's behind Debian's MPI wrapper, nucmer's after a banner)."""
    clear_cache()
    info = testapp.get("/api/analysisTypes/phylogenomics", headers=world["headers"]).json[
        "resource"]
    tools = {t["name"]: t for t in info["tools"]}
    for name in ("BWA", "PhyML", "MUMmer (nucmer)", "minimap2", "SAMtools", "SMALT",
                 "BCFtools", "FreeBayes", "FastTree"):
        assert tools[name]["path"], name
        assert re.fullmatch(r"\d+(\.\d+)+(-r\d+)?", tools[name]["version"] or ""), tools[name]
    assert tools["BWA"]["version"].startswith("0.7.")
    assert tools["MUMmer (nucmer)"]["version"] == "3.1"
    # show-coords prints no version at all: none is reported rather than a stray number.
    assert tools["MUMmer (show-coords)"]["version"] is None


def test_a_reference_in_an_object_store_is_staged_for_the_job(request, build_app, factories,
                                                              db, tmp_path):
    """On an object store the launch keeps the reference's key, and the job gets a copy
    staged into its own directory: no path of a storage directory reaches the pipeline."""
    import json
    from pathlib import Path

    import simulate

    from seqcore.plugin import IStorage, registry_service

    server = request.getfixturevalue("s3_server")
    app = build_app(**server.settings())
    registry = app.app.app.registry
    storage = registry_service(registry, IStorage)
    truth = simulate.make_truth(length=60_000, seed=11, families=(), snvs_in_repeats=0,
                                deletion=None)
    simulate.write_fasta(truth.reference, tmp_path / "reference.fasta")
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    reference = upload_reference(app, project, headers,
                                 (tmp_path / "reference.fasta").read_bytes(), "reference.fasta")
    pairs = []
    for i, name in enumerate(truth.names[:2]):
        r1, r2 = tmp_path / f"{name}_R1.fastq", tmp_path / f"{name}_R2.fastq"
        simulate.simulate_reads(truth.genomes[name], 20, r1, r2, seed=300 + i)
        sample = factories.sample(project, name=name)
        body, content_type = multipart([("file1", r1.name, r1.read_bytes(), None),
                                        ("file2", r2.name, r2.read_bytes(), None)])
        res = app.post(f"/api/samples/{sample.id}/pairs", body,
                       headers={**headers, "Content-Type": content_type}, status=201)
        pairs.append(int(res.headers["Location"].rsplit("/", 1)[-1]))
    res = app.post_json(GENERIC, {"name": "tree", "sequencingObjects": pairs, "parameters": {
        "reference": reference.json["resource"]["reference"], "minimum-read-coverage": 5,
        "tree": "fasttree"}}, headers=headers, status=201)
    row = db.get(SubmissionReference, int(res.json["resource"]["identifier"]))
    assert not Path(row.path).is_absolute() and storage.size(row.path) is not None
    AnalysisWorker(registry).run_until_idle(timeout=300)
    db.expire_all()
    submission = db.get(AnalysisSubmission, int(res.json["resource"]["identifier"]))
    assert submission.state == "COMPLETED", submission.error
    job = json.loads((Path(submission.work_dir) / "job.json").read_text())
    staged = Path(job["data"]["path"])
    assert staged.is_relative_to(Path(submission.work_dir) / "inputs")
    assert staged.read_bytes() == (tmp_path / "reference.fasta").read_bytes()
    assert not str(staged).startswith(str(storage.root))
