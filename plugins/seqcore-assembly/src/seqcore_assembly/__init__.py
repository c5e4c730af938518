"""Assembly and annotation of paired reads: an analysis type for seqcore."""
