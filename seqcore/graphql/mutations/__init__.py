"""The core's mutations (scope ``api``)."""

from __future__ import annotations

import graphene

from seqcore.graphql.mutations.analyses import CancelAnalysis, LaunchAnalysis
from seqcore.graphql.mutations.archiving import ArchiveProject, UnarchiveProject
from seqcore.graphql.mutations.attachments import (
    AttachFilesToGroup,
    AttachFilesToProject,
    AttachFilesToSample,
    CreateDirectUpload,
)
from seqcore.graphql.mutations.exports import CreateDataExport, DeleteDataExport
from seqcore.graphql.mutations.groups import CreateGroup
from seqcore.graphql.mutations.metadata import BulkUpdateSampleMetadata, UpdateSampleMetadata
from seqcore.graphql.mutations.metadatafields import (
    CreateMetadataField,
    CreateMetadataTemplate,
    DeleteMetadataField,
    DeleteMetadataTemplate,
    UpdateMetadataField,
    UpdateMetadataTemplate,
)
from seqcore.graphql.mutations.moving import CloneSamples, ShareSamples, TransferSamples
from seqcore.graphql.mutations.ncbi import CreateNcbiSubmission
from seqcore.graphql.mutations.projects import CreateProject
from seqcore.graphql.mutations.samples import CreateSample
from seqcore.graphql.mutations.transfers import TransferGroup, TransferProject
from seqcore.graphql.mutations.workflows import SubmitWorkflowExecution


class Mutation(graphene.ObjectType):
    create_group = CreateGroup.Field()
    create_project = CreateProject.Field()
    create_sample = CreateSample.Field()
    update_sample_metadata = UpdateSampleMetadata.Field()
    bulk_update_sample_metadata = BulkUpdateSampleMetadata.Field()
    create_metadata_field = CreateMetadataField.Field()
    update_metadata_field = UpdateMetadataField.Field()
    delete_metadata_field = DeleteMetadataField.Field()
    create_metadata_template = CreateMetadataTemplate.Field()
    update_metadata_template = UpdateMetadataTemplate.Field()
    delete_metadata_template = DeleteMetadataTemplate.Field()
    copy_samples = CloneSamples.Field()
    share_samples = ShareSamples.Field()
    transfer_samples = TransferSamples.Field()
    launch_analysis = LaunchAnalysis.Field()
    cancel_analysis = CancelAnalysis.Field()
    create_ncbi_submission = CreateNcbiSubmission.Field()
    create_data_export = CreateDataExport.Field()
    delete_data_export = DeleteDataExport.Field()
    create_direct_upload = CreateDirectUpload.Field()
    attach_files_to_sample = AttachFilesToSample.Field()
    attach_files_to_project = AttachFilesToProject.Field()
    attach_files_to_group = AttachFilesToGroup.Field()
    submit_workflow_execution = SubmitWorkflowExecution.Field()
    transfer_project = TransferProject.Field()
    transfer_group = TransferGroup.Field()
    archive_project = ArchiveProject.Field()
    unarchive_project = UnarchiveProject.Field()
