"""Write-back: SISTR's calls become the sample's metadata, each entry recording the
submission that wrote it (provenance)."""

from __future__ import annotations

import json
from typing import Any

# Metadata field → field of SISTR's prediction (IRIDA's SISTR write-back fields).
FIELDS = {
    "serovar": "serovar",
    "serogroup": "serogroup",
    "antigenic formula": "antigenic_formula",
    "cgMLST ST": "cgmlst_ST",
    "SISTR QC status": "qc_status",
}


def metadata_values(prediction: dict[str, Any]) -> dict[str, str]:
    """Values as strings; what SISTR could not call is ``-`` (its own sign for a missing
    antigen), so a failed typing replaces an older call instead of leaving it standing."""
    values = {}
    for field, key in FIELDS.items():
        value = prediction.get(key)
        values[field] = "-" if value is None or value == "" else str(value)
    return values


def write_back(ctx: Any) -> None:
    predictions = json.loads(ctx.output_path("serotyper-predictions").read_text())
    values = metadata_values(predictions[0])
    for sample_id in ctx.samples():
        ctx.metadata(sample_id, values)
