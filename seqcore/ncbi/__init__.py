"""Submitting a project's reads to NCBI: SRA runs with new or existing BioSamples, uploaded
to the centre's NCBI FTP account, and the accessions NCBI assigns read back from its
``report.xml`` (``docs/ncbi.md``).

* :mod:`~seqcore.ncbi.vocabulary`: instrument models, library fields, BioSample packages;
* :mod:`~seqcore.ncbi.submissions`: making a submission (every check first) and reading the
  samples' metadata for it;
* :mod:`~seqcore.ncbi.documents` and :mod:`~seqcore.ncbi.schema`: ``submission.xml``, its
  documented element tree, and ``report.xml``;
* :mod:`~seqcore.ncbi.ftp`: the FTP account, with resumable uploads;
* :mod:`~seqcore.ncbi.progress`: every change the worker makes to a submission;
* :mod:`~seqcore.ncbi.worker`: the worker's rounds (upload, then poll the report).
"""
