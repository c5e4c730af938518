"""Phylogenomics (SNVPhyl 1.2.3 outputs) and project reference files.

The analysis type takes its reference genome as the ``reference`` parameter
(``referenceFile:<id>`` or ``assembly:<id>``), as its clients have always sent it. A reference
is readable data of its own (a project's file, a sample's assembly) that the caller must be
allowed to read, and the pipeline runs without a database, so the type declares what the
framework needs to launch it through the generic ``POST
/api/analysisSubmissions/analysisType/phylogenomics``: a ``launch_check`` that checks the
reference and the isolates (its problems come in the framework's one 400), a
``record_launch`` that keeps the reference's stored file (its key) with the new submission
in the same transaction, and ``job_data`` that stages it into the job's directory and hands
that path to the pipeline (``ctx.data``) when the worker writes the job (in a local
directory the stored file itself; from an object store, a copy). ``POST
/api/analysisSubmissions/phylogenomics``, the path clients used before, is an alias
answering identically.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import delete, select

from seqcore.plugin import (
    Actor,
    AnalysisType,
    ApiError,
    ChildSpec,
    Context,
    Endpoint,
    FastaCheck,
    JobSource,
    Launch,
    LaunchChecked,
    LinkSpec,
    MigrationSource,
    OutputRel,
    Parameter,
    Permission,
    ProjectResource,
    SequenceFile,
    Tool,
    View,
    child_href,
    collection,
    download,
    entry,
    epoch_ms,
    hookimpl,
    int_key,
    launch_view,
    negotiate,
    parse_id,
    purge_files,
    receive_file,
    url_for,
    verify_gzip,
)
from seqcore_phylogenomics import snv
from seqcore_phylogenomics.models import ReferenceFile, SubmissionReference
from seqcore_phylogenomics.pipeline import OUTPUT_FILES

FASTA = "application/fasta"
NAME = "phylogenomics"
LAUNCH_PATH = "/api/analysisSubmissions/phylogenomics"  # the alias clients already use
GENERIC_LAUNCH_PATH = f"/api/analysisSubmissions/analysisType/{NAME}"
REFERENCE = re.compile(r"^(referenceFile|assembly):([0-9]+)$", re.ASCII)


def _tool(name: str, command: str, package: str, *args: str) -> Tool:
    """A Debian-packaged tool; ``args`` make it print its version (``--version`` unless
    given; ``bwa`` prints it only when run bare)."""
    return Tool(name, command, args or ("--version",), install=f"apt-get install {package}")


# -- launching -------------------------------------------------------------------------------

def resolve_reference(actor: Actor, value: Any) -> tuple[str | None, str | None]:
    """``(stored file's key, None)`` for a reference the caller may read, else ``(None,
    problem)``.
    What the caller cannot read does not exist for it (same message as a wrong id)."""
    match = REFERENCE.match(value) if isinstance(value, str) else None
    if match is None:
        return None, ("'reference' must be referenceFile:<id> (a project's reference file) "
                      "or assembly:<id> (an assembly of a sample).")
    kind, ident = match.group(1), parse_id(match.group(2))
    if ident is None:  # beyond any id column: nothing has that id
        what = "reference file" if kind == "referenceFile" else "assembly"
        return None, f"There is no {what} {match.group(2)}."
    if kind == "referenceFile":
        ref = actor.db.get(ReferenceFile, ident)
        if ref is None or not actor.may(Permission.PROJECT_READ, "projects",
                                        str(ref.project_id), "referenceFiles", str(ident)):
            return None, f"There is no reference file {ident}."
        return ref.file.path, None
    try:
        from seqcore_assemblies.models import Assembly
    except ImportError:
        return None, "Assemblies are not installed here (the seqcore-assemblies plugin)."
    assembly = actor.db.get(Assembly, ident)
    if assembly is None or not actor.may(Permission.SAMPLE_READ, "samples",
                                         str(assembly.sample_id)):
        return None, f"There is no assembly {ident}."
    try:
        with actor.storage.local_copy(assembly.file.path) as path:
            snv.read_fasta(path)
    except (snv.ReferenceError, UnicodeDecodeError) as err:
        return None, f"Assembly {ident} is not a usable reference: {err}"
    return assembly.file.path, None


def check_launch(launch: Launch) -> LaunchChecked:
    """The reference must be one the caller may read, and a phylogeny needs two isolates.

    Reference problems come with the generic ones, in one answer; the isolates are counted
    only once everything else is right (as they always were)."""
    parameters = launch.request.parameters or {}
    problems: dict[str, list[str]] = {}
    path = None
    if isinstance(parameters, dict):
        if parameters.get("reference") is None:
            problems["parameters.reference"] = ["'reference' is required."]
        else:
            path, problem = resolve_reference(launch.actor, parameters["reference"])
            if problem:
                problems["parameters.reference"] = [problem]
    if not problems and not launch.problems and len(launch.sample_ids) < 2:
        problems["samples"] = [
            "Phylogenomics compares isolates: give the paired reads of at least two samples."]
    if problems or path is None:  # path is None: the generic checks refused the parameters
        return LaunchChecked(problems=problems)
    return LaunchChecked(resolved={"reference": str(parameters["reference"]), "path": path})


def record_launch(launch: Launch, submission: Any, resolved: Mapping[str, Any]) -> None:
    """Keep the reference the launch resolved with the new submission (same transaction)."""
    launch.db.add(SubmissionReference(submission_id=submission.id,
                                      reference=resolved["reference"], path=resolved["path"]))
    launch.db.flush()


def job_data(source: JobSource) -> dict[str, Any]:
    """The reference resolved at launch, for the pipeline (``ctx.data``); nothing for a
    submission created without a launch check (an automated one), which the pipeline then
    refuses with a reason."""
    row = source.db.get(SubmissionReference, source.submission.id)
    if row is None:
        return {}
    path = row.path
    if not Path(path).is_absolute():  # the reference's key (rows of old launches: its path)
        if source.work_dir is None:
            raise RuntimeError("the reference cannot be staged without the job's directory")
        path = str(source.storage.stage(path, source.work_dir / "inputs"))
    return {"reference": row.reference, "path": path}


PHYLOGENOMICS = AnalysisType(
    name=NAME, label="Phylogenomics (SNVPhyl)", workflow_id="SNVPhyl-1.2.3",
    version="1.2.3", pipeline="seqcore_phylogenomics.pipeline:run", inputs=("pairs",),
    samples="many", launch_check=check_launch, record_launch=record_launch, job_data=job_data,
    description="Whole-genome SNV phylogeny of many isolates against a reference, with "
                "SNVPhyl's steps, filters and outputs. Launch with POST "
                f"{LAUNCH_PATH}.",
    parameters=(
        Parameter("reference", "str", None, "referenceFile:<id> (a project's reference file) "
                  "or assembly:<id> (an assembly of a readable sample).", required=True),
        Parameter("minimum-read-coverage", "int", 15, "Minimum depth at a site, every "
                  "isolate (SNVPhyl's --min-coverage).", minimum=1, maximum=100000),
        Parameter("minimum-mean-mapping-quality", "int", 30, "Minimum mean mapping quality "
                  "of the reads showing a variant.", minimum=0, maximum=255),
        Parameter("snv-abundance-ratio", "float", 0.75, "Minimum fraction of the reads "
                  "showing the called base.", minimum=0.5, maximum=1.0),
        Parameter("minimum-percent-coverage", "float", 80.0, "Isolates covering less of the "
                  "reference at the minimum depth are reported in mappingQuality.txt "
                  "(the run continues).", minimum=0.0, maximum=100.0),
        Parameter("repeat-minimum-length", "int", 150, "Shortest repeat masked (nucmer "
                  "self-alignment).", minimum=20, maximum=100000),
        Parameter("repeat-minimum-pid", "float", 90.0, "Lowest percent identity of a "
                  "masked repeat.", minimum=50.0, maximum=100.0),
        Parameter("run-density-filter", "bool", True, "Mask regions of high SNV density."),
        Parameter("filter-density-threshold", "int", 2, "At least this many SNVs of one "
                  "isolate within the window mask the region from the first to the last "
                  "(SNVPhyl's rule).", minimum=1, maximum=1000),
        Parameter("filter-density-window-size", "int", 500, "Window of the density filter "
                  "(bp): the first and last SNV at most this far apart.",
                  minimum=2, maximum=100000),
        Parameter("mapper", "choice", "minimap2", "Read mapper (SNVPhyl used smalt).",
                  choices=("minimap2", "bwa", "smalt")),
        Parameter("caller", "choice", "pileup", "Variant evidence: a pileup of the "
                  "alignments, or freebayes confirmed by bcftools mpileup as SNVPhyl does.",
                  choices=("pileup", "freebayes")),
        Parameter("tree", "choice", "phyml", "Maximum-likelihood tree: PhyML (SNVPhyl's "
                  "options) or FastTree.", choices=("phyml", "fasttree")),
    ),
    tools=(
        _tool("MUMmer (nucmer)", "nucmer", "mummer"),
        _tool("MUMmer (show-coords)", "show-coords", "mummer", "-h"),
        _tool("minimap2", "minimap2", "minimap2"),
        Tool("BWA", "bwa", (), install="apt-get install bwa"),
        _tool("SMALT", "smalt", "smalt", "version"),
        _tool("SAMtools", "samtools", "samtools", "--version-only"),  # --version is not UTF-8
        _tool("BCFtools", "bcftools", "bcftools"),
        _tool("FreeBayes", "freebayes", "freebayes"),
        _tool("PhyML", "phyml", "phyml"),
        _tool("FastTree", "fasttree", "fasttree", "-expert"),
    ),
)

OUTPUT_RELS = [
    OutputRel(NAME, "outputFile/tree", "tree", OUTPUT_FILES["tree"], "text/plain"),
    OutputRel(NAME, "outputFile/matrix", "matrix", OUTPUT_FILES["matrix"],
              "text/tab-separated-values"),
    OutputRel(NAME, "outputFile/table", "table", OUTPUT_FILES["table"],
              "text/tab-separated-values"),
    *(OutputRel(NAME, f"outputFile/{key}", key, OUTPUT_FILES[key],
                "text/tab-separated-values" if key == "core" else "text/plain")
      for key in ("filter-stats", "mapping-quality", "tree-stats", "alignment", "core")),
]


# -- reference files -------------------------------------------------------------------------

class ProjectReferenceFiles(Context):
    """``/api/projects/{id}/referenceFiles``: inherits the project's ACL (members read,
    owners write) through ``__parent__``."""

    __parent__: ProjectResource

    @property
    def project(self) -> Any:
        return self.__parent__.project

    def child(self, key: str) -> Any:
        ref = self.db.get(ReferenceFile, int_key(key))
        if ref is None or ref.project_id != self.project.id:
            raise KeyError(key)
        return ReferenceFileResource(self.request, key, self, ref)


class ReferenceFileResource(Context):
    def __init__(self, request: Any, name: str, parent: Context, ref: ReferenceFile) -> None:
        super().__init__(request, name, parent)
        self.reference = ref

    @property
    def file(self) -> SequenceFile:
        return self.reference.file


def reference_entry(request: Request, context: ReferenceFileResource) -> dict[str, Any]:
    ref = context.reference
    return entry(request, context, {
        "createdDate": epoch_ms(ref.created),
        "label": ref.file.file_name,
        "fileName": ref.file.file_name,
        "fileSizeBytes": ref.file.size,
        "fileLength": ref.length,
        "reference": f"referenceFile:{ref.id}",
    }, identifier=ref.id)


def list_references(request: Request) -> dict:
    context: ProjectReferenceFiles = request.context
    rows = request.db.scalars(select(ReferenceFile).where(
        ReferenceFile.project_id == context.project.id).order_by(ReferenceFile.id))
    return collection(request, context, (
        reference_entry(request, ReferenceFileResource(request, str(r.id), context, r))
        for r in rows))


def upload_reference(request: Request) -> dict:
    """Multipart ``file``: a FASTA (plain or gzipped), parsed whole before it is kept, so a
    file that only starts like FASTA is refused too."""
    context: ProjectReferenceFiles = request.context
    verify = verify_gzip(request.registry.settings, request.content_length)
    parsed: list[Any] = []

    def inspect(path: Path) -> None:
        try:
            parsed.append(snv.read_fasta(path))
        except snv.ReferenceError as err:
            raise ApiError(400, message=f"The reference is not usable: {err}") from err

    stored = receive_file(request, lambda: FastaCheck(verify), inspect)
    ref = ReferenceFile(project_id=context.project.id, file=stored, length=parsed[0].size)
    request.db.add(ref)
    request.db.flush()
    ref_ctx = ReferenceFileResource(request, str(ref.id), context, ref)
    request.response.status = 201
    request.response.location = url_for(request, ref_ctx)
    return {"resource": reference_entry(request, ref_ctx)}


def get_reference(request: Request) -> Response | dict:
    context: ReferenceFileResource = request.context
    if negotiate(request, ["application/json", FASTA], "A reference file") == FASTA:
        return download(request, context, FASTA)
    request.response.content_type = "application/json"
    request.response.json_body = {"resource": reference_entry(request, context)}
    return request.response


def delete_reference(request: Request) -> dict:
    """Owners remove a reference file; submissions launched with it keep their outputs."""
    context: ReferenceFileResource = request.context
    file_id = context.reference.file_id
    request.db.delete(context.reference)
    purge_files(request.db, request.storage, request.tm, [file_id])
    return {"resource": {"message": "Reference file removed."}}


@hookimpl
def projects_deleting(project_ids: list[int], request: Any) -> None:
    """A deleted project takes its reference files along: rows now (the foreign key would
    leave the stored files' records behind), files once the request commits."""
    db = request.db
    file_ids = list(db.scalars(select(ReferenceFile.file_id)
                               .where(ReferenceFile.project_id.in_(project_ids))))
    if not file_ids:
        return
    db.execute(delete(ReferenceFile).where(ReferenceFile.project_id.in_(project_ids)))
    purge_files(db, request.storage, request.tm, file_ids)


@hookimpl
def submissions_deleting(submission_ids: list[int], request: Any) -> None:
    """A deleted submission's resolved reference goes with it (the reference file itself
    stays the project's)."""
    request.db.execute(delete(SubmissionReference).where(
        SubmissionReference.submission_id.in_(submission_ids)))


def _project_href(request: Request, context: ProjectReferenceFiles) -> str:
    return url_for(request, context.__parent__)


# -- hooks -----------------------------------------------------------------------------------

@hookimpl
def register_models() -> list[type]:
    return [ReferenceFile, SubmissionReference]


@hookimpl
def register_migrations() -> list[MigrationSource]:
    return [MigrationSource("phylogenomics", "seqcore_phylogenomics:migrations/versions")]


@hookimpl
def register_analysis_types() -> list[AnalysisType]:
    return [PHYLOGENOMICS]


@hookimpl
def register_output_rels() -> list[OutputRel]:
    return OUTPUT_RELS


@hookimpl
def register_views() -> list[Any]:
    from .views import register

    return register()


@hookimpl
def register_resource_children() -> list[ChildSpec]:
    return [ChildSpec(ProjectResource, "referenceFiles",
                      lambda parent: ProjectReferenceFiles(parent.request, "referenceFiles",
                                                           parent))]


@hookimpl
def register_links() -> list[LinkSpec]:
    return [
        LinkSpec(ProjectResource, "project/referenceFiles", child_href("referenceFiles")),
        LinkSpec(ProjectReferenceFiles, "project", _project_href),
    ]


@hookimpl
def register_rest_endpoints() -> list[Endpoint]:
    return [
        Endpoint("phylogenomics.references", "/api/projects/{pid:\\d+}/referenceFiles", {
            "GET": View(list_references, Permission.PROJECT_READ),
            "POST": View(upload_reference, Permission.PROJECT_WRITE),
        }, description="A project's reference files; POST uploads one (multipart 'file')."),
        Endpoint("phylogenomics.reference",
                 "/api/projects/{pid:\\d+}/referenceFiles/{rid:\\d+}", {
                     "GET": View(get_reference, Permission.PROJECT_READ, renderer=None),
                     "DELETE": View(delete_reference, Permission.PROJECT_WRITE),
                 }, description="One reference file; Accept: application/fasta downloads it."),
        Endpoint("phylogenomics.launch", LAUNCH_PATH, {
            "POST": View(launch_view, Permission.ANALYSIS_LAUNCH),
        }, traverse=f"/api/analysisSubmissions/analysisType/{NAME}",
            description=f"Launch phylogenomics: an alias of POST {GENERIC_LAUNCH_PATH}, kept "
                        "for the clients that use it."),
    ]
