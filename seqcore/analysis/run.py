"""``python -m seqcore.analysis.run <work dir>``: run one job (the local executor's child).

A module of its own so that the pipeline module is imported under its real name and its
exceptions are the ones pipelines raise.
"""

import os
import sys

from seqcore.analysis.pipeline import run_job

if __name__ == "__main__":
    # The executor widened PYTHONPATH so this process finds the worker's code; the tools a
    # pipeline starts (some are Python programs of the system) must not inherit that.
    original = os.environ.pop("SEQCORE_ORIGINAL_PYTHONPATH", None)
    if original is not None:
        if original:
            os.environ["PYTHONPATH"] = original
        else:
            os.environ.pop("PYTHONPATH", None)
    run_job(sys.argv[1])
