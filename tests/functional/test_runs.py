"""``/api/sequencingrun``: runs as the IRIDA uploader creates, updates and completes them."""

import pytest

from seqcore.models.user import SystemRole


@pytest.fixture
def sequencer(factories):
    return factories.headers(factories.user(role=SystemRole.SEQUENCER, username="uploader"))


@pytest.fixture
def admin(factories):
    return factories.headers(factories.user(role=SystemRole.ADMIN))


def test_create_run_as_the_uploader_does(testapp, sequencer, admin):
    sheet = {"readLengths": "51", "investigatorName": "Jane", "experimentName": "exp-1",
             "workflow": "GenerateFASTQ", "application": "FASTQ Only", "assay": "Nextera",
             "description": "a run", "chemistry": "Amplicon", "layoutType": "PAIRED_END",
             "uploadStatus": "UPLOADING"}
    res = testapp.post_json("/api/sequencingrun/miseqrun", sheet, headers=sequencer,
                            status=201)
    run = res.json["resource"]
    assert res.headers["Location"] == f"http://localhost/api/sequencingrun/{run['identifier']}"
    assert run["sequencerType"] == "miseq"
    assert run["uploadStatus"] == "UPLOADING"
    assert run["readLengths"] == "51" and run["investigatorName"] == "Jane"
    assert run["label"].startswith("SequencingRun 20")
    assert run["links"] == [{"rel": "self", "href": res.headers["Location"]}]
    assert testapp.get(res.headers["Location"], headers=admin).json["resource"] == run


@pytest.mark.parametrize(("path", "body", "sequencer_type"), [
    ("/api/sequencingrun", {"layoutType": "SINGLE_END", "sequencerType": "NextSeq"}, "nextseq"),
    ("/api/sequencingrun/directory", {"layoutType": "PAIRED_END", "workflow": "workflow"},
     "directory"),
    ("/api/sequencingrun/seqmodelrun", {"layoutType": "PAIRED_END"}, "seqmodel"),
    ("/api/sequencingrun/MiSeq", {"layoutType": "PAIRED_END", "readLengths": 150}, "miseq"),
])
def test_sequencer_type_from_body_or_path(testapp, sequencer, path, body, sequencer_type):
    run = testapp.post_json(path, body, headers=sequencer, status=201).json["resource"]
    assert run["sequencerType"] == sequencer_type
    if "readLengths" in body:
        assert run["readLengths"] == "150"  # run-sheet values are kept as strings


@pytest.mark.parametrize(("path", "body", "errors"), [
    ("/api/sequencingrun", {"sequencerType": "miseq"},
     {"layoutType": ["You must provide a layout type (SINGLE_END or PAIRED_END)."]}),
    ("/api/sequencingrun", {"layoutType": "PAIRED_END"},
     {"sequencerType": ["You must provide a sequencer type."]}),
    ("/api/sequencingrun", {"layoutType": "TRIPLE", "sequencerType": "miseq"},
     {"layoutType": ["The layout type must be SINGLE_END or PAIRED_END."]}),
    ("/api/sequencingrun", {"layoutType": "PAIRED_END", "sequencerType": "mi seq"},
     {"sequencerType": ["Sequencer type can only contain lowercase letters, numbers, - or _."]}),
    ("/api/sequencingrun/miseq", {"layoutType": "PAIRED_END", "uploadStatus": "COMPLETE"},
     {"uploadStatus": ["A new run is always UPLOADING."]}),
    ("/api/sequencingrun/miseq", {"layoutType": "PAIRED_END", "sheet": {"nested": 1}},
     {"sheet": ["Run-sheet values must be strings or numbers."]}),
])
def test_run_validation(testapp, sequencer, path, body, errors):
    assert testapp.post_json(path, body, headers=sequencer, status=400).json == errors


@pytest.mark.parametrize("steps", [
    ["UPLOADING", "COMPLETE"], ["UPLOADING", "ERROR", "UPLOADING", "COMPLETE"],
])
def test_status_moves_as_the_uploader_needs(testapp, sequencer, admin, steps):
    url = testapp.post_json("/api/sequencingrun/miseq", {"layoutType": "PAIRED_END"},
                            headers=sequencer).headers["Location"]
    for status in steps:
        res = testapp.patch_json(url, {"uploadStatus": status}, headers=sequencer)
        assert [link["rel"] for link in res.json["resource"]["links"]] == ["self", "collection"]
        assert testapp.get(url, headers=admin).json["resource"]["uploadStatus"] == status


def test_bad_status_and_others_runs(testapp, factories, sequencer, admin):
    url = testapp.post_json("/api/sequencingrun/miseq", {"layoutType": "PAIRED_END"},
                            headers=sequencer).headers["Location"]
    res = testapp.patch_json(url, {"uploadStatus": "DONE"}, headers=sequencer, status=400)
    assert "uploadStatus" in res.json
    other = factories.headers(factories.user(role=SystemRole.SEQUENCER))
    testapp.patch_json(url, {"uploadStatus": "COMPLETE"}, headers=other, status=404)
    testapp.patch_json(url, {"uploadStatus": "COMPLETE"}, headers=admin)


def test_collection_is_for_administrators(testapp, factories, sequencer, admin):
    testapp.post_json("/api/sequencingrun/miseq", {"layoutType": "PAIRED_END"},
                      headers=sequencer)
    body = testapp.get("/api/sequencingrun", headers=admin).json["resource"]
    assert len(body["resources"]) == 1
    assert {link["rel"] for link in body["links"]} == {"self", "sequencingRun/seqmodel",
                                                       "sequencingRun/miseq"}
    testapp.get("/api/sequencingrun", headers=sequencer, status=403)
    testapp.get("/api/sequencingrun", headers=factories.headers(factories.user()), status=403)


def test_root_link_for_admins_and_sequencers(testapp, factories, sequencer, admin):
    def rels(headers):
        return {link["rel"] for link in testapp.get("/api", headers=headers).json[
            "resource"]["links"]}

    assert "sequencingRuns" in rels(admin) and "sequencingRuns" in rels(sequencer)
    assert "sequencingRuns" not in rels(factories.headers(factories.user()))
