"""Every ``/api`` path answers the same with and without one trailing slash (DECISIONS,
"Trailing slashes"): ``/api/`` is the root, and the legacy IRIDA uploader (0.7.1) starts
there. The rewrite is done once, before routing (``seqcore.parsing.wellformed.canonical_path``), so
the generic test walks every registered route, with every method it declares, from the same
enumeration the fuzzing kit uses; links in the answers never end in a slash."""

from __future__ import annotations

import json
import re

import pytest

from seqcore.models.export import DataExport
from seqcore.models.fielddecl import MetadataTemplate
from seqcore.models.ncbi import NcbiSubmission
from seqcore.models.project import Project
from seqcore.models.remote import RemoteApi
from seqcore.models.user import SystemRole
from seqcore.parsing.wellformed import canonical_path
from seqcore.projects.bots import create_bot
from seqcore.testing.fuzzing import PLACEHOLDER, discover_targets

MISSING = "2147483647"  # a valid id that names nothing
COMPARED_HEADERS = ("Content-Type", "Content-Length", "Allow", "Location", "WWW-Authenticate")


@pytest.fixture
def world(factories, db):
    """One of everything, so most placeholders name a real object."""
    admin = factories.user(role=SystemRole.ADMIN)
    project = factories.project(owner=admin)
    sample = factories.sample(project)
    pair = factories.sequencing_object(sample, "pairs")
    run = factories.run(admin)
    outputs = {"counts": ("counts.tsv", b"sample\tfile\treads\tbases\n")}
    submission = factories.submission(admin, [pair], projects=[project], state="COMPLETED",
                                      outputs=outputs)
    ncbi = NcbiSubmission(project_id=project.id, bio_project="PRJNA1", organization="Lab",
                          namespace="LAB")
    db.add(ncbi)
    export = DataExport(project_id=project.id, requester_id=admin.id,
                        selection={"samples": [sample.id]})
    db.add(export)
    template = MetadataTemplate(project_id=project.id, name="T")
    db.add(template)
    remote = RemoteApi(name="Remote", base_url="https://irida.example.org", client_id="c",
                       client_secret="s")
    db.add(remote)
    db.commit()
    group = factories.group(admin)
    with factories.session_factory() as session:
        bot, _ = create_bot(session, session.get_one(Project, project.id), "UPLOADER", "slash",
                            ["api"], actor_id=None)
        bid = bot.id
        session.commit()
    return {
        "headers": factories.headers(admin),
        "values": {"gid": group.id, "pid": project.id, "sid": sample.id, "oid": pair.id,
                   "nid": ncbi.id, "eid": export.id,
                   "fid": pair.files[0].id, "rid": run.id, "id": submission.id,
                   "type": "readcount", "name": "readcount", "kind": "pairs",
                   "username": admin.username, "key": "current",
                   "tid": template.id, "trid": 1, "bid": bid, "raid": remote.id},
    }


def fill(pattern: str, values: dict, missing: bool = False) -> str:
    def one(match: re.Match[str]) -> str:
        if missing and (match.group(2) or "").startswith("[0-9]"):
            return MISSING
        return str(values[match.group(1)])

    return PLACEHOLDER.sub(one, pattern)


def answer(testapp, method: str, path: str, headers: dict) -> tuple:
    """What a client sees: status, the compared headers and the body."""
    body = b"{" if method in ("POST", "PUT", "PATCH") else None  # malformed: changes nothing
    extra = {"Content-Type": "application/json"} if body is not None else {}
    res = testapp.request(path, method=method, body=body, headers={**headers, **extra},
                          expect_errors=True)
    return (res.status_int, {h: res.headers.get(h) for h in COMPARED_HEADERS}, res.body)


def api_targets(testapp) -> list:
    return [t for t in discover_targets(testapp.app.registry)
            if t.pattern == "/api" or t.pattern.startswith("/api/")]


def test_every_route_and_method_answers_the_same_with_a_trailing_slash(testapp, world):
    targets = api_targets(testapp)
    assert len(targets) >= 40  # the core's endpoints, OAuth's, GraphQL's
    found = []
    for target in targets:
        methods = target.methods if target.endpoint else ("GET", "POST", "HEAD")
        for method in (*methods, "OPTIONS"):
            # DELETE only what does not exist: both spellings must meet the same object.
            path = fill(target.pattern, world["values"], missing=method == "DELETE")
            plain = answer(testapp, method, path, world["headers"])
            slashed = answer(testapp, method, path + "/", world["headers"])
            assert slashed == plain, (method, path)
            if method == "GET" and plain[0] == 200:
                found.append(target.name)
        # The slashed path is routed to the endpoint itself: OPTIONS lists its verbs (OAuth's
        # endpoints and the capability URLs of direct uploads and attachment downloads
        # authenticate by other means and answer no OPTIONS).
        if target.endpoint and not target.pattern.startswith(
                ("/api/oauth/", "/api/directUploads/", "/api/attachments/")):
            allow = testapp.options(fill(target.pattern, world["values"]) + "/",
                                    headers=world["headers"]).headers["Allow"]
            assert set(allow.split(", ")) == {*target.methods, "OPTIONS"}, target.name
    # Real objects behind most of them, not a wall of identical 404s.
    assert len(found) >= 30, found


def test_get_api_root_with_the_slash(testapp, world):
    res = testapp.get("/api/", headers=world["headers"])
    assert res.json == testapp.get("/api", headers=world["headers"]).json
    links = {link["rel"]: link["href"] for link in res.json["resource"]["links"]}
    assert links["self"] == "http://localhost/api"
    assert links["projects"] == "http://localhost/api/projects"


def test_post_a_project_with_the_slash(testapp, world):
    res = testapp.post_json("/api/projects/", {"name": "Slashed"}, headers=world["headers"],
                            status=201)
    assert not res.headers["Location"].endswith("/")
    created = testapp.get(res.headers["Location"], headers=world["headers"]).json
    assert created == res.json
    assert all(not link["href"].endswith("/") for link in res.json["resource"]["links"])
    names = [p["name"] for p in testapp.get("/api/projects", headers=world["headers"])
             .json["resource"]["resources"]]
    assert names.count("Slashed") == 1


def test_patch_with_the_slash(testapp, world):
    pid = world["values"]["pid"]
    res = testapp.patch_json(f"/api/projects/{pid}/", {"projectDescription": "slashed"},
                             headers=world["headers"], status=200)
    assert res.json["resource"]["links"][0]["href"] == f"http://localhost/api/projects/{pid}"
    got = testapp.get(f"/api/projects/{pid}", headers=world["headers"]).json["resource"]
    assert got["projectDescription"] == "slashed"
    # A bad PATCH is refused the same way on both spellings and changes nothing.
    plain = testapp.patch_json(f"/api/projects/{pid}", {"bogus": 1},
                               headers=world["headers"], status=400)
    slashed = testapp.patch_json(f"/api/projects/{pid}/", {"bogus": 1},
                                 headers=world["headers"], status=400)
    assert slashed.json == plain.json


def test_version_and_options_the_way_iridas_clients_spell_them(testapp, world):
    # base_url "http://host/api/" + "/version" and OPTIONS on base_url + "/".
    assert testapp.get("/api//version/", headers=world["headers"]).json["version"]
    testapp.options("/api//", headers=world["headers"], status=200)
    testapp.options("/api/", status=401)


def test_two_trailing_slashes_collapse_to_one(testapp, world):
    # '//' is collapsed anywhere (DECISIONS, "Paths"), so '/api/projects//' is
    # '/api/projects/', which is '/api/projects'.
    assert (testapp.get("/api/projects//", headers=world["headers"]).json
            == testapp.get("/api/projects", headers=world["headers"]).json)


def test_paging_links_and_streamed_collections_keep_no_slash(testapp, world):
    res = testapp.get("/api/projects/?limit=1", headers=world["headers"])
    for link in res.json["resource"]["links"]:
        assert "/api/projects?" in link["href"] or link["href"].endswith("/api/projects"), link


def test_unauthenticated_and_unknown_paths_answer_as_without_the_slash(testapp, world):
    assert testapp.get("/api/projects/", status=401).json == testapp.get(
        "/api/projects", status=401).json
    assert testapp.get("/api/nowhere/", headers=world["headers"], status=404).json == {
        "message": "The resource was not found."}


def test_web_pages_keep_their_own_paths(testapp):
    # The ruling covers /api only: a page's slashed twin stays unknown.
    assert testapp.get("/users/sign_in").status_int == 200
    testapp.get("/users/sign_in/", status=404)


@pytest.mark.parametrize(("raw", "canonical"), [
    ("/api/", "/api"), ("/api", "/api"), ("/api//", "/api"), ("/api/projects/", "/api/projects"),
    ("/api//projects//5/", "/api/projects/5"), ("/users/sign_in/", "/users/sign_in/"),
    ("//users//sign_in", "/users/sign_in"), ("/", "/"),
])
def test_canonical_path(raw, canonical):
    assert canonical_path(raw) == canonical


def test_a_malformed_graphql_request_keeps_graphqls_shape_with_the_slash(testapp):
    res = testapp.post("/api/graphql/", b"{}", headers={
        "Content-Type": "application/json; charset=bogus"}, status=400)
    assert json.loads(res.body)["errors"][0]["extensions"]["code"] == "bad_request"
