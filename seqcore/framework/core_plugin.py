"""The core's own declarations, made through the same hooks a plugin uses."""

from __future__ import annotations

from typing import Any

from pyramid.request import Request

from seqcore import hookimpl
from seqcore.framework.contrib import Setting


@hookimpl
def register_models() -> list[type]:
    from seqcore import models

    classes = (getattr(models, name) for name in models.__all__)
    return [cls for cls in classes if isinstance(cls, type) and hasattr(cls, "__tablename__")]


@hookimpl
def register_settings() -> list[Setting]:
    from seqcore.framework.settings import core_declarations

    return [declared.setting for declared in core_declarations()]


@hookimpl
def register_links() -> list[Any]:
    from seqcore.framework.core_links import core_links

    return core_links()


@hookimpl
def register_metadata_types() -> list[Any]:
    from seqcore.samples.metadata import TEXT

    return [TEXT]


@hookimpl
def samples_deleting(sample_ids: list[int], request: Request) -> None:
    """Sequence files go with their samples: rows now, stored files once committed (a file
    another row still refers to stays)."""
    from seqcore.files.attachments import delete_attachments
    from seqcore.governance.purge import delete_objects
    from seqcore.models.attachment import Attachment
    from seqcore.models.sequencing import SequencingObject

    delete_objects(request.db, request.storage, request.tm,
                   SequencingObject.sample_id.in_(sample_ids))
    delete_attachments(request.db, request.storage, request.tm,
                       Attachment.sample_id.in_(sample_ids))


@hookimpl
def projects_deleting(project_ids: list[int], request: Request) -> None:
    """A project's attachments go with it: rows now, stored files once committed."""
    from seqcore.files.attachments import delete_attachments
    from seqcore.models.attachment import Attachment

    delete_attachments(request.db, request.storage, request.tm,
                       Attachment.project_id.in_(project_ids))


@hookimpl
def submissions_deleting(submission_ids: list[int], request: Request) -> None:
    """A submission's output attachments go with it (the outputs' files with its outputs;
    those attached to a sample stay the sample's)."""
    from seqcore.files.attachments import delete_attachments
    from seqcore.models.attachment import Attachment

    delete_attachments(request.db, request.storage, request.tm,
                       Attachment.submission_id.in_(submission_ids))
