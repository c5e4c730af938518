"""A project's spreadsheet import page: samples and their metadata from a CSV, TSV or XLSX
file, as IRIDA Next's "Import samples" and "Import metadata" dialogs do.

The page is the REST endpoint's (``POST /api/projects/{id}/sampleImports``) for people: the
same domain operation (:func:`seqcore.samples.imports.import_sheet`), the same options (the
sample column, the description column, creating samples or not, empty cells, all or nothing
or per row, a dry run) and the same right (``sample:create`` in the project, on the same
traversal context: 404 for who may not see the project, 403 for who sees it but may not
import). A dry run shows every problem by row and column and what would be created and
updated, and offers to import the same sheet (sent back with the form, so it need not be
chosen again); an import shows what was created and updated and which rows were refused.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from seqcore.errors.domain import Invalid
from seqcore.samples.imports import MODES, ImportRefused, ImportReport, import_sheet, read_sheet
from seqcore.security.fieldaccess import Caller
from seqcore.security.formlimit import allow_large_forms
from seqcore.security.permissions import Permission
from seqcore.web.guard import PageError, add_page, context_at, require, signed_in
from seqcore.web.i18n import _, translate
from seqcore.web.render import page

#: The file names the page takes (the domain reads CSV, TSV and XLSX).
EXTENSIONS = (".csv", ".tsv", ".txt", ".xlsx")
#: At most this many problems and sample names are listed on the page (the counts are whole).
SHOWN = 1000
MODE_LABELS = {"all": _("All or nothing: import nothing if any row has a problem"),
               "row": _("Per row: import the valid rows, refuse the others")}


def imports_context(request: Request) -> Any:
    """The project's imports context, which the caller may use (404 unseen, 403 seen but
    without ``sample:create``), as REST's route asks."""
    context = context_at(request, "projects", request.matchdict["id"], "sampleImports")
    require(request, context, Permission.SAMPLE_CREATE)
    return context


def _defaults() -> dict[str, Any]:
    return {"sample_column": "sample_name", "description_column": "", "create": True,
            "ignore_empty": True, "mode": "all"}


def _form(request: Request) -> dict[str, Any]:
    post = request.POST
    return {"sample_column": post.get("sample_column", "").strip() or "sample_name",
            "description_column": post.get("description_column", "").strip(),
            "create": bool(post.get("create")), "ignore_empty": bool(post.get("ignore_empty")),
            "mode": post.get("mode", "all")}


def import_page(request: Request, status: int = 200, **values: Any) -> Response:
    signed_in(request)
    context = imports_context(request)
    values.setdefault("form", _defaults())
    for key in ("problems", "header"):
        values.setdefault(key, {} if key == "problems" else [])
    for key in ("report", "error"):
        values.setdefault(key, None)
    values.setdefault("sheet_data", "")
    values.setdefault("sheet_name", "")
    values.setdefault("refused", False)
    return page(request, "imports.mako", status=status, project=context.__parent__.project,
                modes=[(mode, MODE_LABELS[mode]) for mode in MODES], shown=SHOWN,
                counts=summary(values["report"]) if values["report"] is not None else {},
                **values)


def _sheet(request: Request) -> tuple[bytes, str]:
    """The file the form sent, or the sheet a dry run's page sent back; a 400 otherwise."""
    upload = request.POST.get("sheet")
    if upload is not None and getattr(upload, "filename", None):
        name = str(upload.filename)
        if not name.lower().endswith(EXTENSIONS):
            raise _Refused(_("${name} is not a CSV, TSV or XLSX file: save the sheet as CSV "
                             "(.csv) or as an Excel workbook (.xlsx).", mapping={"name": name}))
        return upload.file.read(), name
    carried = request.POST.get("sheet_data", "")
    if carried:
        try:
            data = base64.b64decode(carried, validate=True)
        except (binascii.Error, ValueError):
            raise _Refused(_("The sheet sent back could not be read: choose the file "
                             "again.")) from None
        name = request.POST.get("sheet_name", "")
        return data, name if name.lower().endswith(EXTENSIONS) else ""
    raise _Refused(_("Choose a CSV, TSV or XLSX file to import."))


class _Refused(Exception):
    """The page's form cannot be used as sent (its message says why)."""

    def __init__(self, message: Any) -> None:
        super().__init__(str(message))
        self.message = message


def run_import(request: Request) -> Response:
    identity = signed_in(request)
    context = imports_context(request)
    form = _form(request)
    if form["mode"] not in MODES:
        raise PageError(400, _("Choose all or nothing, or per row."))
    dry_run = request.POST.get("step") != "import"
    try:
        data, name = _sheet(request)
    except _Refused as refused:
        request.tm.doom()
        return import_page(request, status=400, form=form,
                           error=translate(request, refused.message))
    try:
        header, rows = read_sheet(data, name)
    except Invalid as error:
        request.tm.doom()
        return import_page(request, status=400, form=form, error=error.message,
                           sheet_name=name)
    sheet: dict[str, Any] = {"sheet_data": base64.b64encode(data).decode("ascii"),
                             "sheet_name": name,
                             "header": [column.strip() for column in header]}
    try:
        report = import_sheet(request.db, context.__parent__.project_id, header, rows,
                              caller=Caller.of(identity),
                              types=request.registry.get("seqcore.metadata_types", {}),
                              sample_column=form["sample_column"],
                              description_column=form["description_column"] or None,
                              create=form["create"], mode=form["mode"], dry_run=dry_run,
                              ignore_empty=form["ignore_empty"])
    except ImportRefused as refused:
        request.tm.doom()
        return import_page(request, status=400, form=form, report=refused.report,
                           refused=True, **sheet)
    except Invalid as error:  # a column the sheet does not have
        request.tm.doom()
        problems = {_FIELDS.get(key, key): " ".join(messages)
                    for key, messages in error.problems.items()}
        return import_page(request, status=400, form=form, problems=problems, **sheet)
    if dry_run:
        request.tm.doom()  # a dry run writes nothing, whatever happened on the way
        return import_page(request, form=form, report=report, refused=False, **sheet)
    return import_page(request, form=form, report=report, refused=False,
                       header=sheet["header"])


#: The domain's option names and the form's.
_FIELDS = {"sampleColumn": "sample_column", "descriptionColumn": "description_column",
           "mode": "mode"}


def summary(report: ImportReport) -> dict[str, int]:
    """The counts a page states about ``report``."""
    return {"rows": report.rows, "created": len(report.created),
            "updated": len(report.updated), "problems": len(report.problems),
            "refused_rows": len({p.row for p in report.problems})}


def includeme(config: Configurator) -> None:
    add_page(config, "web.project.import", "/-/projects/{id:\\d+}/import", import_page)
    add_page(config, "web.project.import", None, run_import, method="POST")
    # A sheet may be as large as REST takes it (seqcore.max_body_bytes), not a form's 64 KiB.
    allow_large_forms(config.registry, r"/-/projects/\d+/import")


__all__ = ["MODE_LABELS", "import_page", "imports_context", "run_import", "summary"]
