"""Accounts: creating and changing users, and the rules for their names and e-mail addresses.

Authentication and authorization live in :mod:`seqcore.security`, OAuth2 in :mod:`seqcore.oauth`.
Part of the domain layer; it imports no transport.
"""
