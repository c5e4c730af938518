"""Governance: the activity trail of every write, retention (the trash) and purging stored
files once nothing refers to them.

Part of the domain layer; it imports no transport.
"""
