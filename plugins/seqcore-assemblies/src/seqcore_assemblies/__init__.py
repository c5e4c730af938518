"""Genome assemblies of a sample (``/api/samples/{sid}/assemblies``)."""
