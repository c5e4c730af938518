"""Plugins used by the core's tests; each uses only the public plugin API."""
