"""Analyses on a Celery cluster: ``seqcore.analysis.executor = celery``."""
