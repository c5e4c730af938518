"""The contract between seqcore and its plugins.

Hooks are called with keyword arguments only; an implementation may accept any subset of a
hook's arguments (pluggy's opt-in arguments), so a hook can gain arguments without breaking
plugins. Names follow three patterns:

* ``register_*`` run once while the application is configured and return declarations
  (frozen dataclasses from :mod:`seqcore.framework.contrib`); returning ``None`` declares nothing.
* ``select_*`` / ``resolve_*`` are ``firstresult``: the first non-``None`` answer wins.
* past-tense names are notifications; they must not raise.

Each hook is documented in ``docs/plugin_hooks.md`` with its exact signature; a meta-test
checks that every hook here appears there.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from seqcore import hookspec

if TYPE_CHECKING:
    import pluggy
    from pyramid.config import Configurator
    from pyramid.request import Request

    from seqcore.analysis.toolenvs import ToolEnvironment
    from seqcore.framework.contrib import (
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
        ReadinessCheck,
        Setting,
        ViewAssets,
    )


# --------------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------------


@hookspec(historic=True)
def addhooks(plugin_manager: pluggy.PluginManager) -> None:
    """Add hookspecs of a plugin's own, for other plugins to implement.

    Historic: also reaches plugins registered after the call.

    :param plugin_manager: the application's plugin manager; call ``add_hookspecs`` on it.

    .. versionadded:: 26.11
    """


# --------------------------------------------------------------------------------------------
# Registration: called once while ``seqcore.config.configure`` builds the application
# --------------------------------------------------------------------------------------------


@hookspec
def register_settings() -> Iterable[Setting] | None:
    """Declare the configuration keys the plugin reads: each ``Setting`` has a name, a
    default, its documentation, a parser (``type_``: ``int``, ``as_bool``, any callable that
    raises ``ValueError`` on a bad value) and a ``required`` flag.

    Every declared key is resolved once, before any other registration hook runs: its
    ``SEQCORE_*`` environment variable, else the ini file, else the default, parsed by
    ``type_``; code reads the typed value from ``registry.settings``. A bad or missing
    required value stops the start-up naming the key, the value and where it came from. A key
    two plugins declare fails with both names. ``docs/settings.md`` lists every setting
    (``python -m seqcore.framework.settingdocs``).

    .. versionadded:: 26.11
    """


@hookspec
def register_models() -> Iterable[type] | None:
    """Return SQLAlchemy mapped classes; they must subclass :class:`seqcore.db.Base`.

    Table names should start with the plugin's name. Importing the models is what makes
    them known to the mapper; the tables themselves are created by the plugin's migrations.

    .. versionadded:: 26.11
    """


@hookspec
def register_migrations() -> Iterable[MigrationSource] | None:
    """Return the Alembic branches the plugin ships (usually one).

    ``seqcore db upgrade`` applies the heads of the core and of every registered branch.

    .. versionadded:: 26.11
    """


@hookspec
def register_resource_children() -> Iterable[ChildSpec] | None:
    """Hang traversal children under core contexts (``SampleResource['assemblies']``).

    Children inherit the parent's ACL; a plugin adds no security code of its own.

    .. versionadded:: 26.11
    """


@hookspec
def register_links() -> Iterable[LinkSpec] | None:
    """Return links to show on resources of a given context type.

    Two plugins registering the same rel on the same context type fail at start-up.

    .. versionadded:: 26.11
    """


@hookspec
def register_rest_endpoints() -> Iterable[Endpoint] | None:
    """Return REST endpoints (URL pattern, traversal path and views by HTTP method).

    Two plugins claiming the same endpoint name or URL pattern fail at start-up.

    .. versionadded:: 26.11
    """


@hookspec
def register_file_kinds() -> Iterable[FileKind] | None:
    """Return kinds of sequencing object (single-end, pairs, FAST5, assemblies, ...).

    The core derives the sample's ``sample/sequenceFiles/<kind>`` link and download
    negotiation from each kind.

    .. versionadded:: 26.11
    """


@hookspec
def register_analysis_types() -> Iterable[AnalysisType] | None:
    """Return analysis types; the core derives ``analysisSubmissions/<name>`` and the
    ``/api/analysisSubmissions/analysisType/<name>`` filter from each.

    .. versionadded:: 26.11
    """


@hookspec
def register_pipeline_descriptors() -> Iterable[str | Path] | None:
    """Return descriptor files (IRIDA Next's ``pipelines.json`` format) a plugin ships; each
    pipeline version they declare becomes an analysis type, run by an executor that takes
    descriptors (the ``wes`` plugin), like the files in ``seqcore.pipelines.dir``.

    A version's schemas sit beside the file, in IRIDA Next's layout:
    ``<url path>/<version>/nextflow_schema.json`` and ``.../assets/schema_input.json``
    (``docs/pipelines.md``). A bad file stops the start-up naming the file and the problem.

    .. versionadded:: 26.11
    """


@hookspec
def register_output_rels() -> Iterable[OutputRel] | None:
    """Return outputs of analysis types, shown as ``outputFile/<key>`` once completed.

    Separate from :func:`register_analysis_types` so a third party can add an output to an
    analysis type it did not write.

    .. versionadded:: 26.11
    """


@hookspec
def register_tool_environments() -> Iterable[ToolEnvironment] | None:
    """Return the virtualenvs the plugin's tools run in, apart from the server's (a tool
    that pins old libraries: numpy<2 and the like). ``seqcore tools install`` creates them
    under ``seqcore.tools.path`` from the deployment's package index; a pipeline gets its
    interpreter with ``ensure_tool_environment(environment, ctx.settings)``, which creates
    a missing one at first use.

    .. versionadded:: 26.11
    """


@hookspec
def register_executors() -> Iterable[Executor] | None:
    """Return executors that can run analysis pipelines (local pool, Celery, ...).

    .. versionadded:: 26.11
    """


@hookspec
def register_readiness_checks() -> Iterable[ReadinessCheck] | None:
    """Return checks ``GET /-/ready`` runs besides the core's (database, storage,
    migrations): a broker or service the plugin needs to do its work.

    .. versionadded:: 26.11
    """


@hookspec
def register_metadata_types() -> Iterable[MetadataType] | None:
    """Return sample metadata types besides ``text`` (the default type of every entry).

    A metadata write naming a type nobody registered is a 400.

    .. versionadded:: 26.11
    """


@hookspec
def register_graphql_types() -> Iterable[type] | None:
    """Return graphene types to add to the GraphQL schema.

    Types reachable through ``node(id:)`` implement :class:`seqcore.graphql.types.Node`,
    list the model classes they render in ``Meta.possible_types``, and define a classmethod
    ``get_node(info, pk)`` returning the object (or an awaitable of it), or ``None`` when it
    does not exist or the caller may not read it; their ``id`` is then
    ``gid://<app>/<TypeName>/<pk>``. Resolvers find the request, the caller, the request's
    data loaders and ``gid()`` in ``info.context`` (:class:`seqcore.graphql.context.Context`).
    Two plugins, or a plugin and the core, contributing the same type name fail at start-up
    with both names in the error.

    .. versionadded:: 26.11
    """


@hookspec
def register_graphql_query_fields() -> Iterable[type] | None:
    """Return graphene ``ObjectType`` mixins whose fields are merged into ``Query``.

    Each mixin declares fields and their ``resolve_<field>`` methods, exactly as on a
    ``Query`` class. A field name claimed twice (by two plugins, or a plugin and the core's
    ``currentUser``, ``node``, ``nodes``, ``samples``, ``projects``, ``project``) fails at
    start-up with both names in the error. The schema is built once, after every
    contribution. Connections come from :func:`seqcore.graphql.connections.connection_for`
    and :func:`~seqcore.graphql.connections.paginate`.

    .. versionadded:: 26.11
    """


@hookspec
def register_views() -> Iterable[ViewAssets | OutputView | FileKindView] | None:
    """Return the views a plugin contributes to the web pages, with their assets.

    :class:`~seqcore.framework.contrib.ViewAssets` adds the plugin's Mako template directory
    (and static files); :class:`~seqcore.framework.contrib.OutputView` shows an output rel
    of an analysis type on the analysis page; :class:`~seqcore.framework.contrib.FileKindView`
    shows the objects of a file kind on the sample page. Checked at start-up: an unknown rel
    or kind, or a template no directory holds, stops the start-up naming the plugin; two
    views of one rel or kind conflict. The core's reusable pieces (charts, tables, the tree)
    are exported from :mod:`seqcore.plugin`.

    .. versionadded:: 26.11
    """


@hookspec
def configure_app(config: Configurator) -> None:
    """Escape hatch: do anything else Pyramid allows (subscribers, services, tweens).

    Called after every declaration has been registered and before the configuration is
    committed.

    :param config: the application's Configurator.

    .. versionadded:: 26.11
    """


# --------------------------------------------------------------------------------------------
# Runtime
# --------------------------------------------------------------------------------------------


@hookspec(firstresult=True)
def select_executor(analysis_type: AnalysisType, settings: Mapping[str, Any]) -> str | None:
    """Choose the executor that runs submissions of ``analysis_type``: return the name of a
    registered :class:`~seqcore.framework.contrib.Executor` (a GPU cluster for one type, say).

    Return ``None`` to let another plugin decide; when none decides, the
    ``seqcore.analysis.executor`` setting does. Stops at first non-None result. Asked in the
    worker when a submission starts; the name is stored on the submission, which is polled
    and cancelled through the same executor afterwards.

    :param analysis_type: the registered analysis type being submitted.
    :param settings: application settings (read-only).

    .. versionadded:: 26.11
    """


@hookspec(firstresult=True)
def resolve_download(request: Request, context: Any, media_type: str) -> Any | None:
    """Return a response streaming ``context`` as ``media_type``, or ``None`` if not yours.

    Stops at first non-None result. Name the file with
    ``seqcore.files.disposition.content_disposition(file_name)``, as the core's downloads do:
    any stored name then reaches the client exactly and cannot add header parameters.

    :param request: the current request.
    :param context: the traversal context being downloaded.
    :param media_type: the media type the client accepted.

    .. versionadded:: 26.11
    """


@hookspec
def submission_state_changed(
    submission: Any, old_state: str, new_state: str, request: Request | None
) -> None:
    """Notification: an analysis submission moved from ``old_state`` to ``new_state``.

    Must not raise. Runs inside the worker's transaction, so rows added are committed with
    the state change.

    .. versionadded:: 26.11
    """


@hookspec
def samples_deleting(sample_ids: list[int], request: Request | None) -> None:
    """Notification: these samples are about to be deleted, with everything attached.

    Runs inside the deleting transaction, before the rows go. A plugin that keeps files for
    a sample deletes its rows here, through ``seqcore.plugin.request_session(request)`` (the
    transaction's session: never commit it), and hands their stored files to
    ``seqcore.plugin.purge_request_files(request, file_ids)``, which removes the bytes after
    commit and keeps any file another row still refers to, so a rolled-back delete loses no
    file.

    :param sample_ids: the ids of the samples being deleted.
    :param request: the current request, or ``None`` outside one.

    .. versionadded:: 26.11
    """


@hookspec
def submissions_deleting(submission_ids: list[int], request: Request | None) -> None:
    """Notification: these analysis submissions are about to be deleted, with their inputs'
    and projects' links, their outputs (rows and stored files) and their work directories.

    Runs inside the deleting transaction, before the rows go (its session:
    ``seqcore.plugin.request_session(request)``). A plugin that keeps rows naming
    a submission removes them here (or, for data that outlives the submission, such as an
    assembly written back to a sample, clears the reference), so nothing dangles and nothing
    blocks the delete; stored files it removes go through ``seqcore.plugin.purge_files``, which
    removes the bytes after commit and keeps any file another row still refers to, so a
    rolled-back delete loses no file. Raising aborts the whole delete.

    :param submission_ids: the ids of the submissions being deleted.
    :param request: the current request, or ``None`` outside one.

    .. versionadded:: 26.11
    """


@hookspec
def projects_deleting(project_ids: list[int], request: Request | None) -> None:
    """Notification: these projects are about to be deleted (after their unshared samples).

    Runs inside the deleting transaction (its session:
    ``seqcore.plugin.request_session(request)``); a plugin removes rows it keeps per project and
    collects stored files to delete after commit, as for :func:`samples_deleting`.

    :param project_ids: the ids of the projects being deleted.
    :param request: the current request, or ``None`` outside one.

    .. versionadded:: 26.11
    """


@hookspec
def describe_sequencing_object(request: Request, context: Any, kind: FileKind,
                               fields: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """Add fields to a sequencing object's REST answer, for objects of a kind another plugin
    declared: return the fields to add (they replace the kind's value of the same key), or
    ``None``.

    A kind names a field it shows but cannot fill itself with ``None`` in its ``describe``
    (a pair's ``assembledGenome``); the plugin that knows the value fills it when the key is
    in ``fields``, so neither plugin imports the other. Called for every object answer (the
    object, the kind's collection, a submission's inputs); two plugins should not fill the
    same key (the one called last wins).

    :param request: the current request.
    :param context: the object's traversal context (``context.obj`` is the
        :class:`~seqcore.models.sequencing.SequencingObject`, ``context.sample_ctx`` its
        sample's context).
    :param kind: the object's registered :class:`~seqcore.framework.contrib.FileKind`.
    :param fields: the answer's fields so far (read only).

    .. versionadded:: 26.11
    """


@hookspec
def describe_sequencing_objects(request: Request, contexts: Sequence[Any], kind: FileKind,
                                fields: Sequence[Mapping[str, Any]]
                                ) -> Sequence[Mapping[str, Any] | None] | None:
    """The batch form of :func:`describe_sequencing_object`: add fields to the REST answers
    of several objects of one kind at once (a sample's pairs, a submission's inputs, or one
    object alone), so a plugin can read what it needs for all of them in one statement
    instead of one per object. Return one entry per context, in order (the fields to add, or
    ``None`` for none), or ``None`` to add nothing to any.

    Called before :func:`describe_sequencing_object`, for the same answers; a plugin
    implements one of the two (the per-object form keeps working for plugins written
    against it).

    :param request: the current request.
    :param contexts: the objects' traversal contexts (``context.obj``, ``context.sample_ctx``).
    :param kind: their registered :class:`~seqcore.framework.contrib.FileKind`.
    :param fields: each answer's fields so far (read only), in the order of ``contexts``.

    .. versionadded:: 26.11
    """


@hookspec
def sequencing_object_processed(sequencing_object: Any, kind: str, registry: Any) -> None:
    """Notification: a sequencing object finished processing (checksum, decompression, QC)
    and is ``FINISHED``.

    Runs in the processing worker, never in a request, inside the transaction that marks the
    object ``FINISHED`` (the object's session is
    ``sqlalchemy.orm.object_session(sequencing_object)``): rows added here commit with it.
    Must not raise. The core uses it to launch a project's automated analyses.

    :param sequencing_object: the processed object.
    :param kind: its file kind's name.
    :param registry: the application's Pyramid registry (settings, analysis types).

    It was named ``file_uploaded``, with a ``request`` argument that was always ``None``;
    the name now says when it fires.

    .. versionadded:: 26.11
    """


@hookspec(firstresult=True)
def import_assembly(request: Request, sample_id: int, file: Any) -> Any | None:
    """Keep an assembly ``seqcore import`` copied from another install into a sample; return
    the row that holds it (its ``id`` enters the import's map), or ``None`` if not yours.

    The core has downloaded the FASTA, checked it (``FastaCheck``) and its size, and kept it
    in storage: ``file`` is the unsaved ``seqcore.plugin.SequenceFile``, whose stored bytes
    go again if the transaction aborts. Add the plugin's row through
    ``seqcore.plugin.request_session(request)`` (never commit it). Without an implementation
    an import reads no assemblies.

    .. versionadded:: 26.11
    """


@hookspec(firstresult=True)
def remove_imported_assembly(request: Request, assembly_id: int) -> bool | None:
    """Remove an assembly :func:`import_assembly` kept (``assembly_id`` is the ``id`` of the
    row it returned), because a synchronized project's remote install no longer holds it;
    return ``True`` once removed, ``None`` if the row is not yours (or is gone already).

    Remove the row through ``seqcore.plugin.request_session(request)`` and its stored file
    with ``seqcore.plugin.purge_request_files`` (the bytes go once the transaction commits); never
    commit. Without an implementation a sync leaves such assemblies here.

    .. versionadded:: 26.11
    """
