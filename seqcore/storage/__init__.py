"""The storage service: where stored bytes live, written atomically and read back, and the
direct-write path for uploads that arrive in parts.

Nothing outside this package builds a path from a stored file. Below the domain: it imports only
:mod:`seqcore.services`.
"""
