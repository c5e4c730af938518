"""Account names: usernames and e-mail addresses are unique regardless of letter case.

Two accounts ``Alice`` and ``alice`` (or ``Bob@Example.org`` and ``bob@example.org``) would
let one person pass for another in every list that shows names, so the database refuses
them: each account stores the *name key* (:func:`seqcore.models.user.name_key`) of both, the
same on every database, and the key columns carry unique indexes (migration ``c0007``).
"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from seqcore.models.user import User, name_key

DUPLICATE = ("An entity already exists with that identifier: Could not create user as a "
             "duplicate field exists: {field}")


def duplicate_field(db: Session, username: str | None, email: str | None,
                    exclude_id: int | None = None) -> str | None:
    """``"username"`` or ``"email"`` if another account already has that name in any letter
    case, else ``None``. A concurrent request can still take the name before this one
    commits; the unique index then refuses it (see :mod:`seqcore.conflicts`)."""
    for field, column, value in (("username", User.username_key, username),
                                 ("email", User.email_key, email)):
        if value is None:
            continue
        query = select(User.id).where(column == name_key(value))
        if exclude_id is not None:
            query = query.where(User.id != exclude_id)
        if db.scalar(query) is not None:
            return field
    return None
