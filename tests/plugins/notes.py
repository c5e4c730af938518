"""A plugin with its own table and Alembic branch."""

from pathlib import Path

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from seqcore import hookimpl
from seqcore.db import Base
from seqcore.framework.contrib import MigrationSource


class Note(Base):
    __tablename__ = "notes_note"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    text: Mapped[str] = mapped_column(String(200))


@hookimpl
def register_models():
    return [Note]


@hookimpl
def register_migrations():
    return [MigrationSource("notes", str(Path(__file__).parent / "notes_migrations"))]
