"""Pipelines in GraphQL, in IRIDA Next's shape: the ``Pipeline`` type and the ``pipelines`` /
``pipeline(pipelineId:, workflowVersion:)`` query fields.

Every registered analysis type is a pipeline. One made from a pipeline descriptor shows the
descriptor's id, name, version, flags and ``workflowParams`` as IRIDA Next builds them (the
parameter groups of its schema, overrides applied, hidden parameters and ``outdir`` left
out, each property with ``required``, the ``input`` property with its samplesheet schema);
any other type shows its name as ``pipelineId`` and its parameters as one group. Pipelines
are not secret: every caller sees them, as in IRIDA Next. ``analysisType`` (seqcore's own
field) is the name to launch it by (``launchAnalysis``, REST).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import graphene
from graphql import GraphQLError

from seqcore.analysis.descriptors import PipelineDescriptor, descriptor_for
from seqcore.analysis.registry import analysis_registry
from seqcore.framework.contrib import AnalysisType
from seqcore.graphql.scalars import JSON

HIDDEN_FROM_FORM = ("outdir", "email")  # IRIDA Next's IGNORED_PARAMS
NF_TYPE = {"str": "string", "choice": "string", "int": "integer", "float": "number",
           "bool": "boolean"}
WORKFLOW_TYPES = ("executable", "automatable", "available")


@dataclass(frozen=True)
class PipelineView:
    pipeline_id: str
    name: str
    description: str
    version: str
    automatable: bool
    executable: bool
    workflow_params: dict[str, Any]
    analysis_type: str


def descriptor_params(descriptor: PipelineDescriptor) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for key, group in descriptor.definitions().items():
        properties = group.get("properties") or {}
        if not any("hidden" not in prop for prop in properties.values()):
            continue
        required = set(group.get("required") or ())
        shown = {}
        for name, prop in properties.items():
            if prop.get("hidden") or name in HIDDEN_FROM_FORM:
                continue
            shown[name] = {**prop, "required": name in required}
            if name == "input":
                shown[name]["schema"] = dict(descriptor.samplesheet_schema)
        params[key] = {"title": group.get("title"), "description": group.get("description"),
                       "properties": shown}
    return params


def type_params(analysis_type: AnalysisType) -> dict[str, Any]:
    properties = {}
    for p in analysis_type.parameters:
        prop: dict[str, Any] = {"type": NF_TYPE.get(p.type, "string"),
                                "description": p.description, "required": p.required}
        for key, value in (("default", p.default), ("minimum", p.minimum),
                           ("maximum", p.maximum)):
            if value is not None:
                prop[key] = value
        if p.choices:
            prop["enum"] = list(p.choices)
        properties[p.name] = prop
    if not properties:
        return {}
    return {"parameters": {"title": f"{analysis_type.label} parameters",
                           "description": analysis_type.description,
                           "properties": properties}}


def pipeline_views(registry: Any) -> list[PipelineView]:
    views = []
    for analysis_type in analysis_registry(registry).types.values():
        d = descriptor_for(registry, analysis_type.name)
        if d is not None:
            views.append(PipelineView(d.pipeline_id, d.name, d.description, d.version,
                                      d.automatable, d.executable, descriptor_params(d),
                                      analysis_type.name))
        else:
            views.append(PipelineView(analysis_type.name, analysis_type.label,
                                      analysis_type.description, analysis_type.version,
                                      True, True, type_params(analysis_type),
                                      analysis_type.name))
    return sorted(views, key=lambda v: (v.pipeline_id, v.version))


def _selected(view: PipelineView, workflow_type: str) -> bool:
    if workflow_type == "automatable":
        return view.automatable
    if workflow_type == "available":
        return True
    return view.executable


def _workflow_type(value: str | None) -> str:
    value = value or "executable"
    if value not in WORKFLOW_TYPES:
        raise GraphQLError(
            f"workflowType must be one of {', '.join(WORKFLOW_TYPES)}")
    return value


class Pipeline(graphene.ObjectType):
    """A pipeline seqcore can run: an analysis type, described as IRIDA Next describes its
    pipelines."""

    automatable = graphene.Boolean()
    description = graphene.String()
    executable = graphene.Boolean()
    name = graphene.String()
    pipeline_id = graphene.String()
    version = graphene.String()
    workflow_params = graphene.Field(graphene.NonNull(JSON),
                                     description="The parameter groups and their schemas.")
    analysis_type = graphene.String(
        required=True, description="seqcore: the analysis type name to launch it by.")


class PipelineQuery(graphene.ObjectType):
    pipelines = graphene.List(
        graphene.NonNull(Pipeline),
        workflow_type=graphene.String(default_value="executable", description=(
            "`automatable` for automatable pipelines, `available` for all; by default only "
            "`executable` ones.")),
        description="Find pipelines.")
    pipeline = graphene.Field(
        Pipeline, pipeline_id=graphene.String(required=True),
        workflow_version=graphene.String(required=True),
        workflow_type=graphene.String(default_value="executable"),
        description="Find a pipeline by id and version; null if there is none.")

    @staticmethod
    def resolve_pipelines(root: Any, info: Any, workflow_type: str = "executable"
                          ) -> list[PipelineView]:
        chosen = _workflow_type(workflow_type)
        return [view for view in pipeline_views(info.context.request.registry)
                if _selected(view, chosen)]

    @staticmethod
    def resolve_pipeline(root: Any, info: Any, pipeline_id: str, workflow_version: str,
                         workflow_type: str = "executable") -> PipelineView | None:
        chosen = _workflow_type(workflow_type)
        for view in pipeline_views(info.context.request.registry):
            if (view.pipeline_id == pipeline_id and view.version == workflow_version
                    and _selected(view, chosen)):
                return view
        return None
