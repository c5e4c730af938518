"""FASTQ reads as seqcore file kinds: single-end (``unpaired``) and paired-end (``pairs``)."""
