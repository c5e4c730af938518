"""E-mail notifications through a real SMTP server on loopback (aiosmtpd): what each event
sends, that an account can turn a kind off, that nothing is sent for a change rolled back,
and that a mail server that is down or refuses never fails the operation that wrote the
message, which is sent once it is back."""

from __future__ import annotations

import contextlib
import email
import email.policy
import socket
from datetime import timedelta
from email.message import Message

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select

from seqcore.db import utcnow
from seqcore.models.access_token import PersonalAccessToken
from seqcore.models.analysis import AnalysisSubmission
from seqcore.models.notification import OutgoingMail
from seqcore.notifications.delivery import MailWorker, deliver
from seqcore.testing.uploads import fastq


class Inbox:
    """An aiosmtpd handler keeping every message it receives; ``refuse`` answers 451."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.refuse = False

    async def handle_DATA(self, server, session, envelope):
        if self.refuse:
            return "451 Try again later"
        self.messages.append(email.message_from_bytes(envelope.content,
                                                      policy=email.policy.default))
        return "250 OK"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def inbox(app_config, monkeypatch):
    """A live SMTP server, and the application configured to send through it."""
    handler = Inbox()
    port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    settings = app_config.registry.settings
    monkeypatch.setitem(settings, "seqcore.mail.host", "127.0.0.1")
    monkeypatch.setitem(settings, "seqcore.mail.port", port)
    monkeypatch.setitem(settings, "seqcore.mail.timeout", 5.0)
    handler.servers = [controller]  # type: ignore[attr-defined]

    def restart() -> None:  # a controller does not start twice: a new one, same port
        handler.servers.append(Controller(handler, hostname="127.0.0.1", port=port))
        handler.servers[-1].start()

    handler.restart = restart  # type: ignore[attr-defined]
    yield handler
    for server in handler.servers:
        with contextlib.suppress(Exception):
            server.stop()


def send(app_config, db) -> int:
    db.expire_all()
    return MailWorker(app_config.registry).run_once()


def body(message: Message) -> str:
    return message.get_payload(decode=True).decode()  # type: ignore[union-attr]


def test_a_member_added_to_a_project_is_told(testapp, factories, app_config, db, inbox):
    owner = factories.user(first_name="Olga")
    newcomer = factories.user(username="newcomer", first_name="Nina")
    project = factories.project(owner=owner, name="Listeria 2026")
    testapp.post_json(f"/api/projects/{project.id}/users",
                      {"userId": "newcomer", "role": "PROJECT_USER"},
                      headers=factories.headers(owner), status=201)
    assert send(app_config, db) == 1
    (message,) = inbox.messages
    assert message["To"] == newcomer.email
    assert message["Subject"] == '[seqcore] You were added to project "Listeria 2026"'
    assert message["Auto-Submitted"] == "auto-generated"
    text = body(message)
    assert text.startswith("Hello Nina,")
    assert f"/-/projects/{project.id}" in text
    assert f"/api/users/{newcomer.id}/notifications" in text
    # Sent once: the next round has nothing to send.
    assert send(app_config, db) == 0 and len(inbox.messages) == 1


def test_a_member_added_to_a_group_is_told(factories, app_config, db,
                                           inbox):
    from seqcore.models.group import AccessLevel

    owner = factories.user()
    joiner = factories.user(username="joiner")
    group = factories.group(owner, name="Enterics", path="enterics")
    from seqcore.projects.groups import add_group_member

    def work(session):
        add_group_member(session, session.get(type(group), group.id),
                         session.get(type(joiner), joiner.id), AccessLevel.MAINTAINER,
                         actor_id=owner.id)

    factories._write(work)
    send(app_config, db)
    (message,) = inbox.messages
    assert message["Subject"] == '[seqcore] You were added to group "Enterics"'
    assert "as Maintainer" in body(message)


def test_an_account_turns_a_kind_off_and_on(testapp, factories, app_config, db, inbox):
    owner = factories.user()
    quiet = factories.user(username="quiet")
    headers = factories.headers(quiet)
    prefs = testapp.get(f"/api/users/{quiet.id}/notifications", headers=headers).json
    assert prefs["resource"]["notifications"] == {
        "export_ready": True, "analysis_finished": True, "token_expiring": True,
        "member_added": True}
    assert prefs["resource"]["mailEnabled"] is True
    changed = testapp.put_json(f"/api/users/{quiet.id}/notifications",
                               {"member_added": False}, headers=headers).json
    assert changed["resource"]["notifications"]["member_added"] is False
    project = factories.project(owner=owner)
    testapp.post_json(f"/api/projects/{project.id}/users",
                      {"userId": "quiet", "role": "PROJECT_USER"},
                      headers=factories.headers(owner), status=201)
    assert send(app_config, db) == 0 and inbox.messages == []
    # Bad input changes nothing and says why; others may not read or change the choice.
    refused = testapp.put_json(f"/api/users/{quiet.id}/notifications",
                               {"member_added": True, "fax": True, "export_ready": "no"},
                               headers=headers, status=400).json
    assert set(refused) >= {"fax", "export_ready"}
    assert testapp.get(f"/api/users/{quiet.id}/notifications", headers=headers).json[
        "resource"]["notifications"]["member_added"] is False
    # Another account finds nothing there.
    testapp.get(f"/api/users/{quiet.id}/notifications",
                headers=factories.headers(owner), status=404)
    testapp.put_json(f"/api/users/{quiet.id}/notifications", {"member_added": True},
                     headers=factories.headers(owner), status=404)
    testapp.put_json(f"/api/users/{quiet.id}/notifications", {"member_added": True},
                     headers=headers)
    assert testapp.get(f"/api/users/{quiet.id}/notifications", headers=headers).json[
        "resource"]["notifications"]["member_added"] is True


def test_nothing_is_sent_for_a_change_rolled_back(testapp, factories, app_config, db, inbox):
    """Adding a member who is one already is refused: the message written with it goes."""
    owner = factories.user()
    member = factories.user(username="already")
    project = factories.project(owner=owner, members=[(member, "PROJECT_USER")])
    testapp.post_json(f"/api/projects/{project.id}/users",
                      {"userId": "already", "role": "PROJECT_USER"},
                      headers=factories.headers(owner), status=409)
    assert db.scalar(select(OutgoingMail.id)) is None
    assert send(app_config, db) == 0 and inbox.messages == []


def test_a_mail_server_down_or_refusing_fails_nothing_and_is_retried(
        testapp, factories, app_config, db, inbox):
    owner = factories.user()
    factories.user(username="late")
    project = factories.project(owner=owner)
    inbox.servers[0].stop()
    testapp.post_json(f"/api/projects/{project.id}/users",
                      {"userId": "late", "role": "PROJECT_USER"},
                      headers=factories.headers(owner), status=201)
    assert send(app_config, db) == 0
    db.expire_all()
    (mail,) = db.scalars(select(OutgoingMail))
    assert mail.attempts == 1 and mail.sent_at is None and mail.last_error
    assert mail.next_attempt > utcnow()
    # Back up, and refusing: the message stays, its attempts count.
    inbox.restart()
    inbox.refuse = True
    mail.next_attempt = utcnow() - timedelta(seconds=1)
    db.commit()
    assert deliver(db, app_config.registry.settings) == 0
    db.commit()
    db.expire_all()
    assert db.get(OutgoingMail, mail.id).attempts == 2
    assert "451" in db.get(OutgoingMail, mail.id).last_error
    # Accepting: sent once.
    inbox.refuse = False
    db.get(OutgoingMail, mail.id).next_attempt = utcnow() - timedelta(seconds=1)
    db.commit()
    assert send(app_config, db) == 1
    assert len(inbox.messages) == 1 and inbox.messages[0]["To"] == "late@example.org"


def test_an_expiring_token_is_announced_once(factories, app_config, db, inbox):
    holder = factories.user(username="holder")
    soon = PersonalAccessToken(user_id=holder.id, name="pipeline bot", token_hash="a" * 64,
                               scopes="api", expires_at=utcnow() + timedelta(days=2))
    later = PersonalAccessToken(user_id=holder.id, name="far away", token_hash="b" * 64,
                                scopes="api", expires_at=utcnow() + timedelta(days=90))
    db.add_all([soon, later])
    db.commit()
    assert send(app_config, db) == 1
    (message,) = inbox.messages
    assert message["Subject"].startswith(
        '[seqcore] Your personal access token "pipeline bot" expires on ')
    worker = MailWorker(app_config.registry)
    worker.run_once()
    assert len(inbox.messages) == 1


def test_a_token_ending_at_the_maximum_lifetime_is_announced(factories, app_config, db,
                                                             inbox, monkeypatch):
    """Under seqcore.tokens.require_expiry, a token without expiry that reaches the maximum
    lifetime within the warning period is announced with the day it stops; one already
    past it, or far from it, is not."""
    holder = factories.user(username="limited")
    for name, age in (("ending soon", 28), ("already over", 31), ("young", 5)):
        factories.access_token(holder, name=name, created=utcnow() - timedelta(days=age))
    settings = app_config.registry.settings
    monkeypatch.setitem(settings, "seqcore.tokens.require_expiry", True)
    monkeypatch.setitem(settings, "seqcore.tokens.max_lifetime_days", 30)
    assert send(app_config, db) == 1
    (message,) = inbox.messages
    ends = (utcnow() + timedelta(days=2)).date().isoformat()
    assert message["Subject"].startswith(
        f'[seqcore] Your personal access token "ending soon" expires on {ends}')
    assert send(app_config, db) == 0 and len(inbox.messages) == 1


def test_a_ready_export_and_a_finished_analysis_are_told(testapp, factories, app_config, db,
                                                         inbox, upload_reads, run_analysis):
    from seqcore.exports.worker import ExportWorker

    owner = factories.user(username="analyst")
    project = factories.project(owner=owner, name="Salmonella")
    sample = factories.sample(project, name="S1")
    headers = factories.headers(owner)
    reads = upload_reads(sample, headers, kind="unpaired", files=[("s.fastq", fastq(seed=3))])
    launched = run_analysis.launch("readcount", [reads], headers).json["resource"]
    submission_id = int(launched["identifier"])
    db.get(AnalysisSubmission, submission_id).email_notification = True
    db.commit()
    finished = run_analysis.drive(submission_id, headers)
    assert finished.state == "COMPLETED"
    export = testapp.post_json(f"/api/projects/{project.id}/exports",
                               {"name": "for the lab", "samples": [sample.id]},
                               headers=headers, status=201).json["resource"]
    ExportWorker(app_config.registry, "w").run_once()
    assert send(app_config, db) == 2
    subjects = sorted(m["Subject"] for m in inbox.messages)
    assert subjects == ['[seqcore] Analysis "readcount (test)" completed',
                        '[seqcore] Data export "for the lab" is ready']
    ready = next(m for m in inbox.messages if "export" in m["Subject"])
    assert f"/api/exports/{export['identifier']}/download" in body(ready)


def test_no_mail_is_written_while_mail_is_off(testapp, factories, app_config, db):
    assert not app_config.registry.settings["seqcore.mail.host"]
    owner = factories.user()
    factories.user(username="silent")
    project = factories.project(owner=owner)
    testapp.post_json(f"/api/projects/{project.id}/users",
                      {"userId": "silent", "role": "PROJECT_USER"},
                      headers=factories.headers(owner), status=201)
    assert db.scalar(select(OutgoingMail.id)) is None
    prefs = testapp.get(f"/api/users/{owner.id}/notifications",
                        headers=factories.headers(owner)).json
    assert prefs["resource"]["mailEnabled"] is False
