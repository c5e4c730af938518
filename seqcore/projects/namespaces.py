"""Namespaces and URL-safe project paths (``<namespace>/<path>``, GraphQL's ``fullPath``).

Every project lives in its creator's personal namespace, named after the username; its
``path`` is a slug unique within that namespace. REST creation derives the path from the
name; GraphQL's ``createProject`` may choose it.
"""

from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

PATH_RULE = re.compile(r"[a-z0-9](?:[a-z0-9_.-]*[a-z0-9])?")
MIN_PATH, MAX_PATH = 3, 255
PATH_TAKEN = "Path has already been taken"


def slugify(text: str, fallback: str = "project") -> str:
    """Lower-case ASCII letters, digits, ``_``, ``.`` and ``-``; runs of anything else become
    one ``-``. Too short a result is padded from ``fallback`` so it is always a valid path."""
    slug = re.sub(r"[^a-z0-9_.]+", "-", text.lower()).strip("-._")
    slug = re.sub(r"-{2,}", "-", slug)[:MAX_PATH].strip("-._")
    if len(slug) < MIN_PATH:
        slug = f"{slug}-{fallback}".strip("-") if slug else fallback
    return slug


def namespace_for(username: str) -> str:
    """The personal namespace of an account."""
    return slugify(username, fallback="user")


def path_problem(path: str) -> str | None:
    """Why ``path`` cannot be a project path, or ``None``."""
    if not MIN_PATH <= len(path) <= MAX_PATH:
        return f"Path must be between {MIN_PATH} and {MAX_PATH} characters long."
    if not PATH_RULE.fullmatch(path):
        return ("Path can contain only lower-case letters, digits, '_', '-' and '.', and must "
                "start and end with a letter or digit.")
    return None


def path_taken(db: Session, namespace: str, path: str) -> bool:
    from seqcore.models.project import Project

    return db.scalar(select(Project.id).where(Project.namespace == namespace,
                                              Project.path == path)) is not None


def unusable_path(db: Session, namespace: str, path: str) -> str | None:
    """Why ``path`` cannot be a new project's path in ``namespace`` (malformed or taken), or
    ``None``."""
    trouble = path_problem(path)
    if trouble is None and path_taken(db, namespace, path):
        trouble = PATH_TAKEN
    return trouble


def free_path(db: Session, namespace: str, name: str) -> str:
    """A path derived from ``name`` that no project in ``namespace`` uses yet."""
    from seqcore.models.project import Project

    base = slugify(name)
    taken = set(db.scalars(select(Project.path).where(
        Project.namespace == namespace, Project.path.startswith(base, autoescape=True))))
    if base not in taken:
        return base
    n = 2
    while f"{base[:MAX_PATH - 8]}-{n}" in taken:
        n += 1
    return f"{base[:MAX_PATH - 8]}-{n}"
