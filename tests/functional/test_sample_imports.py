"""Spreadsheet imports (``POST /api/projects/{id}/sampleImports``): samples and metadata from
CSV, TSV and XLSX, checked row by row before anything is written, with a dry run, and all or
nothing or per row as the caller chooses."""

from __future__ import annotations

import io

import pytest
from openpyxl import Workbook
from sqlalchemy import func, select

from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.samples.imports import XLSX

CSV = "text/csv"


@pytest.fixture
def world(factories):
    owner = factories.user(username="importer")
    member = factories.user(username="reader")
    project = factories.project(owner=owner, name="Imports",
                                members=[(member, "PROJECT_USER")])
    existing = factories.sample(project, name="EX-1", metadata={"host": "human"})
    return {"owner": owner, "member": member, "project": project, "existing": existing,
            "headers": factories.headers(owner)}


def post(testapp, world, body, content_type=CSV, status=200, headers=None, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return testapp.post(f"/api/projects/{world['project'].id}/sampleImports?{query}", body,
                        headers={**(headers or world["headers"]), "Content-Type": content_type},
                        status=status).json


def samples(db, project):
    db.expire_all()
    return sorted(db.scalars(select(ProjectSample.sample_name).where(
        ProjectSample.project_id == project.id)))


def metadata(db, name):
    sample_id = db.scalar(select(Sample.id).where(Sample.name == name))
    return dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == sample_id)).all())


def xlsx(rows):
    book = Workbook()
    sheet = book.active
    for row in rows:
        sheet.append(row)
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def test_a_csv_creates_samples_and_updates_metadata(testapp, world, db):
    sheet = (b"sample_name,description,serotype,host\n"
             b"NEW-1,first,Typhi,human\n"
             b"EX-1,,Enteritidis,\n")
    body = post(testapp, world, sheet, descriptionColumn="description")["resource"]
    assert (body["created"], body["updated"], body["problems"]) == (["NEW-1"], ["EX-1"], [])
    assert samples(db, world["project"]) == ["EX-1", "NEW-1"]
    assert metadata(db, "NEW-1") == {"serotype": "Typhi", "host": "human"}
    # An empty cell is ignored by default: EX-1 keeps its host.
    assert metadata(db, "EX-1") == {"host": "human", "serotype": "Enteritidis"}
    assert db.scalar(select(Sample.description).where(Sample.name == "NEW-1")) == "first"


def test_an_xlsx_with_dates_and_numbers_is_read_as_text(testapp, world, db):
    from datetime import date

    sheet = xlsx([["sample_name", "collection_date", "age"],
                  ["XL-1", date(2024, 3, 1), 40], ["XL-2", "2024-04", 9.5]])
    body = post(testapp, world, sheet, content_type=XLSX)["resource"]
    assert body["created"] == ["XL-1", "XL-2"]
    assert metadata(db, "XL-1") == {"collection_date": "2024-03-01", "age": "40"}
    assert metadata(db, "XL-2") == {"collection_date": "2024-04", "age": "9.5"}


def test_a_dry_run_reports_every_problem_by_row_and_column_and_writes_nothing(
        testapp, world, db):
    testapp.post_json(f"/api/projects/{world['project'].id}/metadataFields",
                      {"name": "age", "type": "number"}, headers=world["headers"])
    sheet = (b"sample_name\tage\n"
             b"GOOD-1\t3\n"
             b"bad name\t4\n"
             b"GOOD-2\tmany\n"
             b"GOOD-1\t5\n"
             b"\t6\n")
    before = samples(db, world["project"])
    body = post(testapp, world, sheet, content_type="text/tab-separated-values",
                dryRun="true")["resource"]
    assert body["dryRun"] is True and body["created"] == ["GOOD-1"]
    problems = {(p["row"], p["column"]) for p in body["problems"]}
    assert problems == {(3, "sample_name"), (4, "age"), (5, "sample_name"), (6, "sample_name")}
    assert any("space character" in p["message"] for p in body["problems"])
    assert samples(db, world["project"]) == before


def test_all_or_nothing_writes_nothing_when_a_row_is_bad(testapp, world, db):
    sheet = b"sample_name,host\nOK-1,cow\nnot ok,cow\n"
    body = post(testapp, world, sheet, status=400)
    assert "nothing was imported" in body["message"]
    assert body["problems"] == [{"row": 3, "column": "sample_name", "message": (
        "The name you have supplied contains a space character. Names must NOT include "
        "the space character and the following: ? ( ) [ ] / \\ = + < > : ; \" ' , * ^ | & .")}]
    assert "OK-1" not in samples(db, world["project"])


def test_per_row_writes_the_valid_rows_and_reports_the_rest(testapp, world, db):
    sheet = b"sample_name,host\nOK-1,cow\nnot ok,cow\nOK-2,pig\n"
    body = post(testapp, world, sheet, mode="row")["resource"]
    assert body["created"] == ["OK-1", "OK-2"]
    assert [p["row"] for p in body["problems"]] == [3]
    assert samples(db, world["project"]) == ["EX-1", "OK-1", "OK-2"]


def test_creation_can_be_turned_off_and_puids_name_existing_samples(testapp, world, db):
    puid = world["existing"].puid
    sheet = f"sample\tst\n{puid}\t19\nNOPE\t1\n".encode()
    body = post(testapp, world, sheet, content_type="text/tab-separated-values",
                sampleColumn="sample", create="false", mode="row")["resource"]
    assert body["updated"] == [puid]
    assert body["problems"] == [{"row": 3, "column": "sample",
                                 "message": "No sample named NOPE in the project."}]
    assert metadata(db, "EX-1") == {"host": "human", "st": "19"}


def test_bad_requests_change_nothing(testapp, world, db, factories):
    count = db.scalar(select(func.count()).select_from(Sample))
    assert "sampleColumn" in post(testapp, world, b"name,host\nA-1,x\n", status=400)
    assert "mode" in post(testapp, world, b"sample_name\nA-1\n", status=400, mode="some")
    assert "dryRun" in post(testapp, world, b"sample_name\nA-1\n", status=400, dryRun="maybe")
    post(testapp, world, b"", status=400)
    post(testapp, world, b"PK\x03\x04not a zip", content_type=XLSX, status=400)
    post(testapp, world, "\xff\xfe".encode("latin-1"), status=400)
    post(testapp, world, b"{}", content_type="application/json", status=415)
    dup = post(testapp, world, b"sample_name,host,host\nA-1,x,y\n", status=400)
    assert dup["problems"][0]["row"] == 1
    # A member who may read but not create is refused; a stranger finds nothing.
    post(testapp, world, b"sample_name\nA-1\n", status=403,
         headers=factories.headers(world["member"]))
    post(testapp, world, b"sample_name\nA-1\n", status=404,
         headers=factories.headers(factories.user()))
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Sample)) == count


def test_a_restricted_field_is_refused_to_a_lower_level(testapp, world, db, factories):
    """A field above the caller's metadata level is refused on that row, for an existing
    sample and a new one alike, as REST's metadata writes are; other rows are written."""
    project = world["project"]
    testapp.post_json(f"/api/projects/{project.id}/metadataFields",
                      {"name": "patient", "type": "text", "restriction": "LEVEL_4"},
                      headers=world["headers"])
    sequencer = factories.user(role="ROLE_SEQUENCER")  # writes samples, reads LEVEL_1
    sheet = b"sample_name,patient,host\nEX-1,Jane Doe,\nSEQ-1,John Doe,\nSEQ-2,,cow\n"
    body = post(testapp, world, sheet, mode="row",
                headers=factories.headers(sequencer))["resource"]
    assert body["created"] == ["SEQ-2"] and body["updated"] == []
    assert [p["row"] for p in body["problems"]] == [2, 3]
    assert all("does not allow writing the field(s) patient" in p["message"]
               for p in body["problems"])
    assert "patient" not in metadata(db, "EX-1")
    assert "SEQ-1" not in samples(db, project)
