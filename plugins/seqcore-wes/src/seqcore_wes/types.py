"""Each pipeline descriptor version becomes an analysis type, with no Python of its own.

* parameters: the nf-schema's properties (types, defaults, enums, bounds, required), so
  ``/api/analysisTypes`` lists them and the generic launch check types them; the launch check
  then validates the values against the schema itself (patterns, formats, every other
  keyword) and the pipeline's ``min_samples``/``max_samples``, every problem in one 400;
* readiness: the WES server answers and runs the descriptor's engine (``409`` otherwise);
* ``job_data``: the descriptor, the samples' PUIDs and metadata, for the samplesheet;
* ``write_back``: ``iridanext.output.json.gz``'s per-sample metadata onto the samples, and
  its per-sample files attached to them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import jsonschema
from pyramid.exceptions import ConfigurationError
from sqlalchemy import select

from seqcore.plugin import (
    AnalysisType,
    JobSource,
    Launch,
    LaunchChecked,
    MetadataEntry,
    OutputRel,
    PipelineDescriptor,
    Sample,
    SequencingObject,
    Tool,
    WriteBack,
    choice_values,
)
from seqcore_wes import outputs
from seqcore_wes.client import TOKEN, WesClient, WesError, WesUnavailable

PIPELINE = "seqcore_wes.pipeline:run"
# The samplesheet's fastq_<n> columns take a pair (forward, reverse) or a single-end file
# (seqcore-sequencefiles' kinds); named, so projects can automate the types too.
READS = ("pairs", "unpaired")
SERVICE_INFO_SECONDS = "seqcore.wes.service_info_seconds"
# (url, token) -> (when asked, the answer); one question serves every descriptor type for a
# few seconds, so listing many types does not ask the server once per type.
_answers: dict[tuple[str, str], tuple[float, dict[str, Any]]] = {}


def service_info(settings: Mapping[str, Any]) -> dict[str, Any]:
    client = WesClient.from_settings(settings)
    key = (client.base_url, str(settings.get(TOKEN) or ""))
    keep = float(settings.get(SERVICE_INFO_SECONDS) or 0)
    asked = _answers.get(key)
    if asked is not None and time.monotonic() - asked[0] < keep:
        return asked[1]
    info = client.service_info()  # an error is never kept: the next call asks again
    _answers[key] = (time.monotonic(), info)
    return info


def wes_problem(settings: Mapping[str, Any], engine: str, engine_version: str) -> str | None:
    """Why the WES server cannot run this engine now, or ``None`` when it can."""
    try:
        info = service_info(settings)
    except (WesUnavailable, WesError) as err:
        return f"the WES server does not answer: {err}"
    versions = (info.get("workflow_type_versions") or {})
    supported = {key.upper(): value for key, value in versions.items()}
    if engine.upper() not in supported:
        return (f"the WES server does not support {engine} (it runs "
                f"{', '.join(sorted(versions)) or 'nothing'})")
    known = (supported[engine.upper()] or {}).get("workflow_type_version") or []
    if known and engine_version not in known:
        return (f"the WES server does not support {engine} {engine_version} (it runs "
                f"{', '.join(map(str, known))})")
    return None


def _validator(descriptor: PipelineDescriptor) -> Any:
    """A validator of the launch's parameters against the descriptor's flattened schema."""
    properties = {name: ({**prop, "enum": list(choice_values(prop["enum"]))}
                         if prop.get("enum") else prop)
                  for name, (prop, _) in descriptor.properties().items()}
    schema = {"type": "object", "properties": properties}
    cls = jsonschema.validators.validator_for(descriptor.schema,
                                              default=jsonschema.Draft7Validator)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


@dataclass(frozen=True)
class DescriptorLaunch:
    """The launch check of one descriptor type (a callable the declaration can hold)."""

    descriptor: PipelineDescriptor

    def __call__(self, launch: Launch) -> LaunchChecked:
        problems: dict[str, list[str]] = {}
        values = {name: value for name, value in launch.parameters.items()
                  if value is not None and f"parameters.{name}" not in launch.problems
                  and name not in launch.problems}
        for error in _validator(self.descriptor).iter_errors(values):
            name = error.path[0] if error.path else "parameters"
            problems.setdefault(f"parameters.{name}", []).append(
                f"'{name}' {error.message}")
        count = len(launch.sample_ids)
        low, high = self.descriptor.min_samples, self.descriptor.max_samples
        if launch.inputs and count < low:
            problems["samples"] = [f"{self.descriptor.name} {self.descriptor.version} needs "
                                   f"at least {low} samples; {count} given."]
        if high != -1 and count > high:
            problems["samples"] = [f"{self.descriptor.name} {self.descriptor.version} takes "
                                   f"at most {high} samples; {count} given."]
        return LaunchChecked(problems=problems)


@dataclass(frozen=True)
class DescriptorJob:
    """What the executor needs beyond inputs and parameters: the descriptor's engine and
    workflow, the samplesheet schema, and the PUID and metadata of each sample."""

    descriptor: PipelineDescriptor

    def __call__(self, source: JobSource) -> dict[str, Any]:
        d = self.descriptor
        sample_ids = sorted(_sample_ids(source))
        metadata: dict[str, dict[str, str]] = {}
        for entry in source.db.scalars(select(MetadataEntry).where(
                MetadataEntry.sample_id.in_(sample_ids))):
            metadata.setdefault(str(entry.sample_id), {})[entry.field] = entry.value
        puids = {str(sample_id): puid for sample_id, puid in source.db.execute(
            select(Sample.id, Sample.puid).where(Sample.id.in_(sample_ids)))}
        return {"pipeline_id": d.pipeline_id, "version": d.version, "engine": d.engine,
                "engine_version": d.engine_version, "workflow_url": d.workflow_url,
                "workflow_file": str(d.workflow_file) if d.workflow_file else None,
                "samplesheet_schema": dict(d.samplesheet_schema), "metadata": metadata,
                "puids": puids}


def _sample_ids(source: JobSource) -> set[int]:
    ids = [link.object_id for link in source.submission.inputs]
    return set(source.db.scalars(select(SequencingObject.sample_id).where(
        SequencingObject.id.in_(ids))))


def write_back(ctx: WriteBack) -> None:
    """What ``iridanext.output.json.gz`` says of each analysed sample, written back as IRIDA
    Next does with ``updateSamples``: its metadata (flattened, the submission as provenance)
    and its files, attached to the sample. The manifest names samples by the samplesheet's
    ``sample`` column: the sample's PUID (a run launched before PUIDs were written there
    names them by seqcore id, which is still understood)."""
    manifest = outputs.read_manifest(ctx.output_path(outputs.OUTPUT_KEY))
    analysed = set(ctx.samples())
    by_key = {str(sample_id): sample_id for sample_id in analysed}
    by_key.update((puid, sample_id) for sample_id, puid in ctx.db.execute(
        select(Sample.id, Sample.puid).where(Sample.id.in_(analysed))))
    for key, values in sorted(((manifest.get("metadata") or {}).get("samples") or {}).items()):
        sample_id = by_key.get(str(key))
        if sample_id is not None and isinstance(values, Mapping):
            flat = outputs.flatten(values)
            if flat:
                ctx.metadata(sample_id, flat)
    for key, entries in sorted(((manifest.get("files") or {}).get("samples") or {}).items()):
        sample_id = by_key.get(str(key))
        if sample_id is not None and entries:
            ctx.attach(sample_id, [outputs.output_key("sample", str(key), entry["path"])
                                   for entry in entries])


def check_schema(descriptor: PipelineDescriptor) -> None:
    """A schema JSON Schema cannot use would fail every launch with a 500: stop the start-up
    instead, naming the file."""
    validator = _validator(descriptor)
    try:
        type(validator).check_schema(validator.schema)
    except jsonschema.SchemaError as err:
        where = "/".join(map(str, err.path)) or "the schema"
        raise ConfigurationError(
            f"pipeline descriptor {descriptor.source}, pipeline {descriptor.pipeline_id!r} "
            f"version {descriptor.version!r}: the parameter schema is not valid JSON Schema "
            f"at {where}: {err.message}") from None


def analysis_type(descriptor: PipelineDescriptor, settings: Mapping[str, Any]) -> AnalysisType:
    d = descriptor
    check_schema(d)
    ready = Tool(f"WES server ({d.engine} {d.engine_version})",
                 check=partial(wes_problem, settings, d.engine, d.engine_version),
                 install="set seqcore.wes.url to a WES server that runs "
                         f"{d.engine} {d.engine_version} (docs/pipelines.md)")
    return AnalysisType(
        name=d.type_name, label=f"{d.name} {d.version}", workflow_id=d.url, version=d.version,
        pipeline=PIPELINE, samples="one" if d.max_samples == 1 else "many",
        inputs=READS,
        parameters=d.parameters(), writes_back=True, write_back=write_back, tools=(ready,),
        description=d.description, launch_check=DescriptorLaunch(d),
        job_data=DescriptorJob(d))


def output_rels(descriptor: PipelineDescriptor) -> list[OutputRel]:
    """What every descriptor type outputs, whatever its pipeline writes."""
    return [OutputRel(descriptor.type_name, f"outputFile/{outputs.OUTPUT_KEY}",
                      outputs.OUTPUT_KEY, outputs.IRIDANEXT_OUTPUT, "application/gzip"),
            OutputRel(descriptor.type_name, f"outputFile/{outputs.SAMPLESHEET_KEY}",
                      outputs.SAMPLESHEET_KEY, "samplesheet.csv", "text/csv")]
