"""What a database integrity error means to the caller.

Views check uniqueness before they write, but two requests can both pass the check and
then race to the insert: the database refuses the second. That is a conflict with what
another request just stored (HTTP 409, a GraphQL error), never a server error. The
transports turn :class:`~sqlalchemy.exc.IntegrityError` into an answer in one place each
(``seqcore.rest.errors``, ``seqcore.graphql.mutations.base``); this module says which
constraint was hit and what to tell the caller.
"""

from __future__ import annotations

import re

from sqlalchemy import Index, MetaData, UniqueConstraint
from sqlalchemy.exc import IntegrityError

#: IRIDA's message for an account whose username or e-mail address is taken.
DUPLICATE = ("An entity already exists with that identifier: Could not create user as a "
             "duplicate field exists: {field}")

#: Messages for the constraints a caller can run into, by constraint (or index) name.
MESSAGES = {
    "uq_user_username": DUPLICATE.format(field="username"),
    "uq_user_username_key": DUPLICATE.format(field="username"),
    "uq_user_email": DUPLICATE.format(field="email"),
    "uq_user_email_key": DUPLICATE.format(field="email"),
    "uq_project_member_project_id": "An entity already exists with that identifier: the user "
                                    "is already a member of this project.",
    "uq_project_namespace_path": "An entity already exists with that identifier: another "
                                 "project has this path.",
    "uq_project_sample_name": "An entity already exists with that identifier: a sample with "
                              "this name already exists in the project.",
}
UNIQUE = ("An entity already exists with that identifier: another request stored the same "
          "{what} first; nothing of this request was saved.")
MISSING = ("Something this request refers to was removed by another request while it ran; "
           "nothing of this request was saved.")
OTHER = "The request conflicts with the current state of the data; nothing was saved."

_SQLITE_INDEX = re.compile(r"UNIQUE constraint failed: index '([^']+)'")
_SQLITE_COLUMNS = re.compile(r"UNIQUE constraint failed: ([\w.]+(?:, [\w.]+)*)")


def _sqlite_constraint(text: str, metadata: MetaData) -> tuple[str | None, str | None]:
    """SQLite names an expression index, but only ``table.column`` pairs for the rest:
    find the constraint with exactly those columns."""
    found = _SQLITE_INDEX.search(text)
    if found:
        return found.group(1), None
    found = _SQLITE_COLUMNS.search(text)
    if not found:
        return None, None
    pairs = [p.split(".", 1) for p in found.group(1).split(", ")]
    table_name = pairs[0][0]
    columns = {column for _, column in pairs}
    table = metadata.tables.get(table_name)
    for item in (table.constraints | table.indexes) if table is not None else ():
        if not (isinstance(item, UniqueConstraint) or (isinstance(item, Index) and item.unique)):
            continue
        if {c.name for c in item.columns} == columns and item.name:
            return str(item.name), None
    return None, f"{table_name} ({', '.join(sorted(columns))})"


def conflict_message(error: IntegrityError, metadata: MetaData | None = None) -> str:
    """A clear message for ``error``, naming what was duplicated when it can."""
    if metadata is None:
        from seqcore.db import Base

        metadata = Base.metadata
    original = error.orig
    diag = getattr(original, "diag", None)
    state = getattr(original, "sqlstate", None)
    text = str(original)
    if diag is not None:  # PostgreSQL names the constraint and the SQLSTATE
        if state == "23503":
            return MISSING
        if state != "23505":
            return OTHER
        name = diag.constraint_name
        return MESSAGES.get(name or "", UNIQUE.format(what=diag.table_name or "thing"))
    if "FOREIGN KEY constraint failed" in text:
        return MISSING
    if "UNIQUE constraint failed" not in text:
        return OTHER
    name, what = _sqlite_constraint(text, metadata)
    if name in MESSAGES:
        return MESSAGES[name]
    return UNIQUE.format(what=what or name or "thing")
