"""What an operation answers when it cannot do what was asked: the domain errors each transport
words in its own format (``domain``), and what a database integrity error means to the caller
(``conflicts``).

Part of the domain layer; it imports no transport.
"""
