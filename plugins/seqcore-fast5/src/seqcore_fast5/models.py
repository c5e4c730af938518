"""What a FAST5 object records beyond its file."""

from __future__ import annotations

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from seqcore.plugin import Base


class Fast5Object(Base):
    """``fast5_type``: ``SINGLE`` (an HDF5 file), ``ZIPPED`` (a gzip/tar.gz bundle of them)
    or ``UNKNOWN``, decided from the content at upload."""

    __tablename__ = "fast5_object"

    object_id: Mapped[int] = mapped_column(
        ForeignKey("sequencing_object.id", ondelete="CASCADE"), primary_key=True)
    fast5_type: Mapped[str] = mapped_column(String(16))
