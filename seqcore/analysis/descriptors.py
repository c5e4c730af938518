"""Pipeline descriptors: workflow-language pipelines declared in IRIDA Next's
``pipelines.json`` format instead of written as Python.

A descriptor file maps a pipeline id (``phac-nml/iridanextexample``) to its ``url``, ``name``,
``description``, ``versions`` (each with ``automatable``/``executable``), ``overrides`` of the
parameter schema, ``samplesheet_schema_overrides`` and ``settings`` (``min_samples``,
``max_samples``...), exactly as IRIDA Next reads it. Each version's schemas sit beside the file
in IRIDA Next's own cache layout, so nothing is downloaded at start-up:
``<url path>/<version>/nextflow_schema.json`` and ``<url path>/<version>/assets/schema_input.json``.

seqcore reads three more keys, on the pipeline or on a version, for engines other than
Nextflow: ``engine`` (the WES ``workflow_type``, ``NFL`` by default), ``engine_version``
(``DSL2`` by default) and ``workflow_url`` (the pipeline's ``url`` by default; a relative
path names a file in the version's directory that is sent with the run).

The loader lives in the core, not in an executor plugin, so that any executor (WES today, a
batch scheduler tomorrow) and the GraphQL ``Pipeline`` listing read the same descriptors, and
a broken file stops the start-up naming the file and the problem whichever plugin runs it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast
from urllib.parse import urlparse

from pyramid.exceptions import ConfigurationError

from seqcore.framework.contrib import Parameter

REGISTRY_KEY = "seqcore.pipeline_descriptors"
# The parameters seqcore itself sets: the samplesheet and the output directory.
MANAGED_PARAMETERS = ("input", "outdir")
NF_TYPES = {"string": "str", "integer": "int", "number": "float", "boolean": "bool"}


class DescriptorError(ConfigurationError):  # type: ignore[misc]  # pyramid has no types
    """A descriptor file seqcore cannot use; the message names the file and the problem."""


@dataclass(frozen=True)
class PipelineDescriptor:
    """One version of one declared pipeline, overrides applied."""

    pipeline_id: str
    url: str
    name: str
    description: str
    version: str
    automatable: bool
    executable: bool
    engine: str
    engine_version: str
    workflow_url: str
    source: Path
    directory: Path
    schema: Mapping[str, Any] = field(hash=False, compare=False, repr=False)
    samplesheet_schema: Mapping[str, Any] = field(hash=False, compare=False, repr=False)
    settings: Mapping[str, Any] = field(hash=False, compare=False, default_factory=dict)

    @property
    def type_name(self) -> str:
        """The analysis type's name: the id and version made safe for a URL path segment."""
        return f"{re.sub(r'[^A-Za-z0-9._-]+', '-', self.pipeline_id).strip('-')}-{self.version}"

    @property
    def workflow_file(self) -> Path | None:
        """The workflow file sent with the run, when ``workflow_url`` is a relative path."""
        if urlparse(self.workflow_url).scheme:
            return None
        return self.directory / self.workflow_url

    def definitions(self) -> dict[str, Any]:
        """The parameter groups (``definitions`` in draft-07, ``$defs`` in 2020-12)."""
        return dict(self.schema.get("$defs") or self.schema.get("definitions") or {})

    def properties(self) -> dict[str, tuple[dict[str, Any], bool]]:
        """Every parameter's schema and whether it is required, groups flattened."""
        out: dict[str, tuple[dict[str, Any], bool]] = {}
        groups = [*self.definitions().values(), self.schema]
        for group in groups:
            required = set(group.get("required") or ())
            for name, prop in (group.get("properties") or {}).items():
                if isinstance(prop, dict):
                    out[name] = (prop, name in required)
        return out

    def parameters(self) -> tuple[Parameter, ...]:
        """The parameters a launch may set (all but the samplesheet and output directory),
        each with the title of its group."""
        titles = {name: _text(group.get("title") or "")
                  for group in self.definitions().values() if isinstance(group, Mapping)
                  for name in (group.get("properties") or {})}
        return tuple(_parameter(name, prop, required, titles.get(name, ""))
                     for name, (prop, required) in self.properties().items()
                     if name not in MANAGED_PARAMETERS)

    @property
    def min_samples(self) -> int:
        return int(self.settings.get("min_samples") or 1)

    @property
    def max_samples(self) -> int:
        value = self.settings.get("max_samples")
        return -1 if value in (None, -1) else int(value)


def choice_values(enum: Iterable[Any]) -> tuple[str, ...]:
    """IRIDA Next lets an enum hold ``[label, value]`` pairs; the values are what is sent."""
    return tuple(str(item[1]) if isinstance(item, list) and len(item) == 2 else str(item)
                 for item in enum)


def _parameter(name: str, prop: Mapping[str, Any], required: bool, group: str) -> Parameter:
    kind = NF_TYPES.get(str(prop.get("type", "string")), "str")
    choices: tuple[str, ...] = ()
    labels: tuple[str, ...] = ()
    if prop.get("enum"):
        kind, choices = "choice", choice_values(prop["enum"])
        labels = tuple(str(item[0]) if isinstance(item, list) and len(item) == 2 else str(item)
                       for item in prop["enum"])
    return Parameter(name, kind, prop.get("default"), str(prop.get("description") or ""),
                     minimum=prop.get("minimum"), maximum=prop.get("maximum"),
                     choices=choices, choice_labels=labels if labels != choices else (),
                     required=required and "default" not in prop,
                     pattern=str(prop["pattern"]) if kind == "str" and prop.get("pattern")
                     else None, group=group, hidden=bool(prop.get("hidden")))


def _text(value: Any) -> str:
    """IRIDA Next's translatable strings: ``{"en": ..., "fr": ...}`` or plain text."""
    if isinstance(value, dict):
        return str(value.get("en") or next(iter(value.values()), ""))
    return str(value)


def deep_merge(base: Mapping[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """IRIDA Next's overrides: objects merge key by key, anything else replaces."""
    out = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), Mapping):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _read_json(path: Path, source: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text())
    except FileNotFoundError:
        raise DescriptorError(f"pipeline descriptor {source}: {what} {path} is missing") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise DescriptorError(f"pipeline descriptor {source}: {what} {path} is not JSON: "
                              f"{err}") from None


def _flag(entry: Mapping[str, Any], key: str, where: str, default: bool) -> bool:
    value = entry.get(key, default)
    if not isinstance(value, bool):
        raise DescriptorError(f"{where}: {key!r} must be true or false, not {value!r}")
    return value


def load_file(source: Path) -> list[PipelineDescriptor]:
    """Every pipeline version a ``pipelines.json``-format file declares."""
    source = Path(source).resolve()
    data = _read_json(source, source, "the file")
    if not isinstance(data, dict):
        raise DescriptorError(f"pipeline descriptor {source}: expected an object of "
                              "pipelines by id")
    out = []
    for pipeline_id, entry in data.items():
        where = f"pipeline descriptor {source}, pipeline {pipeline_id!r}"
        if not isinstance(entry, dict):
            raise DescriptorError(f"{where}: expected an object")
        missing = [key for key in ("url", "name", "description", "versions")
                   if key not in entry]
        if missing:
            raise DescriptorError(f"{where}: missing {', '.join(missing)}")
        if not isinstance(entry["versions"], list) or not entry["versions"]:
            raise DescriptorError(f"{where}: 'versions' must be a non-empty list")
        for version in entry["versions"]:
            if not isinstance(version, dict) or not isinstance(version.get("name"), str):
                raise DescriptorError(f"{where}: every version needs a 'name'")
            out.append(_version(source, pipeline_id, entry, version))
    return out


def _version(source: Path, pipeline_id: str, entry: Mapping[str, Any],
             version: Mapping[str, Any]) -> PipelineDescriptor:
    name = version["name"]
    where = f"pipeline descriptor {source}, pipeline {pipeline_id!r} version {name!r}"
    url = str(entry["url"])
    directory = source.parent / urlparse(url).path.strip("/") / name
    schema = _read_json(directory / "nextflow_schema.json", source, "the parameter schema")
    if not isinstance(schema, dict) or not isinstance(
            schema.get("$defs", schema.get("definitions", {})), dict):
        raise DescriptorError(f"{where}: the parameter schema must be an object with "
                              "'definitions' or '$defs'")
    for overrides in (entry.get("overrides"), version.get("overrides")):
        if overrides is not None:
            if not isinstance(overrides, dict):
                raise DescriptorError(f"{where}: 'overrides' must be an object")
            schema = deep_merge(schema, overrides)
    for key in ("settings", "samplesheet_schema_overrides"):
        for value in (entry.get(key), version.get(key)):
            if value is not None and not isinstance(value, dict):
                raise DescriptorError(f"{where}: {key!r} must be an object")
    sheet_path = directory / "assets" / "schema_input.json"
    sheet: Any = _read_json(sheet_path, source, "the samplesheet schema") if sheet_path.exists() \
        else {"items": {"properties": {"sample": {"type": "string", "meta": ["id"]},
                                       "fastq_1": {"type": "string"},
                                       "fastq_2": {"type": "string"}},
                        "required": ["sample", "fastq_1"]}}
    for overrides in (entry.get("samplesheet_schema_overrides"),
                      version.get("samplesheet_schema_overrides")):
        if overrides is not None:
            sheet = deep_merge(sheet, overrides)
    if not isinstance(sheet, dict) or not isinstance(sheet.get("items"), dict) or \
            not isinstance(sheet["items"].get("properties"), dict):
        raise DescriptorError(f"{where}: the samplesheet schema has no items.properties")
    settings = deep_merge(entry.get("settings") or {}, version.get("settings") or {})
    for key in ("min_samples", "max_samples"):
        if key in settings and (not isinstance(settings[key], int)
                                or isinstance(settings[key], bool)):
            raise DescriptorError(f"{where}: settings.{key} must be a whole number")
    engine = str(version.get("engine", entry.get("engine", "NFL")))
    engine_version = str(version.get("engine_version", entry.get("engine_version", "DSL2")))
    workflow_url = str(version.get("workflow_url", entry.get("workflow_url", url)))
    descriptor = PipelineDescriptor(
        pipeline_id=pipeline_id, url=url, name=_text(entry["name"]),
        description=_text(entry["description"]), version=name,
        automatable=_flag(version, "automatable", where, False),
        executable=_flag(version, "executable", where, True),
        engine=engine, engine_version=engine_version, workflow_url=workflow_url,
        source=source, directory=directory, schema=schema, samplesheet_schema=sheet,
        settings=settings)
    if descriptor.workflow_file is not None and not descriptor.workflow_file.is_file():
        raise DescriptorError(f"{where}: workflow_url {workflow_url!r} names no file in "
                              f"{directory}")
    for param in descriptor.parameters():
        if param.type == "choice" and param.default is not None and \
                str(param.default) not in param.choices:
            raise DescriptorError(f"{where}: parameter {param.name!r} defaults to "
                                  f"{param.default!r}, which is not one of its choices")
    return descriptor


def descriptor_files(directory: str | Path) -> list[Path]:
    """The ``*.json`` files directly in the descriptors directory (schemas sit below it)."""
    if not directory:
        return []
    root = Path(directory)
    if not root.is_dir():
        raise DescriptorError(f"seqcore.pipelines.dir {str(directory)!r} is not a directory")
    return sorted(root.glob("*.json"))


def load_descriptors(files: Iterable[str | Path]) -> dict[str, PipelineDescriptor]:
    """Descriptors by analysis type name; two declaring the same pipeline version clash."""
    out: dict[str, PipelineDescriptor] = {}
    for path in files:
        for descriptor in load_file(Path(path)):
            other = out.get(descriptor.type_name)
            if other is not None:
                raise DescriptorError(
                    f"pipeline {descriptor.pipeline_id!r} version {descriptor.version!r} is "
                    f"declared twice: in {other.source} and in {descriptor.source}")
            out[descriptor.type_name] = descriptor
    return out


def pipeline_descriptors(registry: Any) -> dict[str, PipelineDescriptor]:
    """The application's descriptors: those in ``seqcore.pipelines.dir`` and those plugins
    contribute through ``register_pipeline_descriptors``; read once, then kept."""
    cached = registry.get(REGISTRY_KEY)
    if cached is None:
        files: list[str | Path] = list(descriptor_files(
            registry.settings.get("seqcore.pipelines.dir") or ""))
        for contributed in registry.pm.hook.register_pipeline_descriptors():
            files.extend(contributed or ())
        cached = load_descriptors(files)
        registry[REGISTRY_KEY] = cached
    return cast("dict[str, PipelineDescriptor]", cached)


def descriptor_for(registry: Any, type_name: str) -> PipelineDescriptor | None:
    """The descriptor an analysis type was made from, if it was (GraphQL's ``Pipeline``)."""
    return (registry.get(REGISTRY_KEY) or {}).get(type_name)
