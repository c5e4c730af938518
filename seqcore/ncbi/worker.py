"""The worker's part in NCBI submissions, one round at a time (``seqcore.worker`` runs it
beside processing and analyses).

Upload: take a ``NEW`` submission (``UPLOADING``, with a lease renewed while it works), write
``submission.xml`` and check it against the documented element tree, then send the reads,
``submission.xml`` and, last, an empty ``submit.ready`` into the submission's own directory
on the FTP account, and move to ``UPLOADED``. A lost connection is retried within the round
(``seqcore.ncbi.ftp_retries`` connections, ``seqcore.ncbi.retry_seconds`` apart), each time
resuming: files recorded as uploaded are not sent again, and a partial file is continued
from the size the server holds. A round that still fails gives the submission back for a
later one; a worker that dies leaves its lease to run out and another resumes. The server
refusing something for good, or reads deleted meanwhile, end in ``UPLOAD_ERROR``.

Report: every ``seqcore.ncbi.poll_seconds`` while NCBI processes it, read the submission
directory's ``report.xml`` and record what it says (:func:`seqcore.ncbi.progress.apply_report`).

No log line names the account's password (``seqcore.ncbi.ftp.FtpAccount`` keeps it out of
its ``repr`` and ``str``).
"""

from __future__ import annotations

import logging
import time
import xml.etree.ElementTree as ET
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy.orm import Session

from seqcore.db import utcnow
from seqcore.models.ncbi import NcbiSubmission
from seqcore.ncbi import progress
from seqcore.ncbi.documents import ReportError, latest_report, parse_report, submission_xml
from seqcore.ncbi.ftp import CONNECTION_ERRORS, FTP_ERRORS, FtpAccount, FtpRefused, connected
from seqcore.ncbi.schema import check_submission
from seqcore.observability import requestid, tracing
from seqcore.qc.processing import LeasedWorker, heartbeat

log = logging.getLogger(__name__)

#: The largest report.xml read (NCBI's are kilobytes).
MAX_REPORT = 16 << 20


class NcbiWorker(LeasedWorker):
    @contextmanager
    def session(self) -> Iterator[Session]:  # type: ignore[override]
        """:meth:`LeasedWorker.session` without its transaction manager, which no step of
        an NCBI round needs."""
        with super().session() as (db, _):
            yield db

    @property
    def account(self) -> FtpAccount | None:
        return FtpAccount.from_settings(self.settings)

    def run_once(self) -> int:
        """Upload what waits, read the reports that are due; how many submissions it
        worked on. Nothing happens while no FTP host is configured."""
        account = self.account
        if account is None:
            return 0
        busy = 0
        with self.session() as db:
            waiting = progress.waiting_for_upload(db, utcnow())
        for submission_id in waiting:
            with self.session() as db:
                taken = progress.take_for_upload(db, submission_id, self.name, self.lease)
            if taken:
                self.upload(account, submission_id)
                busy += 1
        with self.session() as db:
            due = progress.due_for_report(db, utcnow(),
                                          float(self.settings["seqcore.ncbi.poll_seconds"]))
        for submission_id in due:
            busy += int(self.poll(account, submission_id))
        return busy

    # -- upload -------------------------------------------------------------------------

    def _heartbeat(self, submission_id: int) -> Any:
        def renew() -> None:
            with self.session() as db:
                progress.renew_lease(db, submission_id, self.name, self.lease)

        return heartbeat(self.lease, renew, f"NCBI submission {submission_id}")

    def _origin(self, submission_id: int) -> tuple[str | None, str | None]:
        """The request id and trace of the request that made the submission."""
        with self.session() as db:
            submission = db.get(NcbiSubmission, submission_id)
            if submission is None:
                return None, None
            return submission.request_id, submission.trace_context

    def upload(self, account: FtpAccount, submission_id: int) -> None:
        origin, parent = self._origin(submission_id)
        attributes = {"seqcore.ncbi_submission.id": submission_id, "seqcore.worker": self.name}
        with (requestid.bound(origin), tracing.continued(parent, "ncbi.upload", attributes),
              self._heartbeat(submission_id)):
            try:
                self._upload(account, submission_id)
            except Exception as err:  # a fault of ours: counted like a lost connection
                log.exception("NCBI submission %s: the upload round failed", submission_id)
                with self.session() as db:
                    progress.upload_interrupted(
                        db, submission_id, f"{type(err).__name__}: {err}",
                        int(self.settings["seqcore.ncbi.max_attempts"]))

    def _upload(self, account: FtpAccount, submission_id: int) -> None:
        try:
            with self.session() as db:
                submission = db.get_one(NcbiSubmission, submission_id)
                xml = submission_xml(progress.document(db, self.registry, submission))
                problems = check_submission(ET.fromstring(xml))
                if problems:
                    raise FtpRefused("submission.xml does not follow NCBI's element tree: "
                                     + "; ".join(problems[:20]))
                planned = progress.plan_files(db, self.registry, self.storage, submission, xml)
                directory = f"{account.directory.rstrip('/')}/{submission.directory}" \
                    if account.directory else str(submission.directory)
            for planned_file in planned:
                # (A stored file in an object store was found there when it was planned.)
                if not isinstance(planned_file.source, Path):
                    continue
                if not planned_file.source.is_file():
                    raise FtpRefused(f"the stored file behind {planned_file.remote_name} is "
                                     "missing")
        except (FtpRefused, FileNotFoundError) as err:
            log.error("NCBI submission %s cannot be uploaded: %s", submission_id, err)
            with self.session() as db:
                progress.upload_failed(db, submission_id, str(err))
            return
        retries = max(1, int(self.settings["seqcore.ncbi.ftp_retries"]))
        pause = float(self.settings["seqcore.ncbi.retry_seconds"])
        reason = ""
        for attempt in range(1, retries + 1):
            try:
                self._send(account, directory, planned)
            except FtpRefused as err:
                log.error("NCBI submission %s: %s", submission_id, err)
                with self.session() as db:
                    progress.upload_failed(db, submission_id, str(err))
                return
            except CONNECTION_ERRORS as err:
                reason = f"{type(err).__name__}: {err}"
                log.warning("NCBI submission %s: connection to %s lost (%s), attempt %d of %d",
                            submission_id, account, reason, attempt, retries)
                if attempt < retries and pause > 0:
                    time.sleep(pause)
                continue
            with self.session() as db:
                progress.upload_finished(db, submission_id)
            return
        with self.session() as db:
            progress.upload_interrupted(db, submission_id, reason,
                                        int(self.settings["seqcore.ncbi.max_attempts"]))

    def _send(self, account: FtpAccount, directory: str,
              planned: list[progress.PlannedFile]) -> None:
        """One connection's worth of uploading, resuming where the last one stopped."""
        with connected(account) as ftp:
            ftp.enter(directory, create=True)
            for planned_file in planned:
                if planned_file.uploaded:
                    continue
                sent = ftp.upload(planned_file.remote_name, planned_file.source,
                                  planned_file.size)
                log.info("NCBI upload %s/%s: %d of %d bytes sent", directory,
                         planned_file.remote_name, sent, planned_file.size)
                with self.session() as db:
                    progress.file_uploaded(db, planned_file.row_id)
                planned[planned.index(planned_file)] = progress.PlannedFile(
                    planned_file.row_id, planned_file.remote_name, planned_file.source,
                    planned_file.size, True)

    # -- report -------------------------------------------------------------------------

    def poll(self, account: FtpAccount, submission_id: int) -> bool:
        """Read the submission's latest report, if NCBI wrote one; whether anything
        changed."""
        with self.session() as db:
            submission = db.get_one(NcbiSubmission, submission_id)
            directory = f"{account.directory.rstrip('/')}/{submission.directory}" \
                if account.directory else str(submission.directory)
            origin = submission.request_id
        with requestid.bound(origin):
            try:
                with connected(account) as ftp:
                    ftp.enter(directory)
                    name = latest_report(ftp.names())
                    data = ftp.read(name, MAX_REPORT) if name is not None else None
            except FTP_ERRORS as err:
                log.warning("NCBI submission %s: cannot read its report now (%s: %s)",
                            submission_id, type(err).__name__, err)
                return False
            except FtpRefused as err:
                reason = f"NCBI's report cannot be read: {err}"
                with self.session() as db:
                    progress.report_unreadable(db, submission_id, reason)
                return True
            with self.session() as db:
                if data is None:
                    progress.report_polled(db, submission_id)
                    return False
                try:
                    report = parse_report(data)
                except ReportError as err:
                    log.error("NCBI submission %s: %s", submission_id, err)
                    progress.report_unreadable(db, submission_id, str(err))
                    return True
                return progress.apply_report(db, submission_id, report)
