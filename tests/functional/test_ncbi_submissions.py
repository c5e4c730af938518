"""Making NCBI submissions through REST: who may, what is checked (every problem of a body in
one 400, nothing stored), and how submissions read back."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from seqcore.models.ncbi import NcbiSubmission, NcbiSubmissionRun, NcbiSubmissionSample
from seqcore.models.project import ProjectRole
from seqcore.models.user import SystemRole

LIBRARY = {"libraryStrategy": "WGS", "librarySource": "GENOMIC",
           "librarySelection": "RANDOM", "instrumentModel": "Illumina MiSeq"}


@pytest.fixture
def owner(factories):
    return factories.user(username="owner")


@pytest.fixture
def member(factories):
    return factories.user(username="member")


@pytest.fixture
def project(factories, owner, member):
    return factories.project(owner=owner, members=[(member, ProjectRole.USER)])


@pytest.fixture
def sample(factories, project):
    sample = factories.sample(project, name="SAL-1", organism="Salmonella enterica",
                              strain="S1", collected_by="PHL",
                              geographic_location_name="Canada", isolation_source="stool",
                              latitude="-12.5", longitude="130.25",
                              metadata={"host": "Homo sapiens", "disease": "salmonellosis",
                                        "date": "2026-02-03"})
    factories.sequencing_object(sample, kind="pairs")
    return sample


def body(*samples, **extra):
    return {"bioProject": "PRJNA42", "organization": "PHL", "namespace": "PHL",
            "bioSamplePackage": "Pathogen.cl.1.0",
            "attributes": {"host": "host", "host_disease": "disease", "collection_date": "date"},
            **LIBRARY, "samples": [{"sampleId": s.id} for s in samples], **extra}


def url(project):
    return f"/api/projects/{project.id}/ncbiSubmissions"


def stored(db):
    db.expire_all()
    return tuple(db.scalar(select(func.count()).select_from(model))
                 for model in (NcbiSubmission, NcbiSubmissionSample, NcbiSubmissionRun))


def test_owner_submits_and_members_read(testapp, factories, project, sample, owner, member,
                                        db):
    res = testapp.post_json(url(project), body(sample), headers=factories.headers(owner),
                            status=201)
    resource = res.json["resource"]
    assert resource["state"] == "NEW"
    assert resource["samples"][0]["attributes"]["lat_lon"] == "12.5 S 130.25 E"
    assert resource["samples"][0]["runs"][0]["libraryLayout"] == "PAIRED"
    assert resource["samples"][0]["writeBack"] is True
    listed = testapp.get(url(project), headers=factories.headers(member)).json["resource"]
    assert listed["resources"] == [resource]
    assert testapp.get(res.headers["Location"],
                       headers=factories.headers(member)).json["resource"] == resource
    links = {link["rel"]: link["href"] for link in testapp.get(
        f"/api/projects/{project.id}", headers=factories.headers(member)).json["resource"][
        "links"]}
    assert links["project/ncbiSubmissions"] == f"http://localhost{url(project)}"
    assert stored(db) == (1, 1, 1)


def test_who_may_submit(testapp, factories, project, sample, member, db):
    outsider = factories.user(username="outsider")
    admin = factories.user(SystemRole.ADMIN, username="admin")
    sequencer = factories.user(SystemRole.SEQUENCER, username="uploader")
    res = testapp.post_json(url(project), body(sample), headers=factories.headers(member),
                            status=403)
    assert "message" in res.json
    testapp.post_json(url(project), body(sample), headers=factories.headers(sequencer),
                      status=403)
    testapp.post_json(url(project), body(sample), headers=factories.headers(outsider),
                      status=404)
    testapp.get(url(project), headers=factories.headers(outsider), status=404)
    assert stored(db) == (0, 0, 0)
    testapp.post_json(url(project), body(sample), headers=factories.headers(admin),
                      status=201)
    assert stored(db) == (1, 1, 1)


def test_every_problem_of_a_body_in_one_answer(testapp, factories, project, sample, owner,
                                               db):
    other_project = factories.project(owner=owner)
    elsewhere = factories.sample(other_project, name="ELSEWHERE")
    bare = factories.sample(project, name="BARE")
    unfinished = factories.sample(project, name="UNFINISHED", organism="x")
    pending = factories.sequencing_object(unfinished, kind="pairs", state="UNPROCESSED")
    wrong = body(sample, bioProject="PRJ12", releaseDate="2001-01-01",
                 librarySource="DNA", bioSamplePackage="Pathogen.cl.1.0")
    wrong["samples"] = [
        {"sampleId": sample.id, "instrumentModel": "MiSeq 9000"},
        {"sampleId": elsewhere.id},
        {"sampleId": bare.id, "bioSample": "SAMN123"},
        {"sampleId": unfinished.id, "sequencingObjects": [pending.id, 999999]},
        {"sampleId": sample.id},
    ]
    res = testapp.post_json(url(project), wrong, headers=factories.headers(owner), status=400)
    problems = res.json
    assert problems["bioProject"] == [
        "The BioProject must be an NCBI BioProject accession (PRJNA..., PRJEB..., PRJDB...)."]
    assert problems["releaseDate"] == ["The release date must not be in the past."]
    assert problems["librarySource"][0].startswith("The library source must be one of 'GENOMIC'")
    assert problems["samples.0.instrumentModel"][0].startswith(
        "The instrument model must be one of")
    assert problems["samples.1.sampleId"] == [f"No sample {elsewhere.id} in project "
                                              f"{project.id}."]
    assert problems["samples.2.sequencingObjects"] == [
        f"Sample 'BARE' ({bare.id}) has no processed reads NCBI's SRA takes (pairs, unpaired)."]
    assert problems["samples.3.sequencingObjects"] == [
        f"Sample 'UNFINISHED' ({unfinished.id}): sequencing object {pending.id} is "
        "UNPROCESSED; only processed reads are sent.",
        f"Sample 'UNFINISHED' ({unfinished.id}) has no sequencing object 999999."]
    assert problems["samples.3.attributes"][0].startswith(
        f"Sample 'UNFINISHED' ({unfinished.id}): BioSample attribute 'collected_by'")
    assert problems["samples.4.sampleId"] == [f"Sample 'SAL-1' ({sample.id}) is listed twice."]
    assert "samples.2.attributes" not in problems  # an existing BioSample needs none
    assert stored(db) == (0, 0, 0)


@pytest.mark.parametrize(("change", "key"), [
    ({"bioProject": None}, "bioProject"),
    ({"bioProject": 42}, "bioProject"),
    ({"organization": ""}, "organization"),
    ({"organization": "x" * 256}, "organization"),
    ({"namespace": "has space"}, "namespace"),
    ({"namespace": ["PHL"]}, "namespace"),
    ({"releaseDate": "next week"}, "releaseDate"),
    ({"releaseDate": 20270101}, "releaseDate"),
    ({"bioSamplePackage": "Human.1.0"}, "bioSamplePackage"),
    ({"bioSamplePackage": None}, "bioSamplePackage"),
    ({"attributes": ["host"]}, "attributes"),
    ({"attributes": {"bad name!": "host"}}, "attributes"),
    ({"attributes": {"host": 3}}, "attributes"),
    ({"libraryStrategy": 7}, "libraryStrategy"),
    ({"libraryConstructionProtocol": {"a": 1}}, "libraryConstructionProtocol"),
    ({"samples": []}, "samples"),
    ({"samples": "all"}, "samples"),
    ({"samples": ["1"]}, "samples.0"),
    ({"samples": [{"sampleId": "one"}]}, "samples.0.sampleId"),
    ({"samples": [{"sampleId": True}]}, "samples.0.sampleId"),
    ({"samples": [{"sampleId": "99999999999999999999"}]}, "samples.0.sampleId"),
    ({"samples": [{"sampleId": "{sid}", "sequencingObjects": "x"}]},
     "samples.0.sequencingObjects"),
    ({"samples": [{"sampleId": "{sid}", "sequencingObjects": []}]},
     "samples.0.sequencingObjects"),
    ({"samples": [{"sampleId": "{sid}", "libraryName": ""}]}, "samples.0.libraryName"),
    ({"samples": [{"sampleId": "{sid}", "bioSample": "SRR1"}]}, "samples.0.bioSample"),
    ({"samples": [{"sampleId": "{sid}", "colour": "red"}]}, "samples.0"),
])
def test_bad_input_is_a_400_naming_the_field_and_stores_nothing(testapp, factories, project,
                                                                 sample, owner, db, change,
                                                                 key):
    payload = {**body(sample), **change}
    for entry in payload["samples"] if isinstance(payload["samples"], list) else ():
        if isinstance(entry, dict) and entry.get("sampleId") == "{sid}":
            entry["sampleId"] = sample.id
    if change.get("bioSamplePackage", "") is None:
        del payload["bioSamplePackage"]
    res = testapp.post_json(url(project), payload, headers=factories.headers(owner),
                            status=400)
    assert key in res.json, res.json
    assert stored(db) == (0, 0, 0)


@pytest.mark.parametrize(("raw", "content_type", "status"), [
    (b"{", "application/json", 400),
    (b"[]", "application/json", 400),
    (b"{}", "text/plain", 415),
])
def test_unreadable_bodies(testapp, factories, project, owner, db, raw, content_type, status):
    testapp.post(url(project), raw, headers={**factories.headers(owner),
                                             "Content-Type": content_type}, status=status)
    assert stored(db) == (0, 0, 0)


def test_unknown_fields_list_the_acceptable_ones(testapp, factories, project, sample, owner,
                                                 db):
    res = testapp.post_json(url(project), {**body(sample), "bioproject": "PRJNA1"},
                            headers=factories.headers(owner), status=400)
    assert res.json["message"] == "Unknown field(s): bioproject."
    assert "bioProject" in res.json["acceptable-properties"]
    assert stored(db) == (0, 0, 0)


def test_existing_biosamples_need_no_package_and_shared_samples_are_not_written_back(
        testapp, factories, project, owner, db):
    source = factories.project(owner=factories.user())
    shared = factories.sample(source, name="SHARED", also_in=[project])
    factories.sequencing_object(shared, kind="unpaired")
    payload = {"bioProject": "PRJEB7", "organization": "PHL", "namespace": "PHL", **LIBRARY,
               "samples": [{"sampleId": shared.id, "bioSample": "SAMEA99"}]}
    resource = testapp.post_json(url(project), payload, headers=factories.headers(owner),
                                 status=201).json["resource"]
    assert resource["bioSamplePackage"] is None
    assert resource["samples"][0]["bioSample"] == "SAMEA99"
    assert resource["samples"][0]["attributes"] == {}
    assert resource["samples"][0]["writeBack"] is False
    assert resource["samples"][0]["runs"][0]["libraryLayout"] == "SINGLE"


def test_a_namespace_comes_from_the_setting_when_not_given(build_app, factories, project,
                                                           sample, owner):
    app = build_app(**{"seqcore.ncbi.namespace": "CENTRE"})
    payload = body(sample)
    del payload["namespace"]
    resource = app.post_json(url(project), payload, headers=factories.headers(owner),
                             status=201).json["resource"]
    assert resource["namespace"] == "CENTRE"
    app.post_json(url(project), payload, headers=factories.headers(owner), status=201)
    testapp_without = build_app()
    res = testapp_without.post_json(url(project), payload, headers=factories.headers(owner),
                                    status=400)
    assert list(res.json) == ["namespace"]


def test_submissions_of_another_project_are_not_found_here(testapp, factories, project,
                                                           sample, owner):
    other = factories.project(owner=owner)
    created = testapp.post_json(url(project), body(sample), headers=factories.headers(owner),
                                status=201).json["resource"]
    testapp.get(f"{url(other)}/{created['identifier']}", headers=factories.headers(owner),
                status=404)
    testapp.get(f"{url(project)}/99999", headers=factories.headers(owner), status=404)
    testapp.delete(f"{url(project)}/{created['identifier']}",
                   headers=factories.headers(owner), status=405)


def test_a_package_that_does_not_name_organism_still_needs_one(build_app, factories, project,
                                                               owner, tmp_path):
    path = tmp_path / "vocabulary.json"
    path.write_text('{"packages": {"Minimal.1.0": {"required": ["sample_name"]}}}')
    app = build_app(**{"seqcore.ncbi.vocabulary": str(path)})
    sample = factories.sample(project, name="NO-ORGANISM")
    factories.sequencing_object(sample, kind="unpaired")
    payload = {"bioProject": "PRJNA1", "organization": "PHL", "namespace": "PHL", **LIBRARY,
               "bioSamplePackage": "Minimal.1.0", "samples": [{"sampleId": sample.id}]}
    res = app.post_json(url(project), payload, headers=factories.headers(owner), status=400)
    assert res.json == {"samples.0.attributes": [
        f"Sample 'NO-ORGANISM' ({sample.id}): BioSample attribute 'organism', mandatory in "
        "every BioSample, has no value (a mapped metadata field or the sample's own field)."]}
    payload["attributes"] = {"organism": "genus"}
    res = app.post_json(url(project), payload, headers=factories.headers(owner), status=400)
    assert "metadata field 'genus'" in res.json["samples.0.attributes"][0]
