"""``python -m seqcore.analysis.run <work dir>``: run one job (the local executor's child).

A module of its own so that the pipeline module is imported under its real name and its
exceptions are the ones pipelines raise.
"""

import sys

from seqcore.analysis.pipeline import run_job

if __name__ == "__main__":
    run_job(sys.argv[1])
