"""The analysis page's view of a serotyping: SISTR's calls as a result card (serovar,
serogroup, antigens, cgMLST) with its QC status (``register_views``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from seqcore.plugin import OutputView, ViewAssets, ViewInput

HERE = Path(__file__).resolve().parent
# SISTR's QC status → the pages' verdict badge.
QC_BADGES = {"PASS": "pass", "WARNING": "warn", "FAIL": "fail"}


def predictions_context(view: ViewInput) -> dict[str, Any]:
    predictions = json.loads(view.path.read_text())
    calls = predictions[0] if isinstance(predictions, list) and predictions else {}
    messages = [m for m in str(calls.get("qc_messages") or "").split("|") if m.strip()]
    status = str(calls.get("qc_status") or "")
    return {"calls": calls, "qc_status": status, "qc_badge": QC_BADGES.get(status.upper()),
            "qc_messages": messages}


def register() -> list[Any]:
    return [
        ViewAssets("serotyper", HERE / "templates", translations=HERE / "locale"),
        OutputView("serotyper", "outputFile/serotyper-predictions", "serotyper/card.mako",
                   context=predictions_context),
    ]
