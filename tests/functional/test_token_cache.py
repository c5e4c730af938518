"""The per-process cache of bearer-token checks: used while nothing changed, never past the
token's expiry, and dropped by any change that alters a check (the revocation generation)."""

from __future__ import annotations

import time

import pytest
from sqlalchemy import update

from seqcore.models.oauth import OAuthToken
from seqcore.models.user import SystemRole, User


def warm(testapp, headers):
    for _ in range(2):  # the first may restore the generation row a test emptied
        testapp.get("/api", headers=headers, status=200)


def test_a_cached_check_costs_one_tiny_statement(testapp, factories, sql_counter):
    headers = factories.headers(factories.user(username="cached"))
    warm(testapp, headers)
    with sql_counter:
        testapp.get("/api", headers=headers, status=200)
    assert sql_counter.count == 1  # the revocation generation, nothing else


def test_expiry_is_exact_though_the_check_is_cached(testapp, factories):
    user = factories.user(username="short-lived")
    token = factories.token(user, lifetime=2)
    headers = {"Authorization": f"Bearer {token}"}
    warm(testapp, headers)
    time.sleep(2.1)
    res = testapp.get("/api", headers=headers, status=401)
    assert res.json["message"] == "The access token has expired."


@pytest.mark.parametrize("change, message", [
    ({"enabled": False}, "The account is disabled."),
])
def test_a_changed_account_is_checked_afresh(testapp, factories, engine, change, message):
    user = factories.user(username="changing")
    headers = factories.headers(user)
    warm(testapp, headers)
    with engine.begin() as conn:  # by hand, outside the application: triggers still see it
        conn.execute(update(User).where(User.id == user.id).values(**change))
    assert testapp.get("/api", headers=headers, status=401).json["message"] == message


def test_a_changed_role_is_seen_at_once(testapp, factories, engine):
    user = factories.user(username="promoted")
    headers = factories.headers(user)
    warm(testapp, headers)
    testapp.get("/api/plugins", headers=headers, status=403)
    with engine.begin() as conn:
        conn.execute(update(User).where(User.id == user.id)
                     .values(system_role=SystemRole.ADMIN.value))
    testapp.get("/api/plugins", headers=headers, status=200)


def test_revocation_by_sql_is_seen_at_once(testapp, factories, engine):
    headers = factories.headers(factories.user(username="revoked-by-hand"))
    warm(testapp, headers)
    with engine.begin() as conn:
        conn.execute(update(OAuthToken).values(revoked=True))
    res = testapp.get("/api", headers=headers, status=401)
    assert res.json["message"] == "The access token has been revoked."


def test_without_a_cache_every_request_looks_the_token_up(build_app, factories, sql_counter):
    app = build_app(**{"seqcore.oauth.token_cache_seconds": 0})
    headers = factories.headers(factories.user(username="uncached"))
    warm(app, headers)
    with sql_counter:
        app.get("/api", headers=headers, status=200)
    assert sql_counter.count == 2  # the generation and the token
