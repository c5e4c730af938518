"""Assemblies: listed, uploaded (multipart ``file``) and downloaded as FASTA."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pyramid.request import Request
from pyramid.response import Response
from sqlalchemy import delete, select, update

from seqcore.plugin import (
    ChildSpec,
    Context,
    Endpoint,
    FastaCheck,
    LinkSpec,
    MigrationSource,
    Permission,
    SampleResource,
    SequenceFile,
    SubmissionInput,
    View,
    child_href,
    collection,
    download,
    entry,
    epoch_ms,
    hookimpl,
    int_key,
    negotiate,
    note_activity,
    purge_files,
    receive_file,
    url_for,
    verify_gzip,
    write_operation,
)
from seqcore_assemblies.models import Assembly

FASTA = "application/fasta"


class SampleAssemblies(Context):
    """``/api/samples/{sid}/assemblies``; inherits the sample's ACL."""

    __parent__: SampleResource

    @property
    def sample(self) -> Any:
        return self.__parent__.sample

    def child(self, key: str) -> Any:
        assembly = self.db.get(Assembly, int_key(key))
        if assembly is None or assembly.sample_id != self.sample.id:
            raise KeyError(key)
        return AssemblyResource(self.request, key, self, assembly)


class AssemblyResource(Context):
    def __init__(self, request: Any, name: str, parent: Context, assembly: Assembly) -> None:
        super().__init__(request, name, parent)
        self.assembly = assembly

    @property
    def file(self) -> SequenceFile:
        return self.assembly.file


def human_size(size: int) -> str:
    """SI units as people read them: ``14 B``, ``1.2 kB``, ``N/A`` for nothing."""
    if size <= 0:
        return "N/A"
    value = float(size)
    for unit in ("B", "kB", "MB", "GB", "TB"):
        if value < 1000 or unit == "TB":
            return f"{int(value)} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1000
    return f"{size} B"  # pragma: no cover


def assembly_entry(request: Request, context: AssemblyResource) -> dict[str, Any]:
    assembly = context.assembly
    stored = assembly.file
    fields = {
        "createdDate": epoch_ms(assembly.created),
        "label": stored.file_name,
        "fileSizeBytes": stored.size,
        "fileSize": human_size(stored.size),
        "file": request.storage.location(stored.path),
        "fileName": stored.file_name,
        "fileRevisionNumber": stored.revision,
    }
    return entry(request, context, fields, identifier=assembly.id)


def list_assemblies(request: Request) -> dict:
    context: SampleAssemblies = request.context
    rows = request.db.scalars(select(Assembly).where(Assembly.sample_id == context.sample.id)
                              .order_by(Assembly.id))
    return collection(request, context, (
        assembly_entry(request, AssemblyResource(request, str(a.id), context, a)) for a in rows))


@write_operation("assembly.upload")
def store_assembly(request: Request, sample_id: int) -> Assembly:
    """Stream a multipart ``file`` (a FASTA, plain or gzipped) into a sample's assemblies."""
    verify = verify_gzip(request.registry.settings, request.content_length)
    stored = receive_file(request, lambda: FastaCheck(verify))
    assembly = Assembly(sample_id=sample_id, file=stored)
    request.db.add(assembly)
    request.db.flush()
    note_activity(request.db, samples=[sample_id], on="assembly", id=assembly.id, action="created",
         fileName=stored.file_name)
    return assembly


def upload_assembly(request: Request) -> dict:
    """Multipart ``file`` (a FASTA, plain or gzipped)."""
    context: SampleAssemblies = request.context
    assembly = store_assembly(request, context.sample.id)
    assembly_ctx = AssemblyResource(request, str(assembly.id), context, assembly)
    request.response.status = 201
    request.response.location = url_for(request, assembly_ctx)
    return {"resource": assembly_entry(request, assembly_ctx)}


def get_assembly(request: Request) -> Response | dict:
    context: AssemblyResource = request.context
    if negotiate(request, ["application/json", FASTA], "An assembly") == FASTA:
        return download(request, context, FASTA)
    request.response.content_type = "application/json"
    request.response.json_body = {"resource": assembly_entry(request, context)}
    return request.response


def _analysis_href(request: Request, context: AssemblyResource) -> str:
    return f"{request.application_url}/api/analysisSubmissions/{context.assembly.submission_id}"


def _sample_href(request: Request, context: SampleAssemblies) -> str:
    return url_for(request, context.__parent__)


@hookimpl
def register_models() -> list[type]:
    return [Assembly]


@hookimpl
def register_migrations() -> list[MigrationSource]:
    return [MigrationSource("assemblies", "seqcore_assemblies:migrations/versions")]


@hookimpl
def register_resource_children() -> list[ChildSpec]:
    return [ChildSpec(SampleResource, "assemblies",
                      lambda parent: SampleAssemblies(parent.request, "assemblies", parent))]


@hookimpl
def register_links() -> list[LinkSpec]:
    return [
        LinkSpec(SampleResource, "sample/assemblies", child_href("assemblies")),
        LinkSpec(SampleAssemblies, "sample", _sample_href),
        LinkSpec(AssemblyResource, "assembly/analysis", _analysis_href,
                 when=lambda request, context: context.assembly.submission_id is not None),
    ]


@hookimpl
def register_rest_endpoints() -> list[Endpoint]:
    return [
        Endpoint("assemblies.list", "/api/samples/{sid:\\d+}/assemblies", {
            "GET": View(list_assemblies, Permission.SAMPLE_READ),
            "POST": View(upload_assembly, Permission.SAMPLE_WRITE),
        }, description="A sample's assemblies; POST uploads one (multipart 'file')."),
        Endpoint("assemblies.item", "/api/samples/{sid:\\d+}/assemblies/{aid:\\d+}", {
            "GET": View(get_assembly, Permission.SAMPLE_READ, renderer=None),
        }, description="One assembly; Accept: application/fasta downloads it."),
    ]


@hookimpl
def import_assembly(request: Any, sample_id: int, file: SequenceFile) -> Assembly:
    """An assembly copied from another install (``seqcore import``) is an uploaded one here:
    the analysis that made it there is not this install's."""
    assembly = Assembly(sample_id=sample_id, file=file)
    request.db.add(assembly)
    request.db.flush()
    note_activity(request.db, samples=[sample_id], on="assembly", id=assembly.id,
                  action="created", fileName=file.file_name)
    return assembly


@hookimpl
def remove_imported_assembly(request: Any, assembly_id: int) -> bool | None:
    """A synchronized project's remote install no longer holds this assembly: the row goes
    now, its stored file once committed."""
    assembly = request.db.get(Assembly, assembly_id)
    if assembly is None:
        return None
    sample_id, file_id, name = assembly.sample_id, assembly.file_id, assembly.file.file_name
    request.db.delete(assembly)
    request.db.flush()
    note_activity(request.db, samples=[sample_id], on="assembly", id=assembly_id,
                  action="deleted", fileName=name)
    purge_files(request.db, request.storage, request.tm, [file_id])
    return True


@hookimpl
def samples_deleting(sample_ids: list[int], request: Any) -> None:
    """Assemblies go with their samples: rows now, stored files once committed (a file
    another row still uses stays)."""
    file_ids = list(request.db.scalars(
        select(Assembly.file_id).where(Assembly.sample_id.in_(sample_ids))))
    if not file_ids:
        return
    request.db.execute(delete(Assembly).where(Assembly.sample_id.in_(sample_ids)))
    purge_files(request.db, request.storage, request.tm, file_ids)


@hookimpl
def submissions_deleting(submission_ids: list[int], request: Any) -> None:
    """An assembly an analysis wrote back to its sample is the sample's data now: it stays,
    with its file, and no longer names the deleted submission (no ``assembly/analysis``)."""
    request.db.execute(update(Assembly).where(Assembly.submission_id.in_(submission_ids))
                       .values(submission_id=None).execution_options(
                           synchronize_session=False))


def made_from(request: Request, objects: Sequence[Any]) -> dict[int, Assembly]:
    """For each object, the latest assembly of its sample made by a submission that used
    it: one statement for all of them (this runs for every pair a listing shows)."""
    if not objects:
        return {}
    rows = request.db.execute(
        select(SubmissionInput.object_id, Assembly)
        .join(SubmissionInput, SubmissionInput.submission_id == Assembly.submission_id)
        .where(SubmissionInput.object_id.in_([obj.id for obj in objects]))
        .order_by(Assembly.id))
    samples = {obj.id: obj.sample_id for obj in objects}
    latest: dict[int, Assembly] = {}
    for object_id, assembly in rows:
        if assembly.sample_id == samples[object_id]:
            latest[object_id] = assembly  # ordered by id: the last one is the latest
    return latest


@hookimpl
def describe_sequencing_objects(request: Request, contexts: Sequence[Any],
                                fields: Sequence[Mapping[str, Any]]
                                ) -> list[dict[str, Any] | None] | None:
    """Fill ``assembledGenome`` for the kinds that show it (pairs): the assembly made from
    each object, as ``GET /api/samples/{sid}/assemblies/{aid}`` answers it, or ``None``."""
    wanted = [context for context, answer in zip(contexts, fields, strict=True)
              if "assembledGenome" in answer]
    assemblies = made_from(request, [context.obj for context in wanted])
    if not assemblies:
        return None
    extras: list[dict[str, Any] | None] = []
    for context in contexts:
        assembly = assemblies.get(context.obj.id)
        if assembly is None:
            extras.append(None)
            continue
        owner = SampleAssemblies(request, "assemblies", context.sample_ctx)
        extras.append({"assembledGenome": assembly_entry(
            request, AssemblyResource(request, str(assembly.id), owner, assembly))})
    return extras
