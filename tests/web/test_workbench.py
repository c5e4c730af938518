"""The workbench's pages through WebTest: each page shows what the domain lets the account
read and nothing else (field restrictions included), refuses bad input with 400 and changes
nothing, and speaks English or French."""

import io

import pytest
from openpyxl import load_workbook

from seqcore.models.fielddecl import MetadataField
from seqcore.models.group import Group
from seqcore.models.project import ProjectRole


def sign_in(testapp, user):
    testapp.reset()  # a fresh browser: no earlier session
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)


@pytest.fixture
def lab(factories, db):
    """An owner's project of 30 samples with a LEVEL_3 field ``patient`` and an open field
    ``serovar``; a member at LEVEL_1; an outsider."""
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    outsider = factories.user(username="outsider")
    project = factories.project(owner=owner, name="Salmonella 2026",
                                members=[(member, ProjectRole.USER, "LEVEL_1")])
    db.add(MetadataField(project_id=project.id, name="patient", restriction="LEVEL_3"))
    db.commit()
    samples = [factories.sample(project, name=f"S{n:02d}", metadata={
        "serovar": "Enteritidis" if n % 3 == 0 else "Typhimurium", "patient": f"P{n}"})
        for n in range(30)]
    return {"owner": owner, "member": member, "outsider": outsider, "project": project,
            "samples": samples}


def test_dashboard_lists_only_what_the_account_reads(testapp, factories, lab):
    factories.project(owner=lab["outsider"], name="Hidden project")
    sign_in(testapp, lab["member"])
    page = testapp.get("/")
    assert "Salmonella 2026" in page.text
    assert "Hidden project" not in page.text
    assert page.html.find("nav", {"aria-label": "Main"}).find("a", string="Projects")
    # Administrator links only for administrators.
    assert not page.html.find("a", string="Accounts")


def test_project_page_is_404_for_an_outsider_and_sign_in_for_nobody(testapp, lab):
    project = lab["project"]
    response = testapp.get(f"/-/projects/{project.id}", status=302)
    assert "/users/sign_in?next=" in response.location
    sign_in(testapp, lab["outsider"])
    testapp.get(f"/-/projects/{project.id}", status=404)
    testapp.get(f"/-/samples/{lab['samples'][0].id}", status=404)
    testapp.get("/-/projects/999999", status=404)
    assert "Salmonella 2026" not in testapp.get("/-/projects").text


def test_sample_table_pages_sorts_and_filters_by_metadata(testapp, lab):
    sign_in(testapp, lab["owner"])
    project = lab["project"]
    page = testapp.get(f"/-/projects/{project.id}?per_page=25")
    rows = page.html.select("#samples tbody tr")
    assert len(rows) == 25
    assert "Rows 1-25 of 30" in page.text
    second = testapp.get(f"/-/projects/{project.id}?per_page=25&page=2")
    assert [r.find("a").text for r in second.html.select("#samples tbody tr")] == [
        "S25", "S26", "S27", "S28", "S29"]
    by_serovar = testapp.get(f"/-/projects/{project.id}?field=serovar&value=enteri")
    names = [r.find("a").text for r in by_serovar.html.select("#samples tbody tr")]
    assert names == [f"S{n:02d}" for n in range(0, 30, 3)]
    descending = testapp.get(f"/-/projects/{project.id}?sort=name&direction=desc")
    assert descending.html.select("#samples tbody tr")[0].find("a").text == "S29"
    by_field = testapp.get(f"/-/projects/{project.id}?sort=m:serovar&per_page=50")
    assert by_field.html.select("#samples tbody tr")[0].find_all("td")[-1].text in (
        "Enteritidis", "P0")


def test_sample_table_refuses_bad_query_values(testapp, lab):
    sign_in(testapp, lab["owner"])
    project = lab["project"]
    for query in ("page=0", "page=x", "per_page=7", "sort=password", "direction=up",
                  "created_from=yesterday", "field=nonesuch"):
        testapp.get(f"/-/projects/{project.id}?{query}", status=400)


def test_restricted_field_is_nowhere_for_a_lower_level(testapp, lab):
    project, sample = lab["project"], lab["samples"][1]
    sign_in(testapp, lab["member"])
    page = testapp.get(f"/-/projects/{project.id}")
    assert "patient" not in page.text and "P1" not in page.text
    assert "serovar" in page.text
    # Neither a filter nor a sort nor a column can probe it.
    testapp.get(f"/-/projects/{project.id}?field=patient&value=P1", status=400)
    testapp.get(f"/-/projects/{project.id}?sort=m:patient", status=400)
    testapp.get(f"/-/projects/{project.id}?column=patient", status=400)
    sample_page = testapp.get(f"/-/samples/{sample.id}")
    assert "Typhimurium" in sample_page.text
    assert "patient" not in sample_page.text and "P1" not in sample_page.text
    # The export the member makes leaves it out too.
    form = page.forms["samples-bulk"]
    response = testapp.post(f"/-/projects/{project.id}/linelist?format=csv",
                            {"csrf_token": form["csrf_token"].value,
                             "selected": [str(sample.id)]})
    assert response.text.splitlines() == ["sample_puid,sample_name,serovar",
                                          f"{sample.puid},S01,Typhimurium"]
    # The owner sees it.
    sign_in(testapp, lab["owner"])
    assert "P1" in testapp.get(f"/-/samples/{sample.id}").text


def test_export_selected_samples_as_xlsx(testapp, lab):
    sign_in(testapp, lab["owner"])
    project, samples = lab["project"], lab["samples"]
    page = testapp.get(f"/-/projects/{project.id}")
    form = page.forms["samples-bulk"]
    response = testapp.post(f"/-/projects/{project.id}/linelist?format=xlsx",
                            {"csrf_token": form["csrf_token"].value,
                             "selected": [str(samples[3].id), str(samples[4].id)]})
    assert response.content_type.endswith("spreadsheetml.sheet")
    sheet = load_workbook(io.BytesIO(response.body)).active
    values = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert values[0] == ["sample_puid", "sample_name", "patient", "serovar"]
    assert [row[1:] for row in values[1:]] == [["S03", "P3", "Enteritidis"],
                                               ["S04", "P4", "Typhimurium"]]
    # Every matching row, by the filter the form carried.
    response = testapp.post(f"/-/projects/{project.id}/linelist?format=csv",
                            {"csrf_token": form["csrf_token"].value, "all_matching": "1",
                             "filter.field": "serovar", "filter.value": "Enteritidis"})
    assert len(response.text.splitlines()) == 1 + 10
    # Nothing selected, or no CSRF token: refused.
    testapp.post(f"/-/projects/{project.id}/linelist?format=csv",
                 {"csrf_token": form["csrf_token"].value}, status=400)
    testapp.post(f"/-/projects/{project.id}/linelist?format=csv",
                 {"selected": [str(samples[3].id)]}, status=400)
    # Samples of another project are not exported through this one.
    other = testapp.post(f"/-/projects/{project.id}/linelist?format=csv",
                         {"csrf_token": form["csrf_token"].value, "selected": ["999999"]},
                         status=200)
    assert len(other.text.splitlines()) == 1


def test_page_statements_do_not_grow_with_page_size(testapp, lab, sql_counter):
    sign_in(testapp, lab["owner"])
    project = lab["project"]
    counts = []
    for size in (25, 50):
        with sql_counter:
            testapp.get(f"/-/projects/{project.id}?per_page={size}")
        counts.append(sql_counter.count)
    assert counts[0] == counts[1]


def test_create_group_and_project_through_forms(testapp, factories, db):
    user = factories.user(username="maker")
    sign_in(testapp, user)
    page = testapp.get("/-/groups")
    form = page.forms[1]
    form["name"] = "   "  # blank: refused with the domain's words, nothing written
    response = form.submit(status=400)
    assert "Name can't be blank." in response.html.find(role="alert").text
    assert db.query(Group).count() == 0
    form = response.forms[1]
    form["name"] = "Bacteriology"
    group_page = form.submit(status=303).follow()
    assert "Group Bacteriology created." in group_page.text
    group_id = db.query(Group).one().id
    projects = testapp.get(f"/-/projects?group={group_id}")
    form = projects.forms[2]
    form["name"] = "abc"  # REST's rule: at least 5 characters
    refused = form.submit(status=400)
    assert "at least 5 characters" in refused.text
    form = refused.forms[2]
    form["name"] = "Listeria survey"
    project_page = form.submit(status=303).follow()
    assert "Listeria survey" in project_page.text
    assert "Bacteriology" in testapp.get(f"/-/groups/{group_id}").text


def test_group_pages_follow_group_access(testapp, factories):
    owner = factories.user(username="gowner")
    outsider = factories.user(username="goutsider")
    group = factories.group(owner, name="Virology")
    sign_in(testapp, outsider)
    testapp.get(f"/-/groups/{group.id}", status=404)
    assert "Virology" not in testapp.get("/-/groups").text
    sign_in(testapp, owner)
    assert "Virology" in testapp.get("/-/groups").text
    assert "gowner" in testapp.get(f"/-/groups/{group.id}").text


def test_analysis_pages_follow_submission_access(testapp, factories, lab):
    obj = factories.sequencing_object(lab["samples"][0])
    submission = factories.submission(lab["owner"], [obj])
    sign_in(testapp, lab["outsider"])
    testapp.get(f"/-/analyses/{submission.id}", status=404)
    assert submission.name not in testapp.get("/-/analyses").text
    sign_in(testapp, lab["owner"])
    assert submission.name in testapp.get("/-/analyses").text
    assert submission.name in testapp.get(f"/-/analyses/{submission.id}").text


def test_pages_speak_french_by_browser_then_account(testapp, factories, db):
    page = testapp.get("/", headers={"Accept-Language": "fr-CA,fr;q=0.9,en;q=0.5"})
    assert page.html.find("html")["lang"] == "fr"
    assert "Se connecter" in page.text
    user = factories.user(username="anglo")
    sign_in(testapp, user)
    # The account's choice (English) wins over the browser's.
    page = testapp.get("/", headers={"Accept-Language": "fr"})
    assert page.html.find("html")["lang"] == "en"
    from seqcore.models.user import User

    db.get(User, user.id).locale = "fr"
    db.commit()
    page = testapp.get("/")
    assert page.html.find("html")["lang"] == "fr"
    assert "Tableau de bord" in page.text


def bulk_form(testapp, project, action, ids):
    page = testapp.get(f"/-/projects/{project.id}")
    token = page.forms["samples-bulk"]["csrf_token"].value
    return testapp.post(f"/-/projects/{project.id}/samples/{action}",
                        {"csrf_token": token, "selected": [str(i) for i in ids]})


def test_bulk_copy_move_metadata_remove(testapp, factories, db, lab):
    from seqcore.models.sample import MetadataEntry, ProjectSample

    owner, project, samples = lab["owner"], lab["project"], lab["samples"]
    target = factories.project(owner=owner, name="Archive 2026")
    sign_in(testapp, owner)
    # The confirmation page names the samples; confirming copies them.
    confirm = bulk_form(testapp, project, "copy", [samples[0].id, samples[1].id])
    assert "S00, S01" in confirm.text
    form = confirm.forms[1]
    form["target"] = str(target.id)
    form.submit(status=303)
    assert {j.sample_id for j in db.query(ProjectSample).filter_by(project_id=target.id)} == {
        samples[0].id, samples[1].id}
    # Copying the same samples again: refused with the domain's words, nothing written.
    again = bulk_form(testapp, project, "copy", [samples[0].id]).forms[1]
    again["target"] = str(target.id)
    assert "already in project" in again.submit(status=400).text
    # Metadata on many samples at once.
    form = bulk_form(testapp, project, "metadata", [samples[2].id, samples[3].id]).forms[1]
    form["field"] = "lab"
    form["value"] = "NML"
    form.submit(status=303)
    assert {e.sample_id for e in db.query(MetadataEntry).filter_by(field="lab")} == {
        samples[2].id, samples[3].id}
    # Removal from the project.
    bulk_form(testapp, project, "remove", [samples[4].id]).forms[1].submit(status=303)
    assert not db.query(ProjectSample).filter_by(project_id=project.id,
                                                 sample_id=samples[4].id).count()


def test_bulk_actions_follow_permissions(testapp, lab, db):
    from seqcore.models.sample import MetadataEntry, ProjectSample

    member, project, samples = lab["member"], lab["project"], lab["samples"]
    sign_in(testapp, member)
    page = testapp.get(f"/-/projects/{project.id}")
    buttons = {b.get("value") for b in page.html.select("#samples-bulk button[name=action]")}
    assert "remove" not in buttons and "move" not in buttons
    token = page.forms["samples-bulk"]["csrf_token"].value
    # A member may not remove (403) nor write the owner's samples (403); nothing changes.
    testapp.post(f"/-/projects/{project.id}/samples/remove",
                 {"csrf_token": token, "selected": [str(samples[5].id)], "confirm": "1"},
                 status=403)
    testapp.post(f"/-/projects/{project.id}/samples/metadata",
                 {"csrf_token": token, "selected": [str(samples[5].id)], "confirm": "1",
                  "field": "serovar", "value": "X"}, status=403)
    assert db.query(ProjectSample).filter_by(sample_id=samples[5].id).count() == 1
    assert db.query(MetadataEntry).filter_by(sample_id=samples[5].id,
                                             field="serovar").one().value == "Typhimurium"


def test_launch_form_from_the_parameter_schema(testapp, factories, lab, upload_reads,
                                               run_analysis):
    owner, project, samples = lab["owner"], lab["project"], lab["samples"]
    headers = factories.headers(owner)
    upload_reads(samples[0], headers)
    upload_reads(samples[1], headers)
    sign_in(testapp, owner)
    choose = bulk_form_launch(testapp, project, [samples[0].id, samples[1].id])
    form = choose.forms[1]
    form["analysis_type"] = "readcount"
    parameters = form.submit()
    assert parameters.html.find("input", {"name": "parameter.min_length"})["min"] == "0"
    form = parameters.forms[1]
    form["parameter.min_length"] = "-5"  # below the declared minimum: the API's words
    refused = form.submit(status=400)
    assert "must be at least 0" in refused.text
    form = refused.forms[1]
    form["parameter.min_length"] = "10"
    form["name"] = "counting from the web"
    detail = form.submit(status=303).follow()
    assert "counting from the web" in detail.text
    assert "Analysis launched." in detail.text  # one analysis: not "1 analyses launched."
    submission_id = int(detail.request.path.rsplit("/", 1)[1])
    run = run_analysis.drive(submission_id, headers)
    assert run.state == "COMPLETED"
    detail = testapp.get(f"/-/analyses/{submission_id}")
    assert "Completed" in detail.text
    assert detail.html.find(id="analysis-outputs").find("li")


def bulk_form_launch(testapp, project, ids):
    page = testapp.get(f"/-/projects/{project.id}")
    token = page.forms["samples-bulk"]["csrf_token"].value
    return testapp.post(f"/-/analyses/new?project={project.id}",
                        {"csrf_token": token, "selected": [str(i) for i in ids]})


def test_manage_members_fields_templates(testapp, factories, db, lab):
    from seqcore.models.project import ProjectMember

    owner, member, project = lab["owner"], lab["member"], lab["project"]
    newcomer = factories.user(username="newcomer")
    sign_in(testapp, owner)
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    assert "patient" in manage.text  # the owner reads the restricted field
    form = next(f for f in manage.forms.values() if "username" in f.fields)
    form["username"] = "newcomer"
    form["metadata_role"] = "LEVEL_2"
    assert "newcomer added." in form.submit(status=303).follow().text
    assert db.query(ProjectMember).filter_by(project_id=project.id,
                                             user_id=newcomer.id).one().metadata_role == "LEVEL_2"
    # Twice: the domain's conflict, shown as 409, nothing changes.
    form["username"] = "newcomer"
    form.submit(status=409)
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    fields_form = next(f for f in manage.forms.values() if "restriction" in f.fields)
    fields_form["name"] = "outcome"
    fields_form["restriction"] = "LEVEL_4"
    fields_form.submit(status=303)
    fields_form["name"] = " bad "  # the domain's rule on names
    fields_form.submit(status=400)
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    template_form = next(f for f in manage.forms.values() if "fields" in f.fields)
    template_form["name"] = "Outbreak"
    template_form.get("fields", index=0).checked = True
    template_form.submit(status=303)
    # The last owner cannot be removed.
    token = manage.forms[1]["csrf_token"].value
    testapp.post(f"/-/projects/{project.id}/manage/members/{owner.id}/remove",
                 {"csrf_token": token}, status=400)
    # A member reads the page without restricted fields and without the forms, and may
    # change nothing.
    sign_in(testapp, member)
    manage = testapp.get(f"/-/projects/{project.id}/manage")
    assert "outcome" not in manage.text and "patient" not in manage.text
    assert not manage.html.find("form", action=f"/-/projects/{project.id}/manage/members")
    token = manage.forms[0]["csrf_token"].value
    testapp.post(f"/-/projects/{project.id}/manage/members",
                 {"csrf_token": token, "username": "outsider"}, status=403)
    assert db.query(ProjectMember).filter_by(project_id=project.id).count() == 3


def test_bulk_copy_clones_the_samples_into_another_project(testapp, factories, db, lab):
    """"Copy" makes new samples in the target (GraphQL's copySamples); "Share" puts the same
    samples in it. A sample whose name the target already uses is named, the others copied."""
    from seqcore.models.sample import MetadataEntry, ProjectSample, Sample

    owner, project, samples = lab["owner"], lab["project"], lab["samples"]
    target = factories.project(owner=owner, name="Clones 2026")
    sign_in(testapp, owner)
    page = testapp.get(f"/-/projects/{project.id}")
    buttons = {b.get("value") for b in page.html.select("#samples-bulk button[name=action]")}
    assert {"copy", "clone"} <= buttons
    confirm = bulk_form(testapp, project, "clone", [samples[5].id])
    form = confirm.forms[1]
    form["target"] = str(target.id)
    form.submit(status=303)
    copy_id = db.query(ProjectSample).filter_by(project_id=target.id).one().sample_id
    assert copy_id != samples[5].id
    clone = db.get(Sample, copy_id)
    assert clone.name == samples[5].name and clone.puid != samples[5].puid
    assert db.query(MetadataEntry).filter_by(sample_id=copy_id,
                                             field="serovar").one().value == "Typhimurium"
    # Copying it again: the target has the name; nothing else to copy, so refused in words.
    again = bulk_form(testapp, project, "clone", [samples[5].id]).forms[1]
    again["target"] = str(target.id)
    refused = again.submit(status=400)
    assert samples[5].name in refused.text
    assert db.query(ProjectSample).filter_by(project_id=target.id).count() == 1
    # With one new sample beside it: that one is copied and the clash is named.
    mixed = bulk_form(testapp, project, "clone", [samples[5].id, samples[6].id]).forms[1]
    mixed["target"] = str(target.id)
    mixed.submit(status=303)
    assert db.query(ProjectSample).filter_by(project_id=target.id).count() == 2
    flashed = testapp.get(f"/-/projects/{project.id}").text
    assert "1 samples copied to Clones 2026; not copied:" in flashed
