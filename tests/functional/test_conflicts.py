"""A write the database refuses is a 409 with a ``{"message": ...}`` body, never a 500,
whether it surfaces when a view flushes or only when the transaction commits."""

from __future__ import annotations

from sqlalchemy import func, select

from seqcore.models.project import Project
from tests.plugins import unflushed


def test_a_duplicate_found_at_commit_is_a_409_and_nothing_is_kept(build_app, factories, db):
    app = build_app([unflushed])
    headers = factories.headers(factories.user())
    app.post_json("/api/unflushed", {}, headers=headers, status=201)
    res = app.post_json("/api/unflushed", {}, headers=headers, status=409)
    assert res.json == {"message": "An entity already exists with that identifier: another "
                                   "project has this path."}
    assert db.scalar(select(func.count()).select_from(Project)) == 1


def test_a_row_referring_to_a_missing_one_is_a_409(build_app, factories, db):
    app = build_app([unflushed])
    res = app.put_json("/api/unflushed", {}, headers=factories.headers(factories.user()),
                       status=409)
    assert res.json == {"message": "Something this request refers to was removed by another "
                                   "request while it ran; nothing of this request was saved."}
