"""``POST /api/projects/{id}/sampleImports``: samples and metadata from a spreadsheet
(:mod:`seqcore.samples.imports`)."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore.framework.contrib import Endpoint, View
from seqcore.framework.links import url_for
from seqcore.rest.body import read_limited
from seqcore.rest.errors import ApiError, validation_error
from seqcore.samples.imports import XLSX, ImportRefused, import_sheet, read_sheet
from seqcore.security.fieldaccess import Caller
from seqcore.security.permissions import Permission

SHEET_TYPES = ("text/csv", "text/tab-separated-values", "text/plain", XLSX,
               "application/octet-stream")


def _flag(request: Request, name: str, default: bool) -> bool:
    value = request.GET.get(name)
    if value is None:
        return default
    if value.lower() in ("true", "1", "yes"):
        return True
    if value.lower() in ("false", "0", "no"):
        return False
    raise validation_error({name: [f"{name} must be true or false."]})


def _envelope(request: Request, report: Any) -> dict[str, Any]:
    project = request.context.__parent__
    return {**report.as_json(),
            "links": [{"rel": "project", "href": url_for(request, project)},
                      {"rel": "project/samples", "href": url_for(request, project) + "/samples"}]}


def import_samples(request: Request) -> dict[str, Any]:
    """Read the sheet in the body and import it; the report says what was (or, with
    ``?dryRun=true``, would be) created and updated, and every problem by row and column."""
    content_type = (request.content_type or "").lower()
    if content_type not in SHEET_TYPES:
        raise ApiError(415, body={
            "message": "Send the sheet as the request body: CSV or TSV text, or an XLSX "
                       "workbook.", "supported-media-types": list(SHEET_TYPES)})
    options = {"dry_run": _flag(request, "dryRun", False),
               "create": _flag(request, "create", True),
               "ignore_empty": _flag(request, "ignoreEmpty", True),
               "mode": request.GET.get("mode", "all"),
               "sample_column": request.GET.get("sampleColumn", "sample_name"),
               "description_column": request.GET.get("descriptionColumn") or None}
    filename = "sheet.tsv" if content_type == "text/tab-separated-values" else (
        "sheet.xlsx" if content_type == XLSX else "")
    header, rows = read_sheet(read_limited(request), filename)
    project_id = request.context.__parent__.project_id
    try:
        report = import_sheet(request.db, project_id, header, rows,
                              caller=Caller.of(request.identity),
                              types=request.registry.get("seqcore.metadata_types", {}),
                              **options)
    except ImportRefused as refused:
        raise ApiError(400, body={"message": refused.message,
                                  **_envelope(request, refused.report)}) from None
    return {"resource": _envelope(request, report)}


ENDPOINTS = [
    Endpoint("api.project.sampleimports", "/api/projects/{pid:\\d+}/sampleImports", {
        "POST": View(import_samples, Permission.SAMPLE_CREATE),
    }, description="Import samples and their metadata from a CSV, TSV or XLSX sheet in the "
                   "body (?sampleColumn=, ?descriptionColumn=, ?mode=all|row, ?dryRun=true, "
                   "?create=false, ?ignoreEmpty=false): every row checked first, problems "
                   "reported by row and column; all or nothing, or per row."),
]
