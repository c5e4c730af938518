"""The consistency check: what must hold between the database and storage whatever requests
were made, accepted or refused.

A refused request must change nothing, and a failed one must leave nothing half-written; a
test that throws thousands of hostile requests at a server (``tests/fuzz``) proves it by
running :func:`check_consistency` afterwards. Plugin authors can call it at the end of their
own tests too.

It reads the schema from the database itself (reflection), so tables and foreign keys a
plugin adds are checked without naming them here:

* **orphan rows**: a row whose foreign key names a parent row that is gone (SQLite only
  enforces foreign keys on connections that ask for it, and a bulk delete can skip ORM
  cascades); a stored-file row (``sequence_file``) nothing refers to; a sequencing object
  without files; a sample in no project;
* **missing bytes**: a stored-file row whose ``path`` (or ``original_path``) is not a file
  in storage;
* **orphan files**: a file in storage no row refers to, a leftover temporary upload
  (``tmp/``), an empty directory;
* **ownerless projects**: a project with no member holding ``PROJECT_OWNER``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import MetaData, Table, and_, func, select
from sqlalchemy.engine import Engine

# Columns that hold paths relative to the storage root, by table.
STORAGE_PATH_COLUMNS: dict[str, tuple[str, ...]] = {
    "sequence_file": ("path", "original_path"),
}
# Where uploads are written before they are placed (seqcore.storage.service.StorageWriter).
TEMPORARY_DIRECTORY = "tmp"
# Rows of these tables only exist while something refers to them.
MUST_BE_REFERENCED = ("sequence_file",)


@dataclass
class ConsistencyReport:
    """What the check found, by kind; empty lists everywhere mean consistent."""

    orphan_rows: list[str] = field(default_factory=list)
    missing_files: list[str] = field(default_factory=list)
    orphan_files: list[str] = field(default_factory=list)
    ownerless_projects: list[int] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        return [*self.orphan_rows, *self.missing_files, *self.orphan_files,
                *(f"project {p} has no owner" for p in self.ownerless_projects)]

    def __bool__(self) -> bool:
        """True when something is wrong, so ``assert not report, report.problems`` reads."""
        return bool(self.problems)


def check_consistency(engine: Engine, storage_root: str | Path,
                      path_columns: dict[str, tuple[str, ...]] | None = None,
                      limit: int = 20) -> ConsistencyReport:
    """Check the database behind ``engine`` against the storage directory ``storage_root``.

    ``path_columns`` adds tables whose columns hold storage paths (a plugin's own); at most
    ``limit`` examples of each kind of problem are listed, with the total.
    """
    columns = {**STORAGE_PATH_COLUMNS, **(path_columns or {})}
    metadata = MetaData()
    metadata.reflect(engine)
    report = ConsistencyReport()
    with engine.connect() as conn:
        report.orphan_rows += _dangling_foreign_keys(conn, metadata, limit)
        report.orphan_rows += _unreferenced_rows(conn, metadata, limit)
        report.orphan_rows += _objects_without_files(conn, metadata, limit)
        report.orphan_rows += _samples_without_project(conn, metadata, limit)
        referenced = _stored_paths(conn, metadata, columns)
        report.ownerless_projects = _ownerless_projects(conn, metadata)
    root = Path(storage_root)
    report.missing_files = _examples(
        "row refers to missing file", sorted(p for p in referenced if not _is_file(root, p)),
        limit)
    report.orphan_files = _examples("file in storage no row refers to",
                                    sorted(_unreferenced_files(root, referenced)), limit)
    report.orphan_files += _examples("leftover temporary upload",
                                     sorted(_temporary_files(root)), limit)
    report.orphan_files += _examples("empty directory left in storage",
                                     sorted(_empty_directories(root)), limit)
    return report


def _examples(kind: str, found: list[str], limit: int) -> list[str]:
    shown = [f"{kind}: {item}" for item in found[:limit]]
    if len(found) > limit:
        shown.append(f"{kind}: ... {len(found) - limit} more")
    return shown


def _dangling_foreign_keys(conn: object, metadata: MetaData, limit: int) -> list[str]:
    out: list[str] = []
    for table in metadata.sorted_tables:
        for fk in table.foreign_key_constraints:
            parent = fk.referred_table
            pairs = list(zip(fk.columns, [e.column for e in fk.elements], strict=True))
            alias = parent.alias("parent")
            joined = table.outerjoin(alias, and_(*(alias.c[p.name] == c for c, p in pairs)))
            query = (select(*[c for c, _ in pairs]).select_from(joined)
                     .where(*(c.isnot(None) for c, _ in pairs),
                            alias.c[pairs[0][1].name].is_(None)))
            rows = conn.execute(query).all()  # type: ignore[attr-defined]
            out += _examples(f"{table.name} row whose {parent.name} is gone "
                             f"({', '.join(c.name for c, _ in pairs)})",
                             [str(tuple(r)) for r in rows], limit)
    return out


def _referrers(metadata: MetaData, name: str) -> list[tuple[Table, str, str]]:
    """(table, column, referred column) of every foreign key pointing at table ``name``."""
    return [(table, element.parent.name, element.column.name)
            for table in metadata.sorted_tables
            for fk in table.foreign_key_constraints if fk.referred_table.name == name
            for element in fk.elements]


def _unreferenced_rows(conn: object, metadata: MetaData, limit: int) -> list[str]:
    out: list[str] = []
    for name in MUST_BE_REFERENCED:
        table = metadata.tables.get(name)
        if table is None:
            continue
        referrers = _referrers(metadata, name)
        query = select(table.c.id)
        for other, column, referred in referrers:
            query = query.where(table.c[referred].not_in(
                select(other.c[column]).where(other.c[column].isnot(None))))
        ids = list(conn.execute(query).scalars())  # type: ignore[attr-defined]
        out += _examples(f"{name} row nothing refers to", [str(i) for i in ids], limit)
    return out


def _objects_without_files(conn: object, metadata: MetaData, limit: int) -> list[str]:
    objects = metadata.tables.get("sequencing_object")
    links = metadata.tables.get("sequencing_object_file")
    if objects is None or links is None:
        return []
    query = select(objects.c.id).where(objects.c.id.not_in(select(links.c.object_id)))
    ids = list(conn.execute(query).scalars())  # type: ignore[attr-defined]
    return _examples("sequencing object without files", [str(i) for i in ids], limit)


def _samples_without_project(conn: object, metadata: MetaData, limit: int) -> list[str]:
    samples = metadata.tables.get("sample")
    links = metadata.tables.get("project_sample")
    if samples is None or links is None:
        return []
    query = select(samples.c.id).where(samples.c.id.not_in(select(links.c.sample_id)))
    ids = list(conn.execute(query).scalars())  # type: ignore[attr-defined]
    return _examples("sample in no project", [str(i) for i in ids], limit)


def _stored_paths(conn: object, metadata: MetaData, columns: dict[str, tuple[str, ...]]
                  ) -> set[str]:
    paths: set[str] = set()
    for name, names in columns.items():
        table = metadata.tables.get(name)
        if table is None:
            continue
        for column in names:
            if column in table.c:
                query = select(table.c[column]).where(table.c[column].isnot(None))
                paths.update(conn.execute(query).scalars())  # type: ignore[attr-defined]
    return paths


def _ownerless_projects(conn: object, metadata: MetaData) -> list[int]:
    projects = metadata.tables.get("project")
    members = metadata.tables.get("project_member")
    if projects is None or members is None:
        return []
    owners = (select(members.c.project_id).where(members.c.role == "PROJECT_OWNER")
              .group_by(members.c.project_id).having(func.count() > 0))
    query = select(projects.c.id).where(projects.c.id.not_in(owners)).order_by(projects.c.id)
    return list(conn.execute(query).scalars())  # type: ignore[attr-defined]


def _is_file(root: Path, relative: str) -> bool:
    try:
        return (root / relative).resolve().is_file()
    except (OSError, ValueError):
        return False


def _stored_files(root: Path) -> Iterable[Path]:
    if not root.is_dir():
        return
    for path in root.rglob("*"):
        if path.is_file() and path.relative_to(root).parts[0] != TEMPORARY_DIRECTORY:
            yield path


def _unreferenced_files(root: Path, referenced: set[str]) -> list[str]:
    known = {(root / p).resolve() for p in referenced}
    return [str(p.relative_to(root)) for p in _stored_files(root) if p.resolve() not in known]


def _temporary_files(root: Path) -> list[str]:
    temporary = root / TEMPORARY_DIRECTORY
    if not temporary.is_dir():
        return []
    return [str(p.relative_to(root)) for p in temporary.rglob("*")]


def _empty_directories(root: Path) -> list[str]:
    if not root.is_dir():
        return []
    return [str(p.relative_to(root)) for p in root.rglob("*")
            if p.is_dir() and p.name != TEMPORARY_DIRECTORY and not any(p.iterdir())]
