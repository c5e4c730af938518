"""Oxford Nanopore FAST5 files as a seqcore file kind."""
