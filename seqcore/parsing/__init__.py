"""What every transport reads off the wire before the domain sees it: well-formed requests,
JSON text, identifiers, field types, the resource schemas and timestamps.

It may import errors and models; it knows no domain operation and no transport.
"""
