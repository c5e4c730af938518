"""Principal names used in ACLs; small pure functions so ACLs read like tables."""

from pyramid.authorization import Allow, Authenticated, Everyone

from seqcore.models.user import SystemRole


def user_principal(user_id: int) -> str:
    return f"user:{user_id}"


def role_principal(role: SystemRole | str) -> str:
    return f"role:{SystemRole(role).value}"


def account_principals(user_id: int, role: SystemRole | str) -> list[str]:
    """Every principal an account holds: itself and every system role its role implies.
    The security policy grants these to an authenticated caller, and the SQL visibility
    conditions (:mod:`seqcore.security.access`) ask about the same ones."""
    return [
        Everyone,
        Authenticated,
        user_principal(user_id),
        *(role_principal(implied) for implied in SystemRole(role).implied),
    ]


ADMIN = role_principal(SystemRole.ADMIN)
MANAGER = role_principal(SystemRole.MANAGER)
USER = role_principal(SystemRole.USER)
SEQUENCER = role_principal(SystemRole.SEQUENCER)
TECHNICIAN = role_principal(SystemRole.TECHNICIAN)


__all__ = [
    "ADMIN",
    "MANAGER",
    "SEQUENCER",
    "TECHNICIAN",
    "USER",
    "Allow",
    "Authenticated",
    "account_principals",
    "role_principal",
    "user_principal",
]
