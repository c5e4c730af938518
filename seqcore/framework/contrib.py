"""What plugins declare.

Every ``register_*`` hook returns instances of these frozen dataclasses. The core validates
them and turns each into a Pyramid configuration action with a discriminator, so two plugins
that claim the same rel, path or name fail at start-up with both names in the error.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from string import Template
from typing import Any


def _untranslated(message: str, **mapping: Any) -> str:
    """A message as written, its ``${name}`` placeholders filled (no catalogue at hand)."""
    return Template(str(message)).safe_substitute(mapping)


@dataclass(frozen=True)
class MigrationSource:
    """An Alembic branch shipped inside a plugin distribution.

    ``location`` is ``"package:relative/dir"`` or an absolute directory holding revision files.
    The branch's first revision should ``depends_on`` the core head (``seqcore``).
    """

    #: The Alembic branch label (the plugin's name): `seqcore db upgrade` applies its head,
    #: `seqcore db downgrade <label>@base` removes its tables, `seqcore db revision
    #: --plugin <label>` writes into it.
    branch_label: str
    #: Where the revision files are: `"package:relative/dir"` (inside the installed
    #: package) or an absolute directory.
    location: str


@dataclass(frozen=True)
class LinkSpec:
    """A hypermedia link shown on every resource of type ``context`` (or a subclass).

    ``href(request, resource)`` returns the absolute URL, or ``None`` to leave the link out.
    ``when(request, resource)``, if given, must be true for the link to appear; use it for
    state-dependent rels (``analysis`` only on completed submissions).
    """

    #: The resource class the link is shown on (its subclasses too): `ProjectResource`,
    #: `SampleResource`, a plugin's own context.
    context: type
    #: The link's relation name, unique per resource type (`sample/assemblies`).
    rel: str
    #: `href(request, resource)`: the absolute URL (`child_href("x")`, `url_for`), or
    #: `None` to leave the link out.
    href: Callable[[Any, Any], str | None]
    #: `when(request, resource)`: the link appears only when true (`analysis` only on
    #: completed submissions); `None`: always.
    when: Callable[[Any, Any], bool] | None = None


@dataclass(frozen=True)
class ChildSpec:
    """A traversal child hung under a core context: ``parent[name]`` is ``factory(parent)``.

    The child inherits its parent's ACL through ``__parent__``, so it is as private as the
    sample or project it belongs to without any extra security code.
    """

    #: The core resource class the child hangs under (`ProjectResource`, `SampleResource`).
    parent: type
    #: The URL segment: `parent[name]` is the child.
    name: str
    #: `factory(parent)`: the child resource, a `Context` subclass whose `__parent__` is
    #: `parent` (so it inherits the parent's ACL).
    factory: Callable[[Any], Any]


@dataclass(frozen=True)
class View:
    """One HTTP method of an :class:`Endpoint`.

    ``permission`` is a :class:`seqcore.security.permissions.Permission` checked against the
    context's ACL; ``None`` means any authenticated caller.
    """

    #: `view(request) -> dict | Response`: the context is `request.context`; a dict is
    #: rendered by `renderer`.
    callable: Callable[[Any], Any]
    #: The `Permission` checked against the context's ACL before the view runs (404 when
    #: the caller may not read, 403 when they may read but not do this); `None`: any
    #: authenticated caller.
    permission: str | None = None
    #: How a returned dict is rendered: `seqcore_json` (the core's JSON), another Pyramid
    #: renderer, or `None` when the view returns a `Response`.
    renderer: str | None = "seqcore_json"


@dataclass(frozen=True)
class Endpoint:
    """A REST endpoint: a URL pattern bound to a traversal path and views by HTTP method.

    ``path`` is the public URL pattern (``/api/samples/{sid}/assemblies``); ``traverse`` is
    the traversal path that finds the context (defaults to ``path``). Aliases of one resource
    are separate endpoints with different ``path`` and the same ``traverse``.
    Methods not listed answer 405 with an ``Allow`` header; HEAD follows GET.
    """

    #: The route's unique name (`<plugin>.<what>`); two plugins using one name stop the
    #: start-up.
    name: str
    #: The public URL pattern (`/api/samples/{sid}/assemblies`).
    path: str
    #: `{HTTP method: View}`; other methods answer 405 with `Allow`, HEAD follows GET.
    views: Mapping[str, View]
    #: The traversal path that finds the context (default: `path`); aliases share it.
    traverse: str | None = None
    #: What the endpoint is for, shown in the API listing.
    description: str = ""


@dataclass(frozen=True)
class FileKind:
    """A kind of sequencing object (single-end file, pair, FAST5, ...) a sample can hold.

    The core derives everything the kinds share from this declaration: the sample's
    ``collection_rel`` link, the endpoints under ``/api/samples/{sid}/<path_segment>``
    (list, upload, object, files, download, QC) and their aliases under
    ``/sequenceFiles/``, streaming multipart uploads into storage, downloads by media type,
    and the worker's processing chain. The plugin supplies what is particular to the kind:

    :param files: how many files one object holds (1, or 2 for pairs); uploads take the parts
        ``file``/``parameters`` or ``file1``/``file2``/``parameters1``/``parameters2``.
    :param content_check: ``content_check(settings)`` makes a ``seqcore.plugin.ContentCheck``
        (``feed(data)`` per block as the file streams in, then ``finish()``) for each file;
        either raises ``seqcore.plugin.BadContent("why")`` to refuse the upload with a 400
        naming the file, keeping nothing. The core refuses empty files before any check.
        ``FastqCheck``, ``FastaCheck`` and ``Fast5Check`` are ready-made checks.
    :param media_types: media types a file of this kind downloads as (``Accept``).
    :param qc: run the QC engine on every file.
    :param decompress: the worker may decompress gzip uploads (when the deployment enables
        it).
    :param prepare: ``prepare(request, obj, files)`` after the object and its files exist
        and before the response: order a pair, record a FAST5 type, or raise
        ``seqcore.plugin.ApiError(400, message=...)`` to refuse the upload (nothing is kept);
        its session is ``seqcore.plugin.request_session(request)``.
    :param describe: ``describe(request, context) -> dict`` the kind's own fields of an
        object (``sequenceFile``, ``files``, ``fast5Type``...).
    :param upload_response: ``"file"`` answers an upload with the (first) file, as IRIDA does
        for single-end and FAST5 uploads; ``"object"`` with the object (pairs).
    :param default_upload: this kind receives ``POST /api/samples/{sid}/sequenceFiles``.
    :param pipeline_files: ``pipeline_files(db, obj)`` the object's files in the order
        analysis pipelines expect (a pair's forward file first); default: upload order.
    :param object_context: a subclass of
        :class:`seqcore.resources.files.SequencingObjectResource` for this kind's objects, so
        the plugin (and others) can register links on exactly these objects.
    :param default_input: analysis types that declare no ``inputs`` take this kind, so the
        core names no kind itself (paired-end reads are the usual default).
    :param input_rel: a submission links to its inputs of this kind under this rel
        (``input/paired``), at ``/api/analysisSubmissions/{id}/sequenceFiles/<path_segment>``;
        empty: the kind is never listed as a submission's input.
    :param sample_files: ``sample_files()`` valid ``(file name, bytes)`` for each file of one
        object: what the test kit uploads or stores when a test gives no files, and what the
        contracts use (:mod:`seqcore.testing`).
    :param factory: ``factory(db, obj, files)`` adds the kind's own rows to an object the
        test kit stored directly (its files written and flushed, in the order of ``files``,
        the ``(file name, bytes)`` they hold): what ``prepare`` does for an upload, without
        a request. Raise ``ValueError`` for files the kind cannot take.
    :param sra_layout: ``"SINGLE"`` or ``"PAIRED"``: objects of this kind are reads NCBI's
        SRA takes, sent as one run with this ``library_layout`` (``docs/ncbi.md``); empty:
        the kind is never submitted to NCBI.
    :param attachment_format: files attached through GraphQL (IRIDA Next's
        ``attachFilesToSample``) whose inferred ``format`` is this (``fastq``) become objects
        of this kind: detected forward/reverse pairs for a kind with ``files=2``, any other
        such file for a kind with ``files=1`` (:mod:`seqcore.files.attachments`). Empty: never.
    """

    #: The kind's name (`unpaired`, `pairs`, `fast5`): stored on each sequencing object,
    #: named by `AnalysisType.inputs` and the test kit.
    name: str
    #: The URL segment under a sample: `/api/samples/{sid}/<path_segment>`.
    path_segment: str
    #: The rel of the sample's link to the kind's objects (`sample/sequenceFiles/pairs`).
    collection_rel: str
    files: int = 1
    content_check: Callable[[Mapping[str, Any]], Any] | None = None
    media_types: tuple[str, ...] = ("application/fastq",)
    qc: bool = True
    decompress: bool = True
    prepare: Callable[[Any, Any, list[Any]], None] | None = None
    describe: Callable[[Any, Any], Mapping[str, Any]] | None = None
    upload_response: str = "file"
    default_upload: bool = False
    object_context: type | None = None
    pipeline_files: Callable[[Any, Any], list[Any]] | None = None
    #: A human name of the kind (`paired-end reads`) for listings and messages; default:
    #: `name`.
    label: str = ""
    default_input: bool = False
    input_rel: str = ""
    sample_files: Callable[[], list[tuple[str, bytes]]] | None = None
    factory: Callable[[Any, Any, list[tuple[str, bytes]]], None] | None = None
    sra_layout: str = ""
    attachment_format: str = ""


@dataclass(frozen=True)
class Parameter:
    """One parameter of an analysis type.

    ``type`` is ``int``, ``float``, ``bool``, ``str`` or ``choice`` (one of ``choices``);
    ``minimum``/``maximum`` bound numbers. Submissions store every value as a string, as
    IRIDA's ``inputParameters`` are.
    """

    #: The parameter's key in a launch's `parameters` and in `ctx.parameters`.
    name: str
    #: `int`, `float`, `bool`, `str` or `choice`: launching parses the given string to this
    #: type.
    type: str = "str"
    #: The value when a launch leaves the parameter out (unless `required`).
    default: Any = None
    #: What the parameter does, shown in `/api/analysisTypes` and the launch form.
    description: str = ""
    #: The smallest number accepted (`int`/`float`); `None`: unbounded.
    minimum: float | None = None
    #: The largest number accepted; `None`: unbounded.
    maximum: float | None = None
    #: The accepted values of a `choice` parameter.
    choices: tuple[str, ...] = ()
    #: What the launch form shows for each of `choices`, in their order (a pipeline
    #: schema's `[label, value]` enum pairs); empty: the values themselves.
    choice_labels: tuple[str, ...] = ()
    #: A launch must give the parameter (its `default` is not used).
    required: bool = False
    #: A regular expression (ECMAScript, as JSON Schema's `pattern`) a `str` value matches,
    #: given to the launch form (the browser's `pattern`) so a person learns of a bad value
    #: before sending it. The generic check does not apply it: the type's `launch_check`
    #: does (a pipeline descriptor's type validates with its schema, whose words the form
    #: then shows).
    pattern: str | None = None
    #: The heading the launch form shows the parameter under, beside the parameters of the
    #: same group that follow it (a pipeline schema's group title); empty: none.
    group: str = ""
    #: The launch form tucks the parameter under "More parameters" (a pipeline schema's
    #: `hidden`: an expert's setting); launching treats it as any other.
    hidden: bool = False


@dataclass(frozen=True)
class Tool:
    """Something an analysis type needs on the worker machines; readiness reports it.

    ``command`` is a program looked up on ``PATH``; ``version_args`` print its version (the
    first line of output is reported). ``check`` covers what is not a program (a bundled
    database, a model file): it returns ``None`` when all is well, else the reason, and runs
    each time readiness is asked, so it must be cheap. ``install`` tells an administrator how
    to get it (``apt-get install spades``). An ``optional`` tool is reported with the others
    but does not make the type unready (a better annotator used when present).
    """

    #: How readiness names the tool (`SPAdes`, `MLST schemes`).
    name: str
    #: The program looked up on `PATH` (empty for a `check`).
    command: str = ""
    #: Arguments that print its version; the first output line is reported.
    version_args: tuple[str, ...] = ("--version",)
    #: How an administrator gets it (`apt-get install spades`), shown when it is missing.
    install: str = ""
    #: Reported, but a type missing it is still ready.
    optional: bool = False
    #: `check() -> None | reason` for what is not a program (a database, a model file);
    #: cheap, run on each readiness question.
    check: Callable[[], str | None] | None = None


@dataclass(frozen=True)
class AnalysisType:
    """An analysis a plugin can run.

    The core derives the submissions filter (``/api/analysisSubmissions/analysisType/<name>``
    and the ``analysisSubmissions/<name>`` rel, for each alias too), launching, the state
    machine and serving outputs. The plugin supplies:

    :param pipeline: ``"package.module:function"``; the function receives a
        :class:`seqcore.analysis.pipeline.PipelineContext` and returns ``{output key: path}``.
        It runs in a separate process (local executor) or on another machine (Celery), so it
        is named by import path and must not touch the database.
    :param inputs: names of the file kinds accepted (``("pairs",)``); empty: the kinds
        registered with ``default_input`` (see :class:`FileKind`).
    :param samples: ``"one"`` (exactly one sample) or ``"many"``.
    :param parameters: the parameter schema, with defaults.
    :param writes_back: whether results can be written back to samples.
    :param write_back: ``write_back(ctx)`` called in the worker when a submission that asked
        for it completes, with a :class:`seqcore.analysis.results.WriteBack` (session,
        storage, submission, stored outputs by key): turn outputs into sample metadata,
        assemblies...
    :param tools: external programs it needs (readiness).
    :param aliases: other names the filter path and rel answer to (IRIDA's ``sistr``).
    :param settings: names of deployment settings (the plugin's own, from
        ``register_settings``, or the core's) whose values the pipeline receives as
        ``ctx.settings``: the pipeline runs in another process, maybe another machine, and
        sees no configuration otherwise.

    Launches that need more than the generic fields (a reference genome the caller must be
    allowed to read) declare it here rather than adding an endpoint of their own; see
    :mod:`seqcore.analysis.launching` and ``docs/analyses/launching.md``:

    :param launch_fields: names of extra top-level launch fields this type accepts beside the
        generic ones (``name``, ``sequencingObjects``, ``samples``...); their values reach
        ``launch_check`` as given, in ``launch.request.extra``. Any other field is refused.
    :param launch_check: ``launch_check(launch) -> LaunchChecked | None`` runs on every
        launch (REST, GraphQL) after the generic checks, with a
        :class:`seqcore.analysis.launching.Launch` (the typed request, inputs resolved,
        parameters typed, the generic problems so far, the caller as an ``Actor``). Its
        problems are reported with the generic ones in one answer; its ``resolved`` values
        go to ``record_launch``. It must not write.
    :param record_launch: ``record_launch(launch, submission, resolved)`` runs once the
        submission exists, in the same transaction: keep what the check resolved (in the
        plugin's own table) for ``job_data``.
    :param job_data: ``job_data(source) -> dict`` runs when the worker writes the job, with a
        :class:`seqcore.analysis.jobdata.JobSource`; the JSON-serialisable dict it returns
        is written into ``job.json`` and read by the pipeline as ``ctx.data`` (stored files
        are passed by path). Raising fails the submission with the error as its reason.
    """

    #: The type's name in URLs and submissions
    #: (`/api/analysisSubmissions/analysisType/<name>`).
    name: str
    #: A human name (`MLST typing`) for listings and the launch form.
    label: str
    #: The workflow's identifier as IRIDA shows it in a submission (`workflowId`).
    workflow_id: str
    pipeline: str = ""
    #: The workflow's version, shown with each submission.
    version: str = "1"
    inputs: tuple[str, ...] = ()
    samples: str = "one"
    parameters: tuple[Parameter, ...] = ()
    writes_back: bool = False
    write_back: Callable[..., None] | None = None
    tools: tuple[Tool, ...] = ()
    aliases: tuple[str, ...] = ()
    #: What the analysis does, shown in `/api/analysisTypes`.
    description: str = ""
    settings: tuple[str, ...] = ()
    launch_fields: tuple[str, ...] = ()
    launch_check: Callable[[Any], Any] | None = None
    record_launch: Callable[[Any, Any, Mapping[str, Any]], None] | None = None
    job_data: Callable[[Any], Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class OutputRel:
    """A named output of an analysis type, served as ``outputFile/<key>`` once completed
    (``rel`` is usually ``outputFile/<key>``; more rels may name the same key)."""

    #: The `AnalysisType.name` whose submissions have this output (checked at start-up).
    analysis_type: str
    #: The link's rel on a completed analysis (`outputFile/<key>`).
    rel: str
    #: The output key the pipeline returns it under (`{key: path}`).
    key: str
    #: The name the stored output is served as (`Content-Disposition`).
    file_name: str
    #: Its media type when downloaded.
    media_type: str = "text/plain"


@dataclass(frozen=True)
class Executor:
    """Something that runs analysis pipelines (local processes, a Celery cluster).

    ``factory(settings)`` returns an object with ``submit(job) -> str`` (the executor's id
    for the job, or raises ``SubmitLater`` while its server does not answer), ``poll(remote_id,
    job) -> seqcore.analysis.executors.JobStatus``, ``cancel(remote_id)`` and ``queues``
    (True when accepted jobs may wait, ``poll`` answering ``queued``); see
    :mod:`seqcore.analysis.executors`. Each executor is the
    :class:`seqcore.services.IExecutor` service named ``name``; every lookup builds a new
    one with the application's (typed) settings.
    """

    #: The executor's name in `seqcore.analysis.executor` and the `IExecutor` service name.
    name: str
    #: `factory(settings)` -> an object with `submit(job)`, `poll(remote_id, job) ->
    #: JobStatus`, `cancel(remote_id)` and `queues`.
    factory: Callable[[Mapping[str, Any]], Any]


@dataclass(frozen=True)
class ReadinessCheck:
    """Something ``GET /-/ready`` must find working before the deployment takes requests
    (a broker the plugin submits to).

    ``check(settings)`` returns when all is well and raises otherwise; it should give up
    within a few seconds. The readiness answer names the check (``name``) and says
    ``failed``; the exception goes to the log only, so it may carry addresses and details.
    """

    #: How `GET /-/ready` names the check in its answer.
    name: str
    #: `check(settings)`: returns when all is well, raises otherwise (within a few
    #: seconds).
    check: Callable[[Mapping[str, Any]], None]


@dataclass(frozen=True)
class Setting:
    """A configuration key the core or a plugin reads, documented and given a default.

    The value comes from the ``SEQCORE_*`` environment variable named after the key
    (``seqcore.celery.queue`` → ``SEQCORE_CELERY_QUEUE``), else the ini file, else
    ``default``. It is parsed once at start-up by ``type_`` (``str``, ``int``, ``float``,
    :func:`seqcore.framework.settings.as_bool`, or any function that raises ``ValueError`` for a bad
    value), and code reads the typed value from ``registry.settings``. A value ``type_``
    refuses, or an empty ``required`` one, stops the start-up naming the key, the value and
    where it came from. ``doc`` is shown in ``docs/settings.md``.
    """

    #: The setting's key (`seqcore.mlst.db_path`); its environment variable is
    #: `SEQCORE_MLST_DB_PATH`.
    name: str
    #: The value when neither the environment nor the ini file gives one.
    default: Any
    #: What the setting does, shown in `docs/settings.md`.
    doc: str
    #: Parses the raw string once at start-up (`int`, `float`, a function raising
    #: `ValueError`).
    type_: Callable[[Any], Any] = str
    #: An empty value stops the start-up.
    required: bool = False


@dataclass(frozen=True)
class MetadataType:
    """A type of sample metadata value beyond ``text``.

    ``validate(value)`` returns an error message for a value that is not of this type, or
    ``None`` when it is. Values are always stored and served as strings.
    """

    #: The type's name, stored with each value (`text`, `date`).
    name: str
    #: What values of the type look like, for listings and messages.
    description: str
    #: `validate(value) -> None | message`: the message refuses the value (400).
    validate: Callable[[str], str | None] = lambda value: None


@dataclass(frozen=True)
class ViewAssets:
    """A plugin's templates and static files for the views it contributes to the pages.

    ``templates`` is a directory of Mako templates (a view's ``template`` is a path relative
    to it; name them under a folder of the plugin's own, ``phylogenomics/tree.mako``, so two
    plugins cannot shadow each other). ``static``, when given, is served at
    ``/-/plugins/<name>/<file>``; a template finds a file's URL with
    ``plugin_static(name, file)``. ``name`` is a discriminator: two plugins cannot share one.

    ``translations``, when given, is a directory of gettext catalogues,
    ``<lang>/LC_MESSAGES/<domain>.mo`` (``domain`` defaults to ``name``), one for every
    language the pages speak (checked at start-up). The plugin's views then translate their
    messages (``_()`` in templates, :attr:`ViewInput.translate` in ``context``) with this
    catalogue first and the core's second, so a plugin only translates its own words.
    """

    name: str
    templates: Any  # str | pathlib.Path
    static: Any = None  # str | pathlib.Path | None
    translations: Any = None  # str | pathlib.Path | None
    domain: str | None = None


@dataclass(frozen=True)
class ViewInput:
    """What a view's ``context`` callable receives: the request, the analysis submission (or
    sequencing object) shown, the output (or file) the view is for, its stored file's
    ``path`` on local disk, and every output of the submission by key (a view may combine
    several, such as a tree beside its SNV matrix).

    ``translate(message, **mapping)`` gives a message in the page's language, looked up in
    the plugin's catalogue (:class:`ViewAssets` ``translations``), then in the core's; with
    ``${name}`` placeholders filled from ``mapping``."""

    request: Any
    subject: Any
    item: Any
    path: Any  # pathlib.Path
    outputs: Mapping[str, Any]
    translate: Callable[..., str] = field(default=_untranslated)


#: :class:`OutputView`'s ``analysis_type`` for "every type that declares the rel".
ANY_TYPE = "*"


@dataclass(frozen=True)
class OutputView:
    """How the analysis page shows one output of an analysis type, instead of its name in
    the list of outputs.

    ``rel`` is one of the type's :class:`OutputRel` rels (checked at start-up), or, with
    ``analysis_type`` :data:`ANY_TYPE` (``"*"``), a rel any number of types may declare (the
    types a plugin makes at start-up from files: a view naming a type wins); ``template``
    a Mako template of a :class:`ViewAssets` directory, rendered with ``request``,
    ``submission``, ``output``, ``_`` (translation), ``download_path(output)`` (the page's
    link downloading any output of the submission) and what ``context(ViewInput)`` returns
    (a mapping). A template or context that fails is logged and the output falls back to
    its entry in the list, so a broken view never hides the rest of the page.
    """

    analysis_type: str
    rel: str
    template: str
    context: Callable[[ViewInput], Mapping[str, Any]] | None = None


@dataclass(frozen=True)
class FileKindView:
    """How the sample page shows each object of a file kind (checked at start-up to be a
    registered kind), with ``template`` and ``context`` as for :class:`OutputView`; the
    template receives ``request``, ``sample``, ``object`` and the context's values."""

    kind: str
    template: str
    context: Callable[[ViewInput], Mapping[str, Any]] | None = None
