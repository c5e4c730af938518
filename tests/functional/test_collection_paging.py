"""Issue 33 point 20: ``?limit`` is honoured on every collection, never silently ignored:
every GET that answers ``{"resource": {"resources": [...]}}`` pages with ``?limit=N&page=K``
and links ``next``/``prev``; a bad value is a 400 naming the parameter."""

from __future__ import annotations

import pytest

from seqcore.models.user import SystemRole


@pytest.fixture
def world(factories):
    admin = factories.user(role=SystemRole.ADMIN)
    owner = factories.user()
    members = [factories.user(username=f"paged-user-{n}") for n in range(3)]
    projects = [factories.project(owner=owner, name=f"Paged {n}",
                                  members=[(m, "PROJECT_USER") for m in members])
                for n in range(3)]
    for n in range(3):
        factories.sample(projects[0], name=f"paged-sample-{n}")
    return {"admin": factories.headers(admin), "owner": factories.headers(owner),
            "project": projects[0]}


COLLECTIONS = ["/api/projects", "/api/users", "/api/projects/{pid}/users",
               "/api/users/current/projects", "/api/projects/{pid}/samples"]


@pytest.mark.parametrize("path", COLLECTIONS)
def test_every_collection_pages(testapp, world, path):
    url = path.format(pid=world["project"].id)
    headers = world["admin"]
    whole = testapp.get(url, headers=headers).json["resource"]["resources"]
    assert len(whole) >= 2, whole
    first = testapp.get(url, {"limit": 1}, headers=headers).json["resource"]
    assert first["resources"] == whole[:1]
    links = {link["rel"]: link["href"] for link in first["links"]}
    assert "page=2" in links["next"] and "prev" not in links
    second = testapp.get(links["next"].replace("http://localhost", ""),
                         headers=headers).json["resource"]
    assert second["resources"] == whole[1:2]
    assert "prev" in {link["rel"] for link in second["links"]}
    last = testapp.get(url, {"limit": len(whole)}, headers=headers).json["resource"]
    assert last["resources"] == whole and "next" not in {x["rel"] for x in last["links"]}
    for bad in ("0", "-1", "many", "²", "10001"):
        refused = testapp.get(url, {"limit": bad}, headers=headers, status=400).json
        assert "limit" in refused


@pytest.mark.parametrize("path", COLLECTIONS)
def test_a_refused_limit_leaves_no_cursor_behind(testapp, world, factories, path):
    """A 400 for a bad ``?limit`` comes after the collection's query ran: its rows are read
    anyway, so no connection goes back to the pool half-read (the next write on it would
    fail with "database is locked" on SQLite)."""
    url = path.format(pid=world["project"].id)
    for _ in range(3):
        testapp.get(url, {"limit": "0"}, headers=world["admin"], status=400)
        factories.user()  # a write on whichever pooled connection comes next
