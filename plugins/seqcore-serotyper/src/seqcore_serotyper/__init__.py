"""seqcore serotyper: SISTR typing of Salmonella assemblies."""
