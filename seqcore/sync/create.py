"""Making a synchronized project: a local project named after a remote one, which the
worker then fills and keeps in step."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.errors.domain import Forbidden, Invalid, NotFound
from seqcore.imports.irida import PROJECT_FIELDS
from seqcore.imports.remote import Remote, RemoteError, api_root, resources
from seqcore.models.project import Project
from seqcore.models.remote import ProjectSync, RemoteApi
from seqcore.models.user import User
from seqcore.parsing.schemas import ProjectSchema, check
from seqcore.remotes.connections import RemoteUnauthorized, connection_for, remote_for
from seqcore.sync.frequency import INTERVALS

_PROJECT_PATH = re.compile(r"/projects/(\d+)/?$")


@dataclass(frozen=True)
class RemoteProjectEntry:
    """A project the user's remote account reads there (what the picker lists)."""

    identifier: str
    name: str
    description: str | None
    url: str


def connected_remote(db: Session, user_id: int, remote_api_id: int) -> tuple[RemoteApi, Remote]:
    """The remote API and a client of it with the user's connection; :class:`NotFound` for
    no such remote API, :class:`Forbidden` when the user has not connected to it."""
    api = db.get(RemoteApi, remote_api_id)
    if api is None:
        raise NotFound(f"No remote API {remote_api_id}.")
    connection = connection_for(db, api.id, user_id)
    if connection is None:
        raise Forbidden(f"Connect your account to {api.name} first: a synchronized project "
                        "is read with your own connection.")
    try:
        return api, remote_for(db, connection)
    except RemoteUnauthorized as err:
        raise Forbidden(f"{api.name} no longer accepts your connection ({err}): connect "
                        "your account again.") from None


def remote_projects(remote: Remote) -> list[RemoteProjectEntry]:
    """The projects the connected account reads on the other install."""
    found = []
    for entry in resources(remote.get_json("projects")):
        pid = str(entry["identifier"])
        found.append(RemoteProjectEntry(pid, str(entry.get("name") or pid),
                                        entry.get("projectDescription"),
                                        f"{remote.api}/projects/{pid}"))
    return found


def project_url(api: RemoteApi, url_or_id: str) -> str:
    """The remote project's canonical URL (``<base>/api/projects/<id>``), from that URL or
    the bare id; :class:`Invalid` for a URL of another install or not of a project."""
    root = api_root(api.base_url)
    value = url_or_id.strip()
    if value.isdigit():
        return f"{root}/projects/{value}"
    found = _PROJECT_PATH.search(value)
    if not value.startswith(root + "/") or found is None:
        raise Invalid({"projectUrl": [f"Give a project of {api.name}: {root}/projects/ID."]})
    return f"{root}/projects/{found.group(1)}"


def create_synchronized_project(db: Session, user: User, remote_api_id: int, url_or_id: str,
                                frequency: str | None) -> Project:
    """A new local project of ``user`` mirroring the remote project, its sync scheduled
    now. The user must have a connection to the remote API whose account reads the project
    (:class:`Forbidden` otherwise); nothing is written when a check fails."""
    from seqcore.projects.projects import new_project

    if frequency is not None and frequency not in INTERVALS:
        raise Invalid({"syncFrequency": ["Choose one of " + ", ".join(INTERVALS) + "."]})
    api, remote = connected_remote(db, user.id, remote_api_id)
    url = project_url(api, url_or_id)
    try:
        entry: dict[str, Any] = remote.get_json(url)["resource"]
    except RemoteError as err:
        raise Forbidden(f"{api.name} does not let your account read {url}: {err}") from None
    wire = {key: entry.get(key) for key in PROJECT_FIELDS}
    values = check(ProjectSchema(), wire, allow_unknown=True)
    local = {PROJECT_FIELDS[key]: value for key, value in values.items()}
    local.update(remote_url=url, sync_frequency=frequency or "WEEKLY")
    project = new_project(db, user.id, user.username, local)  # type: ignore[arg-type]
    db.flush()
    db.add(ProjectSync(project_id=project.id, remote_api_id=api.id, user_id=user.id,
                       remote_url=url, status="scheduled", next_sync=utcnow()))
    db.flush()
    return project
