import pytest

from seqcore.plugin import SequenceFile
from seqcore.testing.contracts import stored_files
from seqcore.testing.uploads import fasta, fastq, gz, multipart, parameters
from seqcore_assemblies.models import Assembly
from seqcore_assemblies.plugin import human_size


@pytest.fixture
def world(factories):
    owner = factories.user()
    project = factories.project(owner=owner)
    return project, factories.sample(project), factories.headers(owner)


def upload(testapp, sample, headers, parts, status=201):
    body, content_type = multipart(parts)
    return testapp.post(f"/api/samples/{sample.id}/assemblies", body,
                        headers={**headers, "Content-Type": content_type}, status=status)


def test_upload_list_download(testapp, world):
    _, sample, headers = world
    contigs = fasta(contigs=4, length=500)
    res = upload(testapp, sample, headers, [("file", "/data/asm/contigs.fasta", contigs, None),
                                            parameters(miseqRunId="7")])
    body = res.json["resource"]
    assert res.headers["Location"] == body["links"][0]["href"]
    assert body["fileName"] == body["label"] == "contigs.fasta"
    assert body["fileSizeBytes"] == len(contigs)
    assert body["fileSize"] == human_size(len(contigs))
    assert [link["rel"] for link in body["links"]] == ["self"]
    listed = testapp.get(f"/api/samples/{sample.id}/assemblies", headers=headers).json
    assert listed["resource"]["resources"] == [body]
    assert {link["rel"] for link in listed["resource"]["links"]} == {"self", "sample"}
    got = testapp.get(res.headers["Location"], headers={**headers, "Accept": "application/fasta"})
    assert got.body == contigs
    assert got.content_type == "application/fasta"
    sample_links = testapp.get(f"/api/samples/{sample.id}", headers=headers).json["resource"]
    assert "sample/assemblies" in {link["rel"] for link in sample_links["links"]}


@pytest.mark.parametrize(("parts", "message"), [
    ([("file", "reads.fastq", fastq(), None)], "not FASTA"),
    ([("file", "empty.fasta", b"", None)], "empty"),
    ([("file", "x.fasta.gz", gz(fasta())[:-6], None)], "gzip"),
    ([parameters()], "Missing file part"),
    ([("file", "a.fasta", fasta(), None), ("file2", "b.fasta", fasta(), None)], "Unexpected"),
])
def test_bad_assemblies_leave_nothing(testapp, world, db, app_config, parts, message):
    _, sample, headers = world
    res = upload(testapp, sample, headers, parts, status=400)
    assert message in res.json["message"]
    assert db.query(Assembly).count() == 0 and db.query(SequenceFile).count() == 0
    assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []


def test_assemblies_go_with_their_sample(testapp, world, db, app_config):
    project, sample, headers = world
    upload(testapp, sample, headers, [("file", "contigs.fasta", fasta(), None)])
    testapp.delete(f"/api/projects/{project.id}/samples/{sample.id}", headers=headers)
    assert db.query(Assembly).count() == 0 and db.query(SequenceFile).count() == 0
    assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []


def test_permissions(testapp, world, factories):
    _, sample, _ = world
    outsider = factories.headers(factories.user())
    upload(testapp, sample, outsider, [("file", "c.fasta", fasta(), None)], status=404)
    testapp.get(f"/api/samples/{sample.id}/assemblies", headers=outsider, status=404)


@pytest.mark.parametrize(("size", "text"), [(0, "N/A"), (14, "14 B"), (1234, "1.2 kB"),
                                            (5_300_000, "5.3 MB")])
def test_human_size(size, text):
    assert human_size(size) == text


def test_an_analysis_saves_its_assembly_to_the_sample(testapp, app_config, factories):
    from seqcore.testing.workers import AnalysisWorker

    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    headers = factories.headers(owner)
    body = testapp.post_json("/api/analysisSubmissions/analysisType/fake-assembly",
                             {"sequencingObjects": [pair.id], "writeResultsToSamples": True},
                             headers=headers, status=201).json["resource"]
    AnalysisWorker(app_config.registry).run_until_idle(timeout=60)
    (assembly,) = testapp.get(f"/api/samples/{sample.id}/assemblies",
                              headers=headers).json["resource"]["resources"]
    links = {link["rel"]: link["href"] for link in assembly["links"]}
    assert links["assembly/analysis"].endswith(f"/api/analysisSubmissions/{body['identifier']}")
    got = testapp.get(links["self"], headers={**headers, "Accept": "application/fasta"})
    assert got.body == b">contig1\nACGTACGTACGT\n"


@pytest.mark.parametrize(("name", "status"), [
    ('contigs "v2";\tfinal\n.fasta', 201), ("c" * 250 + ".fasta", 400)])
def test_assembly_names_and_a_parameters_file_leave_no_temporary_file(testapp, world, db,
                                                                       app_config, name,
                                                                       status):
    from pathlib import Path

    _, sample, headers = world
    contigs = fasta()
    res = upload(testapp, sample, headers, [
        ("file", name, contigs, None),
        ("parameters", "parameters.json", b'{"miseqRunId": "7"}', "application/json")],
        status=status)
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    assert not (root / "tmp").exists() or list((root / "tmp").iterdir()) == []
    if status == 400:
        assert "longer than 255 bytes" in res.json["message"]
        assert db.query(Assembly).count() == 0 and stored_files(root) == []
        return
    assert res.json["resource"]["fileName"] == name
    got = testapp.get(res.headers["Location"], headers={**headers, "Accept": "application/fasta"})
    assert got.body == contigs
    assert got.headers["Content-Disposition"] == (
        "attachment; filename=\"contigs _v2_;_final_.fasta\"; "
        "filename*=UTF-8''contigs%20%22v2%22%3B%09final%0A.fasta")


def test_an_upload_is_in_the_samples_history(testapp, world, factories):
    _, sample, headers = world
    upload(testapp, sample, headers, [("file", "contigs.fasta", fasta(contigs=2, length=100),
                                       None)])
    history = testapp.get(f"/api/samples/{sample.id}/history", headers=headers).json
    latest = history["resource"]["resources"][0]
    assert latest["kind"] == "assembly.upload"
    assert latest["changes"][0]["fileName"] == "contigs.fasta"


def test_listing_pairs_with_their_assemblies_costs_the_same_for_any_number(
        testapp, factories, db, sql_counter):
    """A pair's ``assembledGenome`` and orientation are read once for the page of pairs,
    not once per pair."""
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    headers = factories.headers(owner)
    path = f"/api/samples/{sample.id}/pairs"

    def add(n):
        for _ in range(n):
            pair = factories.sequencing_object(sample, "pairs")
            submission = factories.submission(owner, [pair], analysis_type="fake-assembly",
                                              projects=[project],
                                              outputs={"contigs": ("c.fasta", fasta())})
            db.add(Assembly(sample_id=sample.id, file_id=submission.outputs[0].file.id,
                            submission_id=submission.id))
        db.commit()

    def count():
        testapp.get(path, headers=headers)
        with sql_counter:
            listed = testapp.get(path, headers=headers).json["resource"]["resources"]
        assert all(pair["assembledGenome"]["fileName"] == "c.fasta" for pair in listed)
        return len(listed), sql_counter.count

    add(2)
    few = count()
    add(10)
    many = count()
    assert (few[0], many[0]) == (2, 12)
    assert few[1] == many[1]
