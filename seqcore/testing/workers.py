"""The core's background workers, for a plugin's tests to run one pass of them.

``Worker`` (upload processing: QC, content checks, ``file_processed``) and ``AnalysisWorker``
(submissions: prepare, submit, poll, write back) are what the ``seqcore worker`` command runs
in production; a test builds one over the test database and calls ``run_until_idle()`` to move
uploads and submissions along without a live process.
"""

from seqcore.analysis.readiness import clear_cache as clear_readiness_cache
from seqcore.analysis.worker import AnalysisWorker
from seqcore.processing import Worker

__all__ = ["AnalysisWorker", "Worker", "clear_readiness_cache"]
