"""An assembly of a sample: a stored FASTA file, uploaded or written by an analysis."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import ForeignKey
from sqlalchemy.orm import Mapped, mapped_column, relationship

from seqcore.plugin import EXPORT_NAME, Base, SequenceFile, utcnow


class Assembly(Base):
    __tablename__ = "assemblies_assembly"
    # Data exports name the files of this table "assemblies".
    __table_args__ = {"info": {EXPORT_NAME: "assemblies"}}

    id: Mapped[int] = mapped_column(primary_key=True)
    sample_id: Mapped[int] = mapped_column(ForeignKey("sample.id", ondelete="CASCADE"),
                                           index=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("sequence_file.id", ondelete="CASCADE"))
    # The analysis submission that produced it; None for uploaded assemblies.
    submission_id: Mapped[int | None] = mapped_column(default=None)
    created: Mapped[datetime] = mapped_column(default=utcnow)

    file: Mapped[SequenceFile] = relationship(lazy="joined")
