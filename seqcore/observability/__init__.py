"""Operating seqcore: health and readiness, request ids, access logs, log formats, metrics.

The package's modules sit in two layers (``pyproject.toml``): :mod:`.requestid`,
:mod:`.logconfig` and :mod:`.instruments` at the bottom, where the domain (the processing
and analysis workers) may use them; :mod:`.health`, :mod:`.accesslog` and :mod:`.metrics`
among the transports, since they answer or watch HTTP requests.
"""
