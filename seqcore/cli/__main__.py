"""``python -m seqcore.cli``: the ``seqcore`` command (the test kit's live servers run it so)."""

from seqcore.cli import main

main()
