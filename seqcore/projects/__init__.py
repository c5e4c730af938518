"""Namespaces, groups and projects: creating, changing and deleting them, project paths, and
the project hash that tells a client what changed.

Part of the domain layer; it imports no transport.
"""
