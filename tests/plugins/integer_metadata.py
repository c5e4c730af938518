"""A plugin adding an ``integer`` metadata type."""

from seqcore import hookimpl
from seqcore.framework.contrib import MetadataType


def _check(value):
    return None if value.lstrip("-").isdigit() else f"{value!r} is not a whole number."


@hookimpl
def register_metadata_types():
    return [MetadataType("integer", "A whole number.", _check)]
