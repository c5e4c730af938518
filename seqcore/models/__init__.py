"""The core's mapped classes. Importing this package registers them with the mapper."""

from seqcore.models.access_token import PersonalAccessToken, SignInFailure
from seqcore.models.oauth import OAuthAuthorizationCode, OAuthClient, OAuthToken
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import (
    ProcessingState,
    QCRecord,
    SequenceFile,
    SequencingObject,
    SequencingObjectFile,
    SequencingRun,
    UploadStatus,
)
from seqcore.models.user import SystemRole, User

__all__ = [
    "MetadataEntry",
    "OAuthAuthorizationCode",
    "OAuthClient",
    "OAuthToken",
    "PersonalAccessToken",
    "Project",
    "ProjectMember",
    "ProjectRole",
    "ProcessingState",
    "ProjectSample",
    "QCRecord",
    "Sample",
    "SequenceFile",
    "SequencingObject",
    "SequencingObjectFile",
    "SequencingRun",
    "SignInFailure",
    "SystemRole",
    "UploadStatus",
    "User",
]
