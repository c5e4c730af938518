"""``python -m seqcore.cli``: the ``seqcore`` command where its script is not on the path
(live test servers and workers run it with the interpreter they were started with)."""

from seqcore.cli import main

if __name__ == "__main__":  # imported by a module walk, it does nothing
    main()
