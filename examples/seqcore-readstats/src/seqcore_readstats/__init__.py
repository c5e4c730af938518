"""seqcore-readstats: read-length histograms of a sample's reads (an example plugin written
only against ``seqcore.plugin``)."""
