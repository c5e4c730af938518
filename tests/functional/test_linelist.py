"""Line lists: REST in CSV, TSV and XLSX, by template or every readable field; the GraphQL
download link; the reusable writer."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from seqcore.models.fielddecl import MetadataField
from seqcore.models.project import ProjectRole
from seqcore.samples.linelist import linelist_columns, write_linelist
from seqcore.security.fieldaccess import Caller


@pytest.fixture
def world(factories, db):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, members=[(member, ProjectRole.USER, "LEVEL_1")],
                                path="outbreak")
    for name, level in (("serovar", "LEVEL_1"), ("patient", "LEVEL_3"), ("age", "LEVEL_1")):
        db.add(MetadataField(project_id=project.id, name=name, restriction=level))
    db.commit()
    s1 = factories.sample(project, name="S-1", metadata={"serovar": "Typhi", "patient": "Jane",
                                                         "age": "31", "note": 'a,"b"\nc'})
    s2 = factories.sample(project, name="S-2", metadata={"serovar": "Enteritidis"})
    factories.sample(factories.project(owner=owner), name="elsewhere", metadata={"x": "y"})
    return owner, member, project, (s1, s2)


def url(project, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"/api/projects/{project.id}/linelist" + (f"?{query}" if query else "")


def rows_of(res, fmt):
    if fmt == "xlsx":
        sheet = load_workbook(io.BytesIO(res.body), read_only=True).active
        return [[c if c is not None else "" for c in row] for row in sheet.iter_rows(
            values_only=True)]
    return list(csv.reader(io.StringIO(res.body.decode()),
                           delimiter="\t" if fmt == "tsv" else ","))


@pytest.mark.parametrize("fmt", ["csv", "tsv", "xlsx"])
def test_every_readable_field_in_each_format(testapp, factories, world, fmt):
    owner, member, project, (s1, s2) = world
    res = testapp.get(url(project, format=fmt), headers=factories.headers(owner))
    assert res.content_type.startswith({"csv": "text/csv", "tsv": "text/tab-separated-values",
                                        "xlsx": "application/vnd.openxml"}[fmt])
    assert f'filename="outbreak-linelist.{fmt}"' in res.headers["Content-Disposition"]
    assert rows_of(res, fmt) == [
        ["sample_puid", "sample_name", "age", "note", "patient", "serovar"],
        [s1.puid, "S-1", "31", 'a,"b"\nc', "Jane", "Typhi"],
        [s2.puid, "S-2", "", "", "", "Enteritidis"],
    ]
    mine = rows_of(testapp.get(url(project, format=fmt), headers=factories.headers(member)),
                   fmt)
    assert mine[0] == ["sample_puid", "sample_name", "age", "note", "serovar"]


def test_a_template_gives_the_columns_in_order(testapp, factories, world):
    owner, member, project, (s1, _) = world
    template = testapp.post_json(f"/api/projects/{project.id}/metadataTemplates",
                                 {"name": "Clinical", "fields": ["patient", "serovar"]},
                                 headers=factories.headers(owner)).json["resource"]
    for key in (template["identifier"], "Clinical"):
        rows = rows_of(testapp.get(url(project, template=key),
                                   headers=factories.headers(owner)), "csv")
        assert rows[:2] == [["sample_puid", "sample_name", "patient", "serovar"],
                            [s1.puid, "S-1", "Jane", "Typhi"]]
    rows = rows_of(testapp.get(url(project, template="Clinical"),
                               headers=factories.headers(member)), "csv")
    assert rows[0] == ["sample_puid", "sample_name", "serovar"]


def test_bad_parameters(testapp, factories, world):
    owner, _, project, _ = world
    headers = factories.headers(owner)
    assert "format" in testapp.get(url(project, format="pdf"), headers=headers,
                                   status=400).json
    testapp.get(url(project, template="nope"), headers=headers, status=404)
    outsider = factories.user(username="outsider")
    testapp.get(url(project), headers=factories.headers(outsider), status=404)


def test_graphql_download_link(testapp, graphql, factories, world):
    _, member, project, (s1, _) = world
    graphql.as_user(member)
    data = graphql("""query($p: ID!) { linelistDownload(projectId: $p, format: "tsv") {
        url expiresAt columns } }""", {"p": f"gid://seqcore/Project/{project.id}"})
    link = data["data"]["linelistDownload"]
    assert "patient" not in link["columns"]
    path = link["url"].replace("http://localhost", "")
    rows = rows_of(testapp.get(path), "tsv")  # no credentials needed
    assert rows[0] == link["columns"] and rows[1][:2] == [s1.puid, "S-1"]
    testapp.get(path[:-3] + "xyz", status=403)
    bad = graphql("""query($p: ID!) { linelistDownload(projectId: $p, format: "doc") {
        url } }""", {"p": f"gid://seqcore/Project/{project.id}"})
    assert bad["errors"][0]["message"].startswith("format")


def test_the_writer_is_reusable(world, db, tmp_path):
    _, member, project, _ = world
    linelist = linelist_columns(db, Caller(member.id), project.id)
    target = tmp_path / "out.csv"
    with target.open("wb") as out:
        write_linelist(db, linelist, "csv", out)
    rows = list(csv.reader(target.open()))
    assert rows[0] == ["sample_puid", "sample_name", "age", "note", "serovar"]
    assert rows[1][1] == "S-1"


FORMULAS = {"f_eq": "=HYPERLINK(\"http://x\",\"y\")", "f_plus": "+1+2", "f_minus": "-3+4",
            "f_at": "@SUM(A1)", "f_tab": "\t=1+1", "f_cr": "\r=1+1", "plain": "a=b"}


@pytest.mark.parametrize("fmt", ["csv", "tsv", "xlsx"])
def test_values_a_spreadsheet_would_run_are_neutralised(testapp, factories, db, fmt):
    """OWASP's CSV injection: a value (or field name) beginning with = + - @ TAB or CR is
    never a formula. Delimited text gets a leading quote; XLSX keeps the exact text in a
    string cell, which a spreadsheet never evaluates."""
    owner = factories.user()
    project = factories.project(owner=owner)
    factories.sample(project, name="S-1", metadata={**FORMULAS, "=cmd|' /C calc'!A0": "x"})
    res = testapp.get(url(project, format=fmt), headers=factories.headers(owner))
    if fmt == "xlsx":
        sheet = load_workbook(io.BytesIO(res.body)).active
        header, row = list(sheet.iter_rows(min_row=1, max_row=2))
        cells = dict(zip([c.value for c in header], row, strict=True))
        assert "=cmd|' /C calc'!A0" in cells
        for cell in (*header, *row):
            assert cell.data_type in ("s", "n"), (cell.value, cell.data_type)
        for field, value in FORMULAS.items():
            # XML reads a CR as a line feed (XML 1.0 section 2.11), in any XLSX reader.
            assert cells[field].value == value.replace("\r", "\n")
            assert cells[field].data_type == "s"
        return
    header, row = rows_of(res, fmt)
    values = dict(zip(header, row, strict=True))
    assert "'=cmd|' /C calc'!A0" in values
    for field, value in FORMULAS.items():
        assert values[field] == (value if field == "plain" else "'" + value)
