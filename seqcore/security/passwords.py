"""Password hashing (argon2) and the password rules accounts must meet."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

SPECIALS = set("!@#$%^&*()+?/<>=.\\{}")

# One hasher per (time, memory) cost pair; tests use cheap costs through settings.
_hashers: dict[tuple[int, int], PasswordHasher] = {}


def hasher(time_cost: int = 3, memory_cost: int = 65536) -> PasswordHasher:
    key = (time_cost, memory_cost)
    if key not in _hashers:
        _hashers[key] = PasswordHasher(time_cost=time_cost, memory_cost=memory_cost)
    return _hashers[key]


def hash_password(password: str, time_cost: int = 3, memory_cost: int = 65536) -> str:
    return hasher(time_cost, memory_cost).hash(password)


def hash_with_settings(password: str, settings: Mapping[str, Any]) -> str:
    """``password`` hashed at the costs of the deployment's settings
    (``seqcore.password_hash.time_cost``, ``.memory_cost``)."""
    return hash_password(password, int(settings["seqcore.password_hash.time_cost"]),
                         int(settings["seqcore.password_hash.memory_cost"]))


def verify_password(stored_hash: str, password: str) -> bool:
    """Constant-time check; any malformed stored hash simply fails."""
    try:
        return PasswordHasher().verify(stored_hash, password)
    except (VerificationError, InvalidHashError):
        return False


def password_problems(password: str | None) -> list[str]:
    """Every rule the password breaks, with the messages clients show to people."""
    if password is None or password == "":
        return ["You must provide a password."]
    problems = []
    if len(password) < 8:
        problems.append("Password must be at least 8 characters long.")
    if len(password) > 1024:
        problems.append("Password must be at most 1024 characters long.")
    if not any(c.isupper() for c in password):
        problems.append("Password must contain at least one upper-case letter.")
    if not any(c.islower() for c in password):
        problems.append("Password must contain at least one lower-case letter.")
    if not any(c.isdigit() for c in password):
        problems.append("Password must contain at least one number.")
    if not any(c in SPECIALS for c in password):
        problems.append("Password must contain a special character.")
    return problems
