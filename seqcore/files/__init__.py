"""Files: uploads streamed into storage, attachments, file kinds and their links, the content
checks of sequence files, and sequencing runs.

The bytes themselves live behind :mod:`seqcore.storage`. Part of the domain layer; it imports no
transport.
"""
