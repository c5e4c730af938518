"""The project's spreadsheet import page through WebTest: the REST import's operation and
right for people at the bench. A dry run lists every problem by row and column and writes
nothing; all or nothing writes nothing when a row is bad; per row writes the good rows and
lists the bad; CSV and XLSX alike; readers get no link and a 403; a bad file is a 400 on the
page with nothing written."""

from __future__ import annotations

from datetime import date

import pytest
from sqlalchemy import func, select
from webtest import Upload

from seqcore.models.fielddecl import MetadataField
from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from tests.functional.test_sample_imports import xlsx
from tests.web.test_workbench import sign_in


@pytest.fixture
def lab(factories, db):
    """An owner's project with sample EX-1 (host: human) and a declared number field
    ``age``; a member who reads the project; an outsider."""
    owner = factories.user(username="importer")
    member = factories.user(username="reader")
    outsider = factories.user(username="stranger")
    project = factories.project(owner=owner, name="Imports",
                                members=[(member, ProjectRole.USER, "LEVEL_1")])
    db.add(MetadataField(project_id=project.id, name="age", type="number"))
    db.commit()
    existing = factories.sample(project, name="EX-1", metadata={"host": "human"})
    return {"owner": owner, "member": member, "outsider": outsider, "project": project,
            "existing": existing}


def url(lab):
    return f"/-/projects/{lab['project'].id}/import"


def names(db, project):
    db.expire_all()
    return sorted(db.scalars(select(ProjectSample.sample_name).where(
        ProjectSample.project_id == project.id)))


def metadata(db, name):
    db.expire_all()
    sample_id = db.scalar(select(Sample.id).where(Sample.name == name))
    return dict(db.execute(select(MetadataEntry.field, MetadataEntry.value).where(
        MetadataEntry.sample_id == sample_id)).all())




def submit(testapp, lab, filename, content, step="check", status=200, **options):
    """Choose the file and the options on the page's form and press a button."""
    form = testapp.get(url(lab)).forms["import-sheet"]
    form["sheet"] = Upload(filename, content)
    for key, value in options.items():
        form[key] = value
    return form.submit("step", value=step, status=status)


def problems(page):
    return [tuple(td.text for td in tr.find_all("td"))
            for tr in page.html.select("#import-problems tbody tr")]


BAD_SHEET = (b"sample_name,age,host\n"
             b"GOOD-1,3,cow\n"
             b"bad name,4,cow\n"
             b"GOOD-2,many,pig\n"
             b"GOOD-1,5,cow\n")


def test_the_project_page_links_the_import_for_those_who_may_create(testapp, lab):
    sign_in(testapp, lab["owner"])
    page = testapp.get(f"/-/projects/{lab['project'].id}")
    link = page.html.find("a", id="import-samples")
    assert link["href"] == url(lab)
    form = page.click(href=url(lab)).forms["import-sheet"]
    assert form["sample_column"].value == "sample_name" and form["mode"].value == "all"


def test_a_dry_run_lists_problems_by_row_and_column_and_writes_nothing(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    page = submit(testapp, lab, "samples.csv", BAD_SHEET)
    assert "nothing was written" in page.text
    rows = problems(page)
    assert [(row, column) for row, column, _message in rows] == [
        ("3", "sample_name"), ("4", "age"), ("5", "sample_name")]
    assert "space character" in rows[0][2]
    assert rows[2][2] == "GOOD-1 is also on row 2."
    assert "4 rows read: 1 samples would be created and 0 updated; 3 problems." in page.text
    assert "GOOD-1" in page.html.find(id="created-heading").find_next("p").text
    assert names(db, lab["project"]) == ["EX-1"]


def test_the_checked_sheet_is_imported_per_row_without_choosing_it_again(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    checked = submit(testapp, lab, "samples.csv", BAD_SHEET)
    form = checked.forms["import-again"]
    assert form["sample_column"].value == "sample_name"  # a choice among the sheet's columns
    form["mode"] = "row"
    done = form.submit("step", value="import")
    assert "Import done" in done.text
    assert "1 samples created and 0 updated; 3 rows refused" in done.text
    assert [row for row, _column, _message in problems(done)] == ["3", "4", "5"]
    assert names(db, lab["project"]) == ["EX-1", "GOOD-1"]
    assert metadata(db, "GOOD-1") == {"age": "3", "host": "cow"}


def test_all_or_nothing_with_one_bad_row_writes_nothing(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    sheet = b"sample_name,host\nOK-1,cow\nnot ok,cow\nEX-1,pig\n"
    page = submit(testapp, lab, "samples.csv", sheet, step="import", status=400)
    assert "Nothing was imported" in page.html.find(role="alert").text
    assert [(row, column) for row, column, _m in problems(page)] == [("3", "sample_name")]
    assert names(db, lab["project"]) == ["EX-1"]
    assert metadata(db, "EX-1") == {"host": "human"}


def test_per_row_writes_the_good_rows_and_reports_the_bad(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    sheet = (b"sample_name,description,host,age\n"
             b"OK-1,first,cow,1\n"
             b"not ok,,cow,\n"
             b"EX-1,,pig,\n"
             b"OK-2,,,old\n")
    page = submit(testapp, lab, "samples.csv", sheet, step="import", mode="row",
                  description_column="description")
    assert "2 rows refused" in page.text
    assert page.html.find(id="created-heading").find_next("p").text == "OK-1"
    assert page.html.find(id="updated-heading").find_next("p").text == "EX-1"
    assert [(row, column) for row, column, _m in problems(page)] == [
        ("3", "sample_name"), ("5", "age")]
    assert names(db, lab["project"]) == ["EX-1", "OK-1"]
    assert metadata(db, "EX-1") == {"host": "pig"}
    assert db.scalar(select(Sample.description).where(Sample.name == "OK-1")) == "first"


def test_an_xlsx_workbook_is_imported(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    sheet = xlsx([["isolate", "collection_date", "age"],
                  ["XL-1", date(2024, 3, 1), 40], [lab["existing"].puid, None, 7]])
    checked = submit(testapp, lab, "isolates.xlsx", sheet, sample_column="isolate")
    assert problems(checked) == []
    assert names(db, lab["project"]) == ["EX-1"]
    done = checked.forms["import-again"].submit("step", value="import")
    assert "1 samples created and 1 updated" in done.text
    assert metadata(db, "XL-1") == {"collection_date": "2024-03-01", "age": "40"}
    assert metadata(db, "EX-1") == {"host": "human", "age": "7"}


def test_a_missing_column_is_a_400_offering_the_sheets_columns(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    page = submit(testapp, lab, "samples.csv", b"isolate,host\nA-1,cow\n", step="import",
                  status=400)
    assert "no column 'sample_name'" in page.html.find(role="alert").text
    select_ = page.html.find("select", id="field-sample_column")
    assert [o["value"] for o in select_.find_all("option")] == ["sample_name", "isolate",
                                                                 "host"]
    assert names(db, lab["project"]) == ["EX-1"]


@pytest.mark.parametrize("filename, content, words", [
    ("picture.png", b"\x89PNG\r\n\x1a\n\x00\x00", "is not a CSV, TSV or XLSX file"),
    ("old.xls", b"\xd0\xcf\x11\xe0", "is not a CSV, TSV or XLSX file"),
    ("empty.csv", b"", "The sheet is empty"),
    ("blank.csv", b"\n,,\n", "The sheet is empty"),
    ("broken.xlsx", b"PK\x03\x04not a zip", "not a readable XLSX workbook"),
    ("latin.csv", "sample_name\nJos\xe9\n".encode("latin-1"), "not UTF-8 text"),
])
def test_a_bad_file_is_a_400_on_the_page_and_writes_nothing(testapp, lab, db, filename,
                                                            content, words):
    sign_in(testapp, lab["owner"])
    count = db.scalar(select(func.count()).select_from(Sample))
    page = submit(testapp, lab, filename, content, step="import", status=400)
    assert words in page.html.find(role="alert").text
    assert page.forms["import-sheet"]  # the form is there to try again
    db.expire_all()
    assert db.scalar(select(func.count()).select_from(Sample)) == count


def test_no_file_or_a_bad_mode_is_a_400(testapp, lab, db):
    sign_in(testapp, lab["owner"])
    form = testapp.get(url(lab)).forms["import-sheet"]
    token = form["csrf_token"].value
    page = testapp.post(url(lab), {"csrf_token": token, "step": "import"}, status=400)
    assert "Choose a CSV, TSV or XLSX file" in page.html.find(role="alert").text
    testapp.post(url(lab), {"csrf_token": token, "mode": "some", "step": "import"},
                 upload_files=[("sheet", "a.csv", b"sample_name\nA-1\n")], status=400)
    # Without the CSRF token nothing happens either.
    testapp.post(url(lab), {"step": "import"},
                 upload_files=[("sheet", "a.csv", b"sample_name\nA-1\n")], status=400)
    assert names(db, lab["project"]) == ["EX-1"]


def test_a_reader_gets_no_link_and_403_and_an_outsider_404(testapp, lab, db):
    sign_in(testapp, lab["member"])
    page = testapp.get(f"/-/projects/{lab['project'].id}")
    assert page.html.find(id="import-samples") is None
    testapp.get(url(lab), status=403)
    token = page.forms["samples-bulk"]["csrf_token"].value
    testapp.post(url(lab), {"csrf_token": token, "step": "import"},
                 upload_files=[("sheet", "a.csv", b"sample_name\nA-1\n")], status=403)
    sign_in(testapp, lab["outsider"])
    testapp.get(url(lab), status=404)
    testapp.get("/-/projects/999999/import", status=404)
    token = testapp.get("/-/projects").html.find("input", {"name": "csrf_token"})["value"]
    testapp.post(url(lab), {"csrf_token": token, "step": "import"},
                 upload_files=[("sheet", "a.csv", b"sample_name\nA-1\n")], status=404)
    assert names(db, lab["project"]) == ["EX-1"]


def test_a_sheet_larger_than_a_form_is_taken_up_to_the_body_limit(testapp, lab, db):
    """A page form is refused above 64 KiB; a sheet sent to the import page is not."""
    sign_in(testapp, lab["owner"])
    rows = "".join(f"BIG-{n},{'x' * 60}\n" for n in range(2000))
    sheet = f"sample_name,note\n{rows}".encode()
    assert len(sheet) > 65_536
    page = submit(testapp, lab, "big.csv", sheet)
    assert "2000 rows read: 2000 samples would be created" in page.text
    # Without a session, the form limit holds there too: nothing is parsed.
    testapp.reset()
    testapp.post(url(lab), {"step": "check"}, upload_files=[("sheet", "big.csv", sheet)],
                 status=413)


def test_the_page_and_its_report_speak_french(testapp, lab, db):
    from seqcore.models.user import User

    db.get(User, lab["owner"].id).locale = "fr"
    db.commit()
    sign_in(testapp, lab["owner"])
    page = testapp.get(f"/-/projects/{lab['project'].id}")
    assert page.html.find(id="import-samples").text == (
        "Importer des échantillons et des métadonnées depuis un tableur")
    checked = submit(testapp, lab, "samples.csv", BAD_SHEET)
    assert checked.html.find(id="report-heading").text == (
        "Vérification du tableau : rien n'a été écrit")
    assert [th.text for th in checked.html.select("#import-problems th")] == [
        "Ligne", "Colonne", "Problème"]
