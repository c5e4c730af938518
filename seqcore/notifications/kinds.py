"""The kinds of notification, by the name an account turns them off with."""

from __future__ import annotations

EXPORT_READY = "export_ready"
ANALYSIS_FINISHED = "analysis_finished"
TOKEN_EXPIRING = "token_expiring"
MEMBER_ADDED = "member_added"

KINDS: dict[str, str] = {
    EXPORT_READY: "A data export you asked for is ready to download.",
    ANALYSIS_FINISHED: "An analysis or workflow execution you launched with e-mail "
                       "notification finished (completed or failed).",
    TOKEN_EXPIRING: "One of your personal access tokens expires soon.",
    MEMBER_ADDED: "You were added to a project or a group.",
}
