"""Principal names used in ACLs; small pure functions so ACLs read like tables."""

from pyramid.authorization import ALL_PERMISSIONS, Allow, Authenticated

from seqcore.models.user import SystemRole


def user_principal(user_id: int) -> str:
    return f"user:{user_id}"


def role_principal(role: SystemRole | str) -> str:
    return f"role:{SystemRole(role).value}"


ADMIN = role_principal(SystemRole.ADMIN)
MANAGER = role_principal(SystemRole.MANAGER)
USER = role_principal(SystemRole.USER)
SEQUENCER = role_principal(SystemRole.SEQUENCER)
TECHNICIAN = role_principal(SystemRole.TECHNICIAN)

ADMIN_ACE = (Allow, ADMIN, ALL_PERMISSIONS)

__all__ = [
    "ADMIN",
    "ADMIN_ACE",
    "MANAGER",
    "SEQUENCER",
    "TECHNICIAN",
    "USER",
    "Allow",
    "Authenticated",
    "role_principal",
    "user_principal",
]
