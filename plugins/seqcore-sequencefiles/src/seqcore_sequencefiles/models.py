"""Which file of a pair is forward and which reverse, decided once at upload."""

from __future__ import annotations

from sqlalchemy import ForeignKey
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.plugin import Base


class Pair(Base):
    __tablename__ = "sequencefiles_pair"

    object_id: Mapped[int] = mapped_column(
        ForeignKey("sequencing_object.id", ondelete="CASCADE"), primary_key=True)
    forward_file_id: Mapped[int] = mapped_column(
        ForeignKey("sequence_file.id", ondelete="CASCADE"))
    reverse_file_id: Mapped[int] = mapped_column(
        ForeignKey("sequence_file.id", ondelete="CASCADE"))
