"""The acceptance matrix of field restrictions: for each restriction level and each kind of
caller, every read path shows exactly the fields it should: REST sample metadata, the
project metadata collection, declared fields, the line list, the sample history and
project activity, GraphQL metadata, metadataSummary, metadataFields and filters. On SQLite
and PostgreSQL alike: the suite runs on whichever database the test kit is given."""

from __future__ import annotations

import pytest

from seqcore.models.fielddecl import MetadataField
from seqcore.models.project import ProjectRole
from seqcore.models.user import SystemRole

LEVELS = ["LEVEL_1", "LEVEL_2", "LEVEL_3", "LEVEL_4"]
FIELDS = {f"f{n}": level for n, level in enumerate(LEVELS, 1)}
FREE = "free"  # undeclared: everyone reads it

#: caller -> the restriction levels it reads
CALLERS = {
    "member-LEVEL_1": LEVELS[:1], "member-LEVEL_2": LEVELS[:2],
    "member-LEVEL_3": LEVELS[:3], "member-LEVEL_4": LEVELS[:4],
    "owner": LEVELS, "admin": LEVELS, "sequencer": LEVELS[:1],
}


@pytest.fixture
def world(testapp, factories, db):
    owner = factories.user(username="owner")
    admin = factories.user(SystemRole.ADMIN, username="admin")
    sequencer = factories.user(SystemRole.SEQUENCER, username="uploader")
    members = {level: factories.user(username=f"member{level[-1]}") for level in LEVELS}
    project = factories.project(owner=owner, members=[
        (user, ProjectRole.USER, level) for level, user in members.items()])
    for name, level in FIELDS.items():
        db.add(MetadataField(project_id=project.id, name=name, restriction=level))
    db.commit()
    sample = factories.sample(project, name="S1")
    # Written through the API, so the trail records the values too.
    testapp.put_json(f"/api/samples/{sample.id}/metadata",
                     {name: {"value": f"v-{name}"} for name in [*FIELDS, FREE]},
                     headers=factories.headers(owner))
    callers = {f"member-{level}": user for level, user in members.items()}
    callers.update(owner=owner, admin=admin, sequencer=sequencer)
    return project, sample, callers


def expected(caller: str) -> set[str]:
    return {name for name, level in FIELDS.items() if level in CALLERS[caller]} | {FREE}


def paths(testapp, graphql, factories, project, sample, user) -> dict[str, set[str]]:
    """What each read path shows the caller."""
    headers = factories.headers(user)
    seen: dict[str, set[str]] = {}
    body = testapp.get(f"/api/samples/{sample.id}/metadata", headers=headers).json
    seen["rest sample metadata"] = set(body["resource"]["metadata"])
    body = testapp.get(f"/api/projects/{project.id}/samples/metadata", headers=headers).json
    seen["rest project metadata"] = set(body["resource"]["resources"][0]["metadata"])
    body = testapp.get(f"/api/projects/{project.id}/metadataFields", headers=headers).json
    seen["rest declared fields"] = {f["name"] for f in body["resource"]["resources"]} | {FREE}
    body = testapp.get(f"/api/projects/{project.id}/linelist", headers=headers)
    seen["line list"] = set(body.text.splitlines()[0].split(",")[2:])
    for name, url in (("sample history", f"/api/samples/{sample.id}/history"),
                      ("project activity", f"/api/projects/{project.id}/activity")):
        entries = testapp.get(url, headers=headers).json["resource"]["resources"]
        seen[name] = {c["field"] for e in entries for c in e["changes"] if c["on"] == "metadata"}
    graphql.as_user(user)
    data = graphql("""query($s: ID!, $p: ID!) {
        node(id: $s) { ... on Sample { metadata } }
        project: node(id: $p) { ... on Project { metadataSummary metadataFields { name } } }
    }""", {"s": f"gid://seqcore/Sample/{sample.id}",
           "p": f"gid://seqcore/Project/{project.id}"})["data"]
    seen["graphql metadata"] = set(data["node"]["metadata"])
    seen["graphql metadataSummary"] = set(data["project"]["metadataSummary"])
    seen["graphql metadataFields"] = {f["name"] for f in data["project"]["metadataFields"]} | {
        FREE}
    for where in ("project", "samples"):
        found = set()
        for name in [*FIELDS, FREE]:
            for operator, value in (("EXISTS", None), ("EQUALS", f"v-{name}"),
                                    ("CONTAINS", "v")):
                if name == FREE and operator != "EXISTS":
                    continue
                condition = {"field": f"metadata.{name}", "operator": operator}
                if value is not None:
                    condition["value"] = value
                query = ("""query($p: ID!, $f: SampleFilter) { node(id: $p) { ... on Project {
                    samples(filter: $f) { totalCount } } } }""" if where == "project" else
                         """query($f: SampleFilter) { samples(filter: $f) { totalCount } }""")
                variables = {"f": {"advanced_search": [[condition]]}}
                if where == "project":
                    variables["p"] = f"gid://seqcore/Project/{project.id}"
                data = graphql(query, variables)["data"]
                count = (data["node"]["samples"] if where == "project"
                         else data["samples"])["totalCount"]
                if count:
                    found.add(name)
        seen[f"graphql filter ({where})"] = found
    return seen


@pytest.mark.parametrize("caller", sorted(CALLERS))
def test_every_read_path_shows_exactly_the_readable_fields(testapp, graphql, factories, world,
                                                           caller):
    project, sample, callers = world
    seen = paths(testapp, graphql, factories, project, sample, callers[caller])
    want = expected(caller)
    assert seen == dict.fromkeys(seen, want)


@pytest.mark.parametrize("caller", ["member-LEVEL_1", "member-LEVEL_3"])
def test_a_negated_filter_on_a_hidden_field_does_not_tell_it_apart(graphql, world, caller):
    """NOT_EQUALS on a field the caller cannot read matches whatever the value is."""
    _, _, callers = world
    graphql.as_user(callers[caller])
    counts = set()
    for value in ("v-f4", "something else"):
        data = graphql("""query($f: SampleFilter) { samples(filter: $f) { totalCount } }""",
                       {"f": {"advanced_search": [[{"field": "metadata.f4",
                                                    "operator": "NOT_EQUALS",
                                                    "value": value}]]}})
        counts.add(data["data"]["samples"]["totalCount"])
    assert counts == {1}


# -- sharing, copying and transferring never widen what anyone reads -----------------------


def web_copy(testapp, source, target, sample_id, user):
    """The workbench's bulk copy, as a signed-in browser sends it."""
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = "Password1!"
    page.form.submit(status=303)
    token = testapp.get(f"/-/projects/{source.id}").forms["samples-bulk"]["csrf_token"].value
    confirm = testapp.post(f"/-/projects/{source.id}/samples/copy",
                           {"csrf_token": token, "selected": [str(sample_id)]})
    form = confirm.forms[1]
    form["target"] = str(target.id)
    form.submit(status=303)
    testapp.reset()


@pytest.mark.parametrize("how", ["rest share", "graphql shareSamples", "web copy"])
def test_a_copy_into_ones_own_project_reads_no_restricted_field(testapp, graphql, factories,
                                                                world, how):
    """A LEVEL_1 member copies the sample into a project it owns, with a colleague at
    LEVEL_4 there: neither reads, on any path, a field the first project keeps from them."""
    project, sample, callers = world
    member = callers["member-LEVEL_1"]
    colleague = factories.user(username="colleague")
    mine = factories.project(owner=member, name="Mine",
                             members=[(colleague, ProjectRole.USER, "LEVEL_4")])
    if how == "rest share":
        testapp.post(f"/api/projects/{mine.id}/samples", f"[{sample.id}]", status=201,
                     headers={**factories.headers(member),
                              "Content-Type": "application/idcollection+json"})
    elif how == "graphql shareSamples":
        graphql.as_user(member)
        answer = graphql("""mutation($s: ID!, $t: ID!, $ids: [ID!]!) {
            shareSamples(input: {projectId: $s, newProjectId: $t, sampleIds: $ids}) {
              samples errors { message } } }""", {
            "s": f"gid://seqcore/Project/{project.id}",
            "t": f"gid://seqcore/Project/{mine.id}",
            "ids": [f"gid://seqcore/Sample/{sample.id}"]})["data"]["shareSamples"]
        assert answer["errors"] == [] and len(answer["samples"]) == 1
    else:
        web_copy(testapp, project, mine, sample.id, member)
    # Values written after the copy are recorded in both projects' trails.
    testapp.put_json(f"/api/samples/{sample.id}/metadata",
                     {name: {"value": f"w-{name}"} for name in [*FIELDS, FREE]},
                     headers=factories.headers(callers["owner"]))
    for user in (member, colleague):
        seen = paths(testapp, graphql, factories, mine, sample, user)
        # The copy's project declares nothing: its declarations list only the free field.
        assert seen.pop("rest declared fields") == seen.pop("graphql metadataFields") == {FREE}
        assert seen == {key: {"f1", FREE} for key in seen}, user.username
    # Nor may they write what they cannot read.
    testapp.put_json(f"/api/samples/{sample.id}/metadata", {"f4": {"value": "x"}},
                     headers=factories.headers(member), status=403)
    # Those the first project lets read every field still do, in the copy's project too.
    seen = paths(testapp, graphql, factories, project, sample, callers["member-LEVEL_4"])
    assert seen == dict.fromkeys(seen, expected("member-LEVEL_4"))


def test_a_transfer_that_would_reveal_a_restricted_field_is_refused(testapp, graphql,
                                                                    factories, world, db):
    """A transfer takes the sample away from the project whose restriction protects the
    field: it is refused while someone at the target would read what they cannot now, and
    goes through once nobody there gains."""
    from seqcore.models.sample import ProjectSample

    project, sample, callers = world
    owner = callers["owner"]
    stranger = factories.user(username="stranger")
    target = factories.project(owner=owner, name="Target",
                               members=[(stranger, ProjectRole.USER, "LEVEL_1")])
    graphql.as_user(owner)
    transfer = """mutation($s: ID!, $t: ID!, $ids: [ID!]!) {
        transferSamples(input: {projectId: $s, newProjectId: $t, sampleIds: $ids}) {
          samples errors { message path } } }"""
    variables = {"s": f"gid://seqcore/Project/{project.id}",
                 "t": f"gid://seqcore/Project/{target.id}",
                 "ids": [f"gid://seqcore/Sample/{sample.id}"]}
    answer = graphql(transfer, variables)["data"]["transferSamples"]
    assert answer["samples"] is None or answer["samples"] == []
    [error] = answer["errors"]
    # Two would gain: the target's member and the uploader (sequencer accounts read every
    # project's open fields).
    assert "f2, f3, f4" in error["message"] and "2 account(s)" in error["message"]
    assert db.query(ProjectSample).filter_by(sample_id=sample.id).one().project_id == project.id
    # The workbench refuses it too, with the same words, and moves nothing.
    testapp.reset()
    page = testapp.get("/users/sign_in")
    page.form["username"], page.form["password"] = owner.username, "Password1!"
    page.form.submit(status=303)
    token = testapp.get(f"/-/projects/{project.id}").forms["samples-bulk"]["csrf_token"].value
    form = testapp.post(f"/-/projects/{project.id}/samples/move",
                        {"csrf_token": token, "selected": [str(sample.id)]}).forms[1]
    form["target"] = str(target.id)
    assert "f2, f3, f4" in form.submit(status=403).text
    testapp.reset()
    db.expire_all()
    assert db.query(ProjectSample).filter_by(sample_id=sample.id).one().project_id == project.id
    # Once the target restricts the fields as the source does, nobody there gains.
    for name, level in FIELDS.items():
        db.add(MetadataField(project_id=target.id, name=name, restriction=level))
    db.commit()
    answer = graphql(transfer, variables)["data"]["transferSamples"]
    assert answer["errors"] == [] and answer["samples"] == variables["ids"]
    testapp.put_json(f"/api/samples/{sample.id}/metadata",
                     {name: {"value": f"w-{name}"} for name in [*FIELDS, FREE]},
                     headers=factories.headers(owner))
    seen = paths(testapp, graphql, factories, target, sample, stranger)
    assert seen == {key: {"f1", FREE} for key in seen}


@pytest.mark.parametrize("caller", ["member-LEVEL_1", "member-LEVEL_4"])
def test_the_rest_sample_list_filter_does_not_probe_a_hidden_field(testapp, factories, world,
                                                                   caller):
    """``?metadata.<field>=<value>`` on a project's samples matches only fields the caller
    reads: a hidden field matches no sample, whatever its value."""
    project, _, callers = world
    headers = factories.headers(callers[caller])
    found = testapp.get(f"/api/projects/{project.id}/samples?metadata.f4=v-f4",
                        headers=headers).json["resource"]["resources"]
    assert len(found) == (1 if caller == "member-LEVEL_4" else 0)
    assert len(testapp.get(f"/api/projects/{project.id}/samples?metadata.f1=v-f1",
                           headers=headers).json["resource"]["resources"]) == 1
