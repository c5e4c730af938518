"""The core's mapped classes. Importing this package registers them with the mapper."""

from seqcore.models.access_token import (
    PersonalAccessToken,
    SignInFailure,
    SignInSuccess,
    WebSession,
)
from seqcore.models.activity import Activity, ActivitySubject
from seqcore.models.analysis import (
    AnalysisOutput,
    AnalysisState,
    AnalysisSubmission,
    AutomatedAnalysis,
    CleanedState,
    Priority,
    SubmissionInput,
    SubmissionProject,
)
from seqcore.models.attachment import Attachment, DirectUpload
from seqcore.models.bot import NamespaceBot
from seqcore.models.export import DataExport, ExportState
from seqcore.models.fielddecl import MetadataField, MetadataTemplate, MetadataTemplateField
from seqcore.models.group import AccessLevel, Group, GroupHierarchy, GroupMember, GroupShare
from seqcore.models.imports import ImportedObject, ImportRun
from seqcore.models.ncbi import (
    ExportUploadState,
    NcbiSubmission,
    NcbiSubmissionRun,
    NcbiSubmissionSample,
    NcbiUploadFile,
)
from seqcore.models.notification import NotificationOptOut, OutgoingMail
from seqcore.models.oauth import OAuthAuthorizationCode, OAuthClient, OAuthToken
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.puid import IssuedPuid
from seqcore.models.remote import ProjectSync, RemoteApi, RemoteAuthorization, RemoteConnection
from seqcore.models.revocation import AuthGeneration
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
from seqcore.models.trash import TrashEntry
from seqcore.models.user import SystemRole, User, UserType

__all__ = [
    "AccessLevel",
    "Activity",
    "ActivitySubject",
    "AnalysisOutput",
    "AnalysisState",
    "AnalysisSubmission",
    "Attachment",
    "AuthGeneration",
    "AutomatedAnalysis",
    "CleanedState",
    "DataExport",
    "DirectUpload",
    "ExportState",
    "ExportUploadState",
    "Group",
    "GroupHierarchy",
    "GroupMember",
    "GroupShare",
    "ImportRun",
    "ImportedObject",
    "IssuedPuid",
    "MetadataEntry",
    "MetadataField",
    "MetadataTemplate",
    "MetadataTemplateField",
    "NamespaceBot",
    "NcbiSubmission",
    "NcbiSubmissionRun",
    "NcbiSubmissionSample",
    "NcbiUploadFile",
    "NotificationOptOut",
    "OAuthAuthorizationCode",
    "OAuthClient",
    "OAuthToken",
    "OutgoingMail",
    "PersonalAccessToken",
    "Priority",
    "ProcessingState",
    "Project",
    "ProjectMember",
    "ProjectRole",
    "ProjectSample",
    "ProjectSync",
    "QCRecord",
    "RemoteApi",
    "RemoteAuthorization",
    "RemoteConnection",
    "Sample",
    "SequenceFile",
    "SequencingObject",
    "SequencingObjectFile",
    "SequencingRun",
    "SignInFailure",
    "SignInSuccess",
    "SubmissionInput",
    "SubmissionProject",
    "SystemRole",
    "TrashEntry",
    "UploadStatus",
    "User",
    "UserType",
    "WebSession",
]
