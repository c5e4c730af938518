"""``GET /api/projects`` is spliced from pre-encoded parts for speed: its bytes must be those
the JSON renderer writes, entry for entry the same as ``GET /api/projects/{id}``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

from sqlalchemy import update

from seqcore.models.project import Project, ProjectRole


def test_the_listing_is_byte_for_byte_what_the_renderer_writes(testapp, factories, engine):
    owner = factories.user(username="lister")
    other = factories.user(username="other")
    plain = factories.project(owner=owner, name="Plain project")
    factories.project(owner=owner, name="Ünïcode ✓ “quoted” \\ back", organism="E. coli",
                      genome_size=5_000_000, description="line\nbreak\ttab")
    with engine.begin() as conn:  # timestamps no request writes: fractions, before 1970
        conn.execute(update(Project).where(Project.id == plain.id).values(
            created=datetime(1969, 12, 31, 23, 59, 59, 500_000, tzinfo=UTC),
            modified=datetime(2024, 2, 29, 23, 59, 59, 999_999, tzinfo=UTC)))
    factories.project(owner=other, name="Shared with the lister",
                      members=[(owner, ProjectRole.USER)])
    factories.project(owner=other, name="Not the lister's")
    headers = factories.headers(owner)
    listing = testapp.get("/api/projects", headers=headers)
    entries = []
    for entry in listing.json["resource"]["resources"]:
        single = testapp.get(f"/api/projects/{entry['identifier']}", headers=headers)
        assert single.content_type == listing.content_type
        assert single.headers["Content-Type"] == listing.headers["Content-Type"]
        entries.append(single.json["resource"])
    assert [e["name"] for e in entries] == ["Plain project", "Ünïcode ✓ “quoted” \\ back",
                                            "Shared with the lister"]
    expected = json.dumps({"resource": {"resources": entries,
                                        "links": listing.json["resource"]["links"]}})
    assert listing.body == expected.encode()
    assert b"\\u00dcn\\u00efcode" in listing.body  # ASCII escapes, as the renderer writes


def test_an_empty_listing(testapp, factories):
    user = factories.user(username="nobody-much")
    res = testapp.get("/api/projects", headers=factories.headers(user))
    assert res.body == json.dumps({"resource": {"resources": [], "links": [
        {"rel": "self", "href": "http://localhost/api/projects"}]}}).encode()
