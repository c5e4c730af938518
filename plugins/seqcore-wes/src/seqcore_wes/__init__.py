"""seqcore-wes: pipelines declared in IRIDA Next's descriptor format, run on a GA4GH WES
server."""
