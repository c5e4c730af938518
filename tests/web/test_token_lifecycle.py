"""Personal access token rotation on the profile page, the administrator's maximum lifetime
(``seqcore.tokens.require_expiry``, ``seqcore.tokens.max_lifetime_days``) and the cleanup of
expired and revoked tokens, through WebTest, GraphQL over HTTP and the real database."""

import base64
from datetime import timedelta

import pytest
from sqlalchemy import func, select

from seqcore.db import utcnow
from seqcore.models.access_token import PersonalAccessToken

TOKENS = "/-/profile/personal_access_tokens"
LIMITED = {"seqcore.tokens.require_expiry": "true", "seqcore.tokens.max_lifetime_days": "30"}


def sign_in(testapp, user, password="Password1!"):
    page = testapp.get("/users/sign_in")
    page.form["username"] = user.username
    page.form["password"] = password
    page.form.submit(status=303)


def basic(email, secret):
    return {"Authorization": "Basic " + base64.b64encode(f"{email}:{secret}".encode()).decode()}


def who(testapp, email, secret, status=200):
    """``currentUser.email`` over GraphQL with the token (or the 401 answer's message)."""
    answer = testapp.post_json("/api/graphql", {"query": "{ currentUser { email } }"},
                               headers=basic(email, secret), status=status)
    if status == 401:
        return answer.json["errors"][0]["message"]
    return answer.json["data"]["currentUser"]["email"]


def csrf(testapp):
    return testapp.get(TOKENS).html.find("input", {"name": "csrf_token"})["value"]


def rows(db):
    db.expire_all()
    return list(db.scalars(select(PersonalAccessToken).order_by(PersonalAccessToken.id)))


def create(testapp, name="ci", scopes=("read_api",), expires="", status=201):
    form = testapp.get(TOKENS).forms[1]
    form["name"] = name
    form["expires_at"] = expires
    for box in form.fields["scopes"]:
        box.checked = box._value in scopes
    return form.submit(status=status)


def test_rotation_revokes_the_old_secret_and_shows_a_working_new_one(testapp, factories, db):
    user = factories.user()
    sign_in(testapp, user)
    in_ten_days = (utcnow() + timedelta(days=10)).date().isoformat()
    old = create(testapp, name="laptop", scopes=("read_api", "api"),
                 expires=in_ten_days).html.find(id="new-token")["value"]
    assert who(testapp, user.email, old) == user.email
    (token,) = rows(db)
    # The Rotate button is the row's second form (after Revoke), with the CSRF token.
    listing = testapp.get(TOKENS)
    rotate_form = listing.forms[3]
    assert rotate_form.action == f"{TOKENS}/{token.id}/rotate"
    page = rotate_form.submit(status=201)
    new = page.html.find(id="new-token")["value"]
    assert new.startswith("sqc_") and new != old
    assert "old secret has stopped working" in page.text
    assert who(testapp, user.email, new) == user.email
    assert who(testapp, user.email, old, status=401) == \
        "The personal access token has been revoked."
    # Not a REST credential either way: the old secret gets REST's 401 too.
    testapp.get("/api/projects", headers=basic(user.email, old), status=401)
    testapp.get("/api/projects", headers={"Authorization": f"Bearer {old}"}, status=401)
    before, after = rows(db)
    assert before.revoked and before.revoked_at is not None
    assert (after.name, after.scopes, after.revoked) == ("laptop", "read_api api", False)
    assert after.expires_at.date() == utcnow().date() + timedelta(days=10)
    # The secret is shown once: the listing shows neither.
    listing = testapp.get(TOKENS)
    assert new not in listing.text and old not in listing.text
    statuses = [tr.find_all("td")[5].text.strip() for tr in listing.html.find("tbody")("tr")]
    assert statuses == ["Active", "Revoked"]


def test_a_token_without_expiry_rotates_to_one_without_expiry(testapp, factories, db):
    user = factories.user()
    factories.access_token(user, scopes=("read_api",), name="forever")
    sign_in(testapp, user)
    (token,) = rows(db)
    testapp.post(f"{TOKENS}/{token.id}/rotate", {"csrf_token": csrf(testapp)}, status=201)
    _, successor = rows(db)
    assert (successor.name, successor.scopes, successor.expires_at) == \
        ("forever", "read_api", None)


@pytest.mark.parametrize("kind", ["revoked", "expired", "someone else's", "unknown"])
def test_rotating_what_does_not_work_is_refused_and_changes_nothing(testapp, factories, db,
                                                                    kind):
    user = factories.user()
    owner = factories.user() if kind == "someone else's" else user
    secret = factories.access_token(
        owner, revoked=kind == "revoked",
        expires_at=utcnow() - timedelta(days=1) if kind == "expired" else None)
    sign_in(testapp, user)
    (token,) = rows(db)
    before = [(t.id, t.revoked, t.revoked_at, t.expires_at) for t in rows(db)]
    token_id = token.id + 1000 if kind == "unknown" else token.id
    status = 409 if kind in ("revoked", "expired") else 404
    page = testapp.post(f"{TOKENS}/{token_id}/rotate", {"csrf_token": csrf(testapp)},
                        status=status)
    message = {"revoked": "has been revoked; only a working token can be rotated",
               "expired": "has expired; only a working token can be rotated"}.get(
        kind, "You have no such token.")
    assert message in page.text
    assert [(t.id, t.revoked, t.revoked_at, t.expires_at) for t in rows(db)] == before
    if kind == "someone else's":
        assert who(testapp, owner.email, secret) == owner.email


def test_rotation_needs_the_csrf_token_and_a_session(testapp, factories, db):
    user = factories.user()
    secret = factories.access_token(user)
    (token,) = rows(db)
    # Without a session there is no CSRF token to send: refused before anything else.
    testapp.post(f"{TOKENS}/{token.id}/rotate", status=400)
    sign_in(testapp, user)
    testapp.post(f"{TOKENS}/{token.id}/rotate", {"csrf_token": "forged"}, status=400)
    testapp.post(f"{TOKENS}/abc/rotate", {"csrf_token": csrf(testapp)}, status=404)
    assert [t.revoked for t in rows(db)] == [False]
    assert who(testapp, user.email, secret) == user.email


def test_of_two_concurrent_rotations_one_wins(app_config, factories, db):
    """Each in its own session and transaction, as two requests are."""
    import threading

    import transaction

    from seqcore.db import session_for
    from seqcore.oauth.personal import RotationRefused, rotate_token
    from seqcore.services import ISessionFactory, registry_service

    user = factories.user()
    factories.access_token(user, name="shared")
    (token,) = rows(db)
    factory = registry_service(app_config.registry, ISessionFactory)
    start, outcomes = threading.Barrier(2), []

    def rotate():
        manager = transaction.TransactionManager(explicit=True)
        start.wait()
        try:
            with manager:
                rotate_token(session_for(factory, manager), user.id, token.id)
            outcomes.append("rotated")
        except RotationRefused as refused:
            outcomes.append(refused.message)

    threads = [threading.Thread(target=rotate) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == sorted([
        "rotated", "The token 'shared' has been revoked; only a working token can be "
                   "rotated: create a new one instead."])
    assert [(t.name, t.revoked) for t in rows(db)] == [("shared", True), ("shared", False)]


@pytest.mark.parametrize(("expires", "problem"), [
    (None, "Give the token an expiry date, at most 30 days from today"),
    (31, "The expiry date must be at most 30 days from today"),
    (400, "The expiry date must be at most 30 days from today"),
])
def test_the_maximum_lifetime_refuses_tokens_that_live_longer(build_app, factories, db,
                                                              expires, problem):
    testapp = build_app(None, **LIMITED)
    sign_in(testapp, factories.user())
    day = "" if expires is None else (utcnow().date() + timedelta(days=expires)).isoformat()
    page = create(testapp, expires=day, status=400)
    assert problem in page.html.find(role="alert").text
    assert page.html.find(id="new-token") is None
    assert rows(db) == []


def test_the_form_says_the_rule_and_takes_the_longest_expiry(build_app, factories, db):
    testapp = build_app(None, **LIMITED)
    sign_in(testapp, factories.user())
    field = testapp.get(TOKENS).html.find(id="expires_at-field")
    latest = (utcnow().date() + timedelta(days=30)).isoformat()
    assert field.has_attr("required") and field["max"] == latest
    create(testapp, expires=latest)
    assert [t.expires_at.date().isoformat() for t in rows(db)] == [latest]


def test_a_token_older_than_a_new_maximum_stops_working_at_the_limit(build_app, factories,
                                                                     db):
    user = factories.user()
    old = factories.access_token(user, created=utcnow() - timedelta(days=31))
    young = factories.access_token(user, created=utcnow() - timedelta(days=29),
                                   expires_at=utcnow() + timedelta(days=300))
    unlimited, limited = build_app(None), build_app(None, **LIMITED)
    assert who(unlimited, user.email, old) == user.email
    assert who(limited, user.email, old, status=401) == (
        "The personal access token has expired: personal access tokens work at most 30 days "
        "here.")
    assert who(limited, user.email, young) == user.email
    # The page shows the day each stops working, and the old one as expired.
    sign_in(limited, user)
    cells = [[td.text.strip() for td in tr("td")]
             for tr in limited.get(TOKENS).html.find("tbody")("tr")]
    assert [(row[4], row[5]) for row in cells] == [
        ((utcnow() + timedelta(days=1)).date().isoformat(), "Active"),
        ((utcnow() - timedelta(days=1)).date().isoformat(), "Expired")]
    # Rotating under the limit: the successor's span is capped at the maximum.
    young_id = rows(db)[1].id
    limited.post(f"{TOKENS}/{young_id}/rotate", {"csrf_token": csrf(limited)}, status=201)
    assert rows(db)[-1].expires_at.date() == utcnow().date() + timedelta(days=30)


def test_cleanup_deletes_only_tokens_dead_for_the_cleanup_period(app_config, factories, db):
    from seqcore.oauth.personal import LifetimeRules, TokenSweeper, prune_tokens

    user = factories.user()
    now = utcnow()
    keep = {
        "working": factories.access_token(user),
        "expired recently": factories.access_token(user, expires_at=now - timedelta(days=29)),
        "revoked recently": factories.access_token(user, revoked=True,
                                                   revoked_at=now - timedelta(days=29)),
        "old but working": factories.access_token(user, created=now - timedelta(days=400),
                                                  expires_at=now + timedelta(days=1)),
    }
    gone = {
        "expired long ago": factories.access_token(user, expires_at=now - timedelta(days=31)),
        "revoked long ago": factories.access_token(
            user, revoked=True, revoked_at=now - timedelta(days=31),
            expires_at=now + timedelta(days=5)),
    }
    secrets = {**keep, **gone}
    for name, secret in secrets.items():
        db.execute(PersonalAccessToken.__table__.update()
                   .where(PersonalAccessToken.token_hash == _digest(secret))
                   .values(name=name))
    db.commit()
    # The worker's round, with the default 30 days.
    assert app_config.get_settings()["seqcore.tokens.cleanup_after_days"] == 30
    TokenSweeper(app_config.registry).run_once()
    assert sorted(t.name for t in rows(db)) == sorted(keep)
    # Under a maximum lifetime of 60 days, the 400-day-old token died 340 days ago.
    assert prune_tokens(db, 30, LifetimeRules(require_expiry=True, max_days=60)) == 1
    db.commit()
    assert sorted(t.name for t in rows(db)) == sorted(set(keep) - {"old but working"})
    assert db.scalar(select(func.count()).select_from(PersonalAccessToken)) == 3


def _digest(secret):
    from seqcore.models.oauth import digest

    return digest(secret)
