"""The public plugin API: everything a seqcore plugin may import.

A plugin imports seqcore only from here (and its tests from :mod:`seqcore.testing`). The names
below are the contract between seqcore and the plugins built on it: they keep their meaning
across releases, while the modules they come from may be renamed, split or moved. Importing
anything else from ``seqcore`` couples a plugin to the core's internals; the first-party
plugins are checked for it on every build (``plugins/ruff.toml``, ``examples/ruff.toml``).

``docs/plugin_api.md`` is the reference, one line per name, generated from
:mod:`seqcore.plugindocs` (``python -m seqcore.plugindocs``); ``tests/meta/test_plugin_api.py``
keeps the page, this module and ``__all__`` in step.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seqcore import hookimpl
from seqcore.analysis.descriptors import (
    PipelineDescriptor,
    choice_values,
    pipeline_descriptors,
)
from seqcore.analysis.executors import JobStatus, SubmitLater
from seqcore.analysis.jobdata import JobSource
from seqcore.analysis.launching import Actor, Launch, LaunchChecked, LaunchRequest
from seqcore.analysis.pipeline import LOG as JOB_LOG
from seqcore.analysis.pipeline import (
    InputObject,
    PipelineContext,
    PipelineError,
    read_result,
    run_job,
)
from seqcore.analysis.readiness import not_ready_message, readiness
from seqcore.analysis.results import WriteBack
from seqcore.analysis.service import latest_submission_href, launch
from seqcore.analysis.toolenvs import ToolEnvironment, ToolEnvironmentError
from seqcore.analysis.toolenvs import ensure as ensure_tool_environment
from seqcore.analysis.toolenvs import environment_python as tool_environment_python
from seqcore.analysis.toolenvs import is_installed as tool_environment_installed
from seqcore.db import Base, utcnow
from seqcore.errors.domain import Conflict, DomainError, Forbidden, Invalid, NotFound
from seqcore.exports.contents import EXPORT_NAME
from seqcore.files.contentchecks import Fast5Check, FastaCheck, FastqCheck, verify_gzip
from seqcore.files.uploads import BadContent, ContentCheck
from seqcore.framework.contrib import (
    ANY_TYPE,
    AnalysisType,
    ChildSpec,
    Endpoint,
    Executor,
    FileKind,
    FileKindView,
    LinkSpec,
    MetadataType,
    MigrationSource,
    OutputRel,
    OutputView,
    Parameter,
    ReadinessCheck,
    Setting,
    Tool,
    View,
    ViewAssets,
    ViewInput,
)
from seqcore.framework.links import child_href, url_for
from seqcore.governance.activity import note as note_activity
from seqcore.governance.activity import operation as write_operation
from seqcore.governance.purge import purge_files
from seqcore.graphql.connections import Ordering, connection_args, connection_for, paginate
from seqcore.graphql.context import Context as GraphQLContext
from seqcore.graphql.loaders import DataLoader
from seqcore.graphql.types import Node
from seqcore.models.analysis import AnalysisSubmission, SubmissionInput
from seqcore.models.project import ProjectRole
from seqcore.models.sample import MetadataEntry, Sample
from seqcore.models.sequencing import QCRecord, SequenceFile, SequencingObject
from seqcore.models.user import SystemRole
from seqcore.observability.tracing import headers as trace_headers
from seqcore.observability.tracing import inner_span as trace_span
from seqcore.parsing.identifiers import parse_id
from seqcore.parsing.timestamps import epoch_ms
from seqcore.qc import FastQCCompatibleEngine
from seqcore.resources.analyses import SubmissionResource
from seqcore.resources.base import Context, int_key
from seqcore.resources.files import SequencingObjectResource
from seqcore.resources.projects import ProjectResource
from seqcore.resources.samples import SampleResource
from seqcore.rest.errors import ApiError
from seqcore.security.permissions import Permission
from seqcore.services import (
    IAnalysisRegistry,
    IExecutor,
    ILinkService,
    IQCEngine,
    IStorage,
    registry_service,
)
from seqcore.storage.service import storage_from_settings
from seqcore.web.charts import Band, Box, Series, bar_chart, box_plot, line_chart, scatter_chart
from seqcore.web.pluginviews import readable_metadata
from seqcore.web.table import (
    BulkAction,
    Cell,
    Column,
    Filter,
    Row,
    Table,
    TablePage,
    TableProblem,
    page_of,
)
from seqcore.web.trees import TreeNode, tree_svg

if TYPE_CHECKING:
    from marshmallow import Schema
    from pyramid.request import Request
    from pyramid.response import Response
    from sqlalchemy.orm import Session


# -- stable wrappers over REST helpers ---------------------------------------------------------
# A plugin's own endpoints answer in the core's wire format. These wrappers give the helpers
# names and signatures that hold while the REST modules behind them change; the REST layer is
# imported on first call, so a pipeline module that imports this one stays light.


def receive_file(request: Request, check: Callable[[], Any],
                 inspect: Callable[[Path], None] | None = None) -> SequenceFile:
    """Stream the request's multipart ``file`` part into storage through a content check
    (``check()`` returns a fresh :class:`FastaCheck`, ...); ``inspect(path)`` may refuse the
    whole file. Returns the unsaved :class:`SequenceFile`."""
    from seqcore.rest.views.files import receive_file as receive

    return receive(request, check, inspect)


def download(request: Request, context: Any, media_type: str) -> Response:
    """The stored file of ``context`` (which has ``.file``, a :class:`SequenceFile`) as a
    response of ``media_type``, through any ``resolve_download`` hook."""
    from seqcore.rest.views.files import download as serve

    return serve(request, context, media_type)


def negotiate(request: Request, offers: list[str], what: str = "This file") -> str:
    """The media type to answer with, chosen from ``offers`` by ``Accept`` (JSON first for
    ``*/*``); a 406 naming the offers when none is acceptable."""
    from seqcore.rest.views.files import negotiate as choose

    return choose(request, offers, what)


def file_entry(request: Request, context: Any, full_links: bool = False) -> dict[str, Any]:
    """A sequence file as the REST API shows it (``context`` is a file resource)."""
    from seqcore.rest.views.files import file_entry as show

    return show(request, context, full_links)


def files_of(request: Request, context: SequencingObjectResource) -> list[dict[str, Any]]:
    """The files of a sequencing object, each as listed inside the object."""
    from seqcore.rest.views.files import files_of as files

    return files(request, context)


def entry(request: Request, context: Any, fields: Mapping[str, Any],
          self_href: str | None = None, identifier: Any = None) -> dict[str, Any]:
    """One resource's fields followed by its ``links`` (every registered :class:`LinkSpec`)
    and ``identifier``; wrap it as ``{"resource": entry(...)}`` to answer with it."""
    from seqcore.rest.envelope import entry as make

    return make(request, context, fields, self_href, identifier)


def collection(request: Request, context: Any, entries: Iterable[dict[str, Any]],
               self_href: str | None = None) -> dict[str, Any]:
    """A collection answer, ``{"resource": {"resources": [...], "links": [...]}}``."""
    from seqcore.rest.envelope import collection as make

    return make(request, context, entries, self_href)


def submission_entry(request: Request, context: SubmissionResource) -> dict[str, Any]:
    """An analysis submission as the REST API shows it, with its links."""
    from seqcore.rest.views.analyses import submission_entry as show

    return show(request, context)


def read_json(request: Request) -> dict[str, Any]:
    """The request's JSON object body, with the core's 400/413/415 answers when it is not
    one."""
    from seqcore.rest.body import read_json as read

    return read(request)


def load(request: Request, schema: Schema, data: dict[str, Any] | None = None, *,
         partial: bool = False, allow_unknown: bool = False) -> dict[str, Any]:
    """Validate a JSON body (the request's by default) against a marshmallow schema; every
    field error comes back at once as a 400."""
    from seqcore.rest.body import load as validate

    return validate(request, schema, data, partial=partial, allow_unknown=allow_unknown)


def validation_error(errors: Mapping[str, list[str]]) -> ApiError:
    """The 400 the core answers for field errors (``{"field": ["message", ...]}``); raise
    it."""
    from seqcore.rest.errors import validation_error as make

    return make(errors)


def launch_view(request: Request) -> dict[str, Any]:
    """The generic launch view: a launch body for the analysis type the route traverses to,
    answered as ``POST /api/analysisSubmissions/analysisType/<type>`` answers. A type that
    keeps an older launch path for its clients declares an :class:`Endpoint` at that path
    with this view and ``traverse="/api/analysisSubmissions/analysisType/<type>"``."""
    from seqcore.rest.views.analyses import launch_submission

    return launch_submission(request)


def process_settings(owner: str, declared: Iterable[Setting],
                     ini: str | None = None) -> dict[str, Any]:
    """A plugin's settings for a process outside the web application (a worker), read as the
    application reads them: the environment, then the ini file, then the declared default,
    typed by the same declarations. A bad or missing value raises the same error as at the
    application's start-up, naming the setting, the value and where it came from."""
    from seqcore.framework.settings import Declared, resolve

    raw, origin = (ini_settings(ini), f"ini file {ini}") if ini else ({}, "the environment")
    return resolve([Declared(setting, owner) for setting in declared], raw, origin=origin)


def request_session(request: Request) -> Session:
    """The database session of ``request``'s transaction, for hooks that receive a request
    (``samples_deleting``, ``prepare``, a plugin's own views): what is written or deleted
    through it commits with the request's change or rolls back with it, so never commit it
    yourself. It is the session REST views use as ``request.db``."""
    return request.db  # type: ignore[no-any-return]


def purge_request_files(request: Request, file_ids: Iterable[int]) -> list[int]:
    """:func:`purge_files` in ``request``'s transaction (its session, the storage, its
    transaction manager): for a ``*_deleting`` hook that has deleted (or is about to see
    deleted) rows holding stored files. Returns the ids of the file rows deleted."""
    return purge_files(request.db, request.storage, request.tm, file_ids)


def ini_settings(ini: str) -> dict[str, Any]:
    """The resolved application settings of a PasteDeploy ini file, for a process (a worker)
    that runs outside the web application."""
    from seqcore.cli import Env

    return Env(ini).settings


__all__ = [
    "ANY_TYPE",
    "EXPORT_NAME",
    "JOB_LOG",
    "Actor",
    "AnalysisSubmission",
    "AnalysisType",
    "ApiError",
    "BadContent",
    "Band",
    "Base",
    "Box",
    "BulkAction",
    "Cell",
    "ChildSpec",
    "Column",
    "Conflict",
    "ContentCheck",
    "Context",
    "DataLoader",
    "DomainError",
    "Endpoint",
    "Executor",
    "Fast5Check",
    "FastQCCompatibleEngine",
    "FastaCheck",
    "FastqCheck",
    "FileKind",
    "FileKindView",
    "Filter",
    "Forbidden",
    "GraphQLContext",
    "IAnalysisRegistry",
    "IExecutor",
    "ILinkService",
    "IQCEngine",
    "IStorage",
    "InputObject",
    "Invalid",
    "JobSource",
    "JobStatus",
    "Launch",
    "LaunchChecked",
    "LaunchRequest",
    "LinkSpec",
    "MetadataEntry",
    "MetadataType",
    "MigrationSource",
    "Node",
    "NotFound",
    "Ordering",
    "OutputRel",
    "OutputView",
    "Parameter",
    "Permission",
    "PipelineContext",
    "PipelineDescriptor",
    "PipelineError",
    "ProjectResource",
    "ProjectRole",
    "QCRecord",
    "ReadinessCheck",
    "Row",
    "Sample",
    "SampleResource",
    "SequenceFile",
    "SequencingObject",
    "SequencingObjectResource",
    "Series",
    "Setting",
    "SubmissionInput",
    "SubmissionResource",
    "SubmitLater",
    "SystemRole",
    "Table",
    "TablePage",
    "TableProblem",
    "Tool",
    "ToolEnvironment",
    "ToolEnvironmentError",
    "TreeNode",
    "View",
    "ViewAssets",
    "ViewInput",
    "WriteBack",
    "bar_chart",
    "box_plot",
    "child_href",
    "choice_values",
    "collection",
    "connection_args",
    "connection_for",
    "download",
    "ensure_tool_environment",
    "entry",
    "epoch_ms",
    "file_entry",
    "files_of",
    "hookimpl",
    "ini_settings",
    "int_key",
    "latest_submission_href",
    "launch",
    "launch_view",
    "line_chart",
    "load",
    "negotiate",
    "not_ready_message",
    "note_activity",
    "page_of",
    "paginate",
    "parse_id",
    "pipeline_descriptors",
    "process_settings",
    "purge_files",
    "purge_request_files",
    "read_json",
    "read_result",
    "readable_metadata",
    "readiness",
    "receive_file",
    "registry_service",
    "request_session",
    "run_job",
    "scatter_chart",
    "storage_from_settings",
    "submission_entry",
    "tool_environment_installed",
    "tool_environment_python",
    "trace_headers",
    "trace_span",
    "tree_svg",
    "url_for",
    "utcnow",
    "validation_error",
    "verify_gzip",
    "write_operation",
]
