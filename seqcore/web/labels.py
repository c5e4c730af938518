"""Names the pages show for values stored as codes (analysis and processing states, access
levels), marked for translation here because templates only see the codes."""

from __future__ import annotations

from seqcore.web.i18n import _

STATES = {
    "NEW": _("New"), "DOWNLOADING": _("Downloading"),
    "FINISHED_DOWNLOADING": _("Finished downloading"), "PREPARING": _("Preparing"),
    "PREPARED": _("Prepared"), "SUBMITTING": _("Submitting"), "RUNNING": _("Running"),
    "FINISHED_RUNNING": _("Finished running"), "COMPLETING": _("Completing"),
    "TRANSFERRED": _("Transferred"), "POST_PROCESSING": _("Post-processing"),
    "COMPLETED": _("Completed"), "ERROR": _("Error"),
    # Processing states of uploaded files.
    "UNPROCESSED": _("Unprocessed"), "QUEUED": _("Queued"), "PROCESSING": _("Processing"),
    "FINISHED": _("Finished"),
    # States of data exports (QUEUED, RUNNING and ERROR are above).
    "READY": _("Ready"), "EXPIRED": _("Expired"),
}

ACCESS_LEVELS = {0: _("No access"), 10: _("Guest"), 20: _("Uploader"), 30: _("Analyst"),
                 40: _("Maintainer"), 50: _("Owner")}

VERDICTS = {"pass": _("Pass"), "warn": _("Warn"), "fail": _("Fail")}

#: FastQC's module names (:data:`seqcore.qc.verdicts.MODULES`), as the QC report shows them.
QC_MODULES = {
    "Basic Statistics": _("Basic statistics"),
    "Per base sequence quality": _("Per base sequence quality"),
    "Per tile sequence quality": _("Per tile sequence quality"),
    "Per sequence quality scores": _("Per sequence quality scores"),
    "Per base sequence content": _("Per base sequence content"),
    "Per sequence GC content": _("Per sequence GC content"),
    "Per base N content": _("Per base N content"),
    "Sequence Length Distribution": _("Sequence length distribution"),
    "Sequence Duplication Levels": _("Sequence duplication levels"),
    "Overrepresented sequences": _("Overrepresented sequences"),
    "Adapter Content": _("Adapter content"),
}
