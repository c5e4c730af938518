"""The core's tests use the test kit exactly as a plugin would (pytest11 ``seqcore``)."""
