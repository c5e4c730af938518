"""The register of remote APIs: adding one, changing it, deleting it, listing them.

Administrators only: the transports check that before they call (REST through the
``remoteapi:manage`` permission, the page through ``administrator``, the command line by
running on the server). Every value comes in under its REST name (``baseUrl``,
``clientId``...); problems come back under the same names, all at once, in an
:class:`~seqcore.errors.domain.Invalid`, and nothing is written. The client secret is stored
as given (this install must present it to the remote's token endpoint), and no transport
ever shows it again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from seqcore.errors.domain import Conflict, Invalid, NotFound
from seqcore.models.remote import ProjectSync, RemoteApi
from seqcore.parsing.identifiers import parse_id

#: ``irida``: IRIDA's REST API (and seqcore's); ``irida-next``: IRIDA Next's GraphQL API.
KINDS = ("irida", "irida-next")
#: The values a remote API is made of, by REST name: (column, longest length, required).
FIELDS: dict[str, tuple[str, int, bool]] = {
    "name": ("name", 255, True),
    "baseUrl": ("base_url", 1024, True),
    "kind": ("kind", 32, False),
    "graphqlUrl": ("graphql_url", 1024, False),
    "description": ("description", 10_000, False),
    "clientId": ("client_id", 255, True),
    "clientSecret": ("client_secret", 255, True),
}


def url_problem(value: str) -> str | None:
    """Why ``value`` is not an absolute http(s) URL this install can call, or ``None``."""
    try:
        parts = urlsplit(value)
        parts.port  # noqa: B018 (a port out of range raises here)
    except ValueError:
        return "This is not a URL."
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "An absolute http:// or https:// URL is needed, with a host."
    if parts.username is not None or parts.password is not None:
        return "The URL may not hold a user name or password."
    if parts.query or parts.fragment:
        return "The URL may not have a query or a fragment."
    if any(c.isspace() for c in value):
        return "The URL may not contain spaces."
    return None


def _text(name: str, value: Any, problems: dict[str, list[str]]) -> str | None:
    """``value`` as stripped text (``None`` for absent or empty); a problem if it is not
    text or too long."""
    if value is None:
        return None
    if not isinstance(value, str):
        problems[name] = ["This must be text."]
        return None
    value = value.strip()
    if len(value) > FIELDS[name][1]:
        problems[name] = [f"This is longer than {FIELDS[name][1]} characters."]
        return None
    return value or None


def _checked(db: Session, values: Mapping[str, Any], current: RemoteApi | None
             ) -> dict[str, Any]:
    """The columns to write, from the values given (a change: the fields sent only), or
    :class:`Invalid` with every problem."""
    problems: dict[str, list[str]] = {}
    given = {name: _text(name, values[name], problems) for name in FIELDS if name in values}
    for name, (_column, _length, required) in FIELDS.items():
        if name in problems or not required:
            continue
        if (current is None or name in given) and not given.get(name):
            problems[name] = [f"A remote API needs a {name}."]
    for name in ("baseUrl", "graphqlUrl"):
        url = given.get(name)
        if url and name not in problems:
            problem = url_problem(url)
            if problem:
                problems[name] = [problem]
            else:
                given[name] = url.rstrip("/")
    client_id = given.get("clientId")
    if client_id and any(c.isspace() for c in client_id):
        problems["clientId"] = ["A client id cannot contain spaces."]
    kind: str = given.get("kind") or (current.kind if current is not None else "irida")
    if "kind" not in problems and kind not in KINDS:
        problems["kind"] = [f"The kinds are {', '.join(KINDS)}."]
    kept = current.graphql_url if current is not None and kind == "irida-next" else None
    graphql_url = given.get("graphqlUrl", kept)
    if kind == "irida-next" and not graphql_url and "graphqlUrl" not in problems:
        problems["graphqlUrl"] = ["An IRIDA Next remote needs its GraphQL endpoint."]
    if kind == "irida" and given.get("graphqlUrl") and "graphqlUrl" not in problems:
        problems["graphqlUrl"] = ["Only an IRIDA Next remote has a GraphQL endpoint."]
    new_name = given.get("name")
    if new_name and "name" not in problems:
        taken = select(RemoteApi.id).where(func.lower(RemoteApi.name) == new_name.lower())
        if current is not None:
            taken = taken.where(RemoteApi.id != current.id)
        # A conflict is raised only for input that is otherwise good (reported with other
        # problems, its 409 would hide their 400).
        if not problems and db.scalar(taken) is not None:
            raise Conflict(f"A remote API named {new_name!r} exists already.")
    if problems:
        raise Invalid(problems)
    columns = {FIELDS[key][0]: value for key, value in given.items()}
    columns["kind"] = kind
    columns["graphql_url"] = graphql_url if kind == "irida-next" else None
    return columns


def create_remote_api(db: Session, values: Mapping[str, Any]) -> RemoteApi:
    """Register a remote API from ``values`` (REST names); :class:`Invalid` or
    :class:`Conflict` (the name is taken, in any letter case), nothing stored."""
    remote = RemoteApi(**_checked(db, values, None))
    db.add(remote)
    db.flush()
    return remote


def update_remote_api(db: Session, remote: RemoteApi, values: Mapping[str, Any]) -> RemoteApi:
    """Change the fields ``values`` holds (an absent or empty ``clientSecret`` keeps the
    secret). The users' connections stay: tokens the remote issued keep working as long as
    it accepts them."""
    values = dict(values)
    if not values.get("clientSecret"):
        values.pop("clientSecret", None)
    for column, value in _checked(db, values, remote).items():
        setattr(remote, column, value)
    db.flush()
    return remote


def delete_remote_api(db: Session, remote: RemoteApi) -> None:
    """Delete a remote API with the users' connections to it. A remote that synchronized
    projects read from is kept (:class:`Conflict`): their synchronization would end
    silently."""
    synced = db.scalar(select(func.count()).select_from(ProjectSync)
                       .where(ProjectSync.remote_api_id == remote.id)) or 0
    if synced:
        raise Conflict(f"{synced} synchronized project(s) read from {remote.name}: delete "
                       "them or end their synchronization first.")
    db.delete(remote)
    db.flush()


def remote_apis(db: Session) -> list[RemoteApi]:
    """Every remote API, by name."""
    return list(db.scalars(select(RemoteApi).order_by(func.lower(RemoteApi.name))))


def find_remote_api(db: Session, key: int | str) -> RemoteApi:
    """The remote API with this id (or, for a name, this name); :class:`NotFound`."""
    number = parse_id(str(key)) if str(key).isascii() and str(key).isdigit() else None
    remote = (db.get(RemoteApi, number) if number is not None else
              db.scalar(select(RemoteApi).where(RemoteApi.name == str(key))))
    if remote is None:
        raise NotFound(f"There is no remote API {key}.")
    return remote
