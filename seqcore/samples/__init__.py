"""Samples and what is known about them: the sample operations, metadata and its types,
metadata fields and templates with their restriction levels, and the line list.

Part of the domain layer; it imports no transport.
"""
