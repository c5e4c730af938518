"""The worker's ``sync`` round: take a synchronized project that is due, compare the remote
project's hash with the last one synchronized, and mirror it when it changed.

A project is taken with a conditional update of its ``project_sync`` row (due, and no sync
running, or one whose ``started`` is older than the lease: its worker stopped), so two
workers never sync one project; the running worker renews ``started`` while it works.
"""

from __future__ import annotations

import logging
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select, update

from seqcore.db import utcnow
from seqcore.imports.remote import Remote, RemoteError
from seqcore.models.project import Project
from seqcore.models.remote import ProjectSync
from seqcore.models.user import User
from seqcore.qc.processing import LeasedWorker, heartbeat
from seqcore.remotes.connections import RemoteUnauthorized, connection_for, remote_for
from seqcore.sync.frequency import next_sync

log = logging.getLogger(__name__)

_ID_AT_END = "/projects/"


def _free(now: datetime, lease: Any) -> Any:
    return or_(ProjectSync.started.is_(None), ProjectSync.started < now - lease)


class SyncWorker(LeasedWorker):
    def run_once(self) -> int:
        """Sync the projects that are due, one after the other; how many were taken."""
        done = 0
        with self.session() as (db, _):
            now = utcnow()
            due = list(db.scalars(select(ProjectSync.project_id).where(
                ProjectSync.next_sync <= now, _free(now, self.lease))
                .order_by(ProjectSync.next_sync)))
        for project_id in due:
            if self.take(project_id):
                self.sync(project_id)
                done += 1
        return done

    def take(self, project_id: int) -> bool:
        with self.session() as (db, _):
            now = utcnow()
            taken = db.execute(update(ProjectSync).where(
                ProjectSync.project_id == project_id, ProjectSync.next_sync <= now,
                _free(now, self.lease)).values(started=now, status="updating")
                .execution_options(synchronize_session=False))
            return bool(taken.rowcount)  # type: ignore[attr-defined]

    def _renew(self, project_id: int) -> None:
        with self.session() as (db, _):
            db.execute(update(ProjectSync).where(ProjectSync.project_id == project_id)
                       .values(started=utcnow()).execution_options(synchronize_session=False))

    def sync(self, project_id: int) -> None:
        """One sync of a taken project; its row says how it ended."""
        with heartbeat(self.lease, lambda: self._renew(project_id),
                       f"synchronized project {project_id}"):
            try:
                status, error, remote_hash = self._sync(project_id)
            except Exception as err:  # recorded as the project's error, and logged
                log.exception("the sync of project %s failed", project_id)
                status, error, remote_hash = "error", f"{type(err).__name__}: {err}", None
        with self.session() as (db, _):
            row = db.get(ProjectSync, project_id)
            if row is None:
                return
            project = db.get(Project, project_id)
            now = utcnow()
            row.status, row.error, row.started = status, error, None
            if remote_hash is not None:
                row.remote_hash = remote_hash
            row.last_sync = now
            row.next_sync = next_sync(project.sync_frequency if project else None, now)

    def _sync(self, project_id: int) -> tuple[str, str | None, str | None]:
        with self.session() as (db, _):
            row = db.get_one(ProjectSync, project_id)
            connection = (None if row.user_id is None
                          else connection_for(db, row.remote_api_id, row.user_id))
            if connection is None:
                return ("unauthorized", "The user who created it has no connection to the "
                        "remote API any more: connect again.", None)
            try:
                remote = remote_for(db, connection)
            except RemoteUnauthorized as err:
                return ("unauthorized", "The remote install no longer accepts the "
                        f"connection: {err}", None)
            owner = db.get_one(User, row.user_id)
            db.expunge(owner)
            url, known_hash = row.remote_url, row.remote_hash
        try:
            answer = remote.get_json(url.rstrip("/") + "/hash")
            remote_hash = str(answer["resource"]["projectHash"])
        except RemoteError as err:
            if isinstance(err, RemoteUnauthorized) or err.status in (401, 403):
                return "unauthorized", f"The remote install refused the connection: {err}", None
            return "error", str(err), None
        if remote_hash == known_hash:
            return "synchronized", None, None
        outcome = self._mirror(project_id, remote, owner, url)
        if outcome.failures:
            return "error", "\n".join(outcome.failures)[:10000], None
        return "synchronized", None, remote_hash

    def _mirror(self, project_id: int, remote: Remote, owner: User, url: str) -> Any:
        from pyramid.scripting import prepare

        from seqcore.sync.mirror import Mirror, read_remote

        remote_id = url.rstrip("/").rsplit(_ID_AT_END, 1)[-1]
        prepared = prepare(registry=self.registry)
        try:
            request = prepared["request"]
            plan = read_remote(request, remote, project_id, remote_id)
            problems = [str(p) for p in plan.problems if p.blocking]
            outcome = Mirror(request, remote, owner, project_id).mirror(plan)
            outcome.failures[:0] = problems
            return outcome
        finally:
            prepared["closer"]()
