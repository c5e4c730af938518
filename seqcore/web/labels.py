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
}

ACCESS_LEVELS = {0: _("No access"), 10: _("Guest"), 20: _("Uploader"), 30: _("Analyst"),
                 40: _("Maintainer"), 50: _("Owner")}

VERDICTS = {"pass": _("Pass"), "warn": _("Warn"), "fail": _("Fail")}
