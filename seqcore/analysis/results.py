"""Writing analysis results back to samples, with provenance."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import select

from seqcore.db import utcnow
from seqcore.models.sample import MetadataEntry, Sample


def write_metadata(db: Any, sample_id: int, values: Mapping[str, str], submission: Any,
                   kind: str = "text") -> None:
    """Set metadata fields of a sample, recording the submission that wrote them."""
    now = utcnow()
    existing = {e.field: e for e in db.scalars(select(MetadataEntry).where(
        MetadataEntry.sample_id == sample_id, MetadataEntry.field.in_(list(values))))}
    for field, value in values.items():
        entry = existing.get(field)
        if entry is None:
            db.add(MetadataEntry(sample_id=sample_id, field=field, value=value, type=kind,
                                 submission_id=submission.id))
        else:
            entry.value, entry.type, entry.submission_id, entry.modified = (
                value, kind, submission.id, now)
    sample = db.get(Sample, sample_id)
    if sample is not None:
        sample.modified = now
    db.flush()
