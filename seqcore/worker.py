"""One worker loop for everything that must not happen in a request: processing uploads,
driving analyses, submitting to NCBI, preparing (and purging) data exports, purging the
trash, removing expired memberships, sending e-mail notifications, deleting long-dead
personal access tokens and keeping synchronized projects in step with their remote ones.
``seqcore worker`` runs it; the development server runs it in a thread."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable

from pyramid.registry import Registry

from seqcore.analysis.worker import AnalysisWorker
from seqcore.exports.worker import ExportWorker
from seqcore.files.attachments import BlobSweeper
from seqcore.files.directuploads import DirectUploadChecker
from seqcore.governance.trash import TrashWorker
from seqcore.ncbi.worker import NcbiWorker
from seqcore.notifications.delivery import MailWorker
from seqcore.oauth.personal import TokenSweeper
from seqcore.observability import instruments
from seqcore.projects.expiry import MembershipExpiryWorker
from seqcore.qc.processing import Worker, worker_name
from seqcore.sync.worker import SyncWorker

log = logging.getLogger(__name__)


# The rounds of the loop by name, for ``seqcore worker --only`` (docs/operations.md, "Several
# machines"): e.g. a machine kept out of the analyses runs all but ``analyses``.
ROUNDS = ("processing", "analyses", "ncbi", "exports", "arrivals", "blobs", "trash",
          "memberships", "mail", "tokens", "sync")


class WorkerLoop:
    def __init__(self, registry: Registry, name: str | None = None,
                 only: Iterable[str] | None = None) -> None:
        self.rounds = ROUNDS if only is None else tuple(only)
        unknown = sorted(set(self.rounds) - set(ROUNDS))
        if unknown:
            raise ValueError(f"no such worker round: {', '.join(unknown)} (the rounds: "
                             f"{', '.join(ROUNDS)})")
        self.name = name or worker_name()
        self.processing = Worker(registry, self.name)
        self.analyses = AnalysisWorker(registry, self.name)
        self.ncbi = NcbiWorker(registry, self.name)
        self.exports = ExportWorker(registry, self.name)
        self.blobs = BlobSweeper(registry)
        self.arrivals = DirectUploadChecker(registry)
        self.trash = TrashWorker(registry)
        self.memberships = MembershipExpiryWorker(registry)
        self.mail = MailWorker(registry)
        self.tokens = TokenSweeper(registry)
        self.sync = SyncWorker(registry, self.name)

    def run_once(self) -> int:
        instruments.heartbeat(self.name)
        busy = 0
        for step in [getattr(self, name).run_once for name in self.rounds]:
            try:
                busy += step()
            except Exception:
                log.exception("worker %s: a round of %s failed", self.name,
                              getattr(step, "__self__", step))
        return busy

    def run_forever(self, stop: threading.Event, interval: float = 2.0) -> None:
        log.info("worker %s started", self.name)
        while not stop.is_set():
            if not self.run_once():
                stop.wait(interval)


def start_embedded(registry: Registry) -> Callable[[], None]:
    """A worker thread in this process (the development server); returns a stopper."""
    stop = threading.Event()
    loop = WorkerLoop(registry)
    thread = threading.Thread(target=loop.run_forever, args=(stop, 1.0), name="seqcore-worker",
                              daemon=True)
    thread.start()

    def stopper() -> None:
        stop.set()
        thread.join(timeout=30)

    return stopper
