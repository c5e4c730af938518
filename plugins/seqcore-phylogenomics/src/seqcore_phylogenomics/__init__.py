"""Phylogenomics (SNVPhyl-compatible) for seqcore: reference files and the analysis."""
