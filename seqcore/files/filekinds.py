"""Registering file kinds: one declaration becomes a child resource, a sample link and the
endpoints every kind shares (see :class:`seqcore.framework.contrib.FileKind`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pyramid.config import Configurator
from pyramid.exceptions import ConfigurationError
from pyramid.registry import Registry

from seqcore.framework.contrib import ChildSpec, FileKind, LinkSpec
from seqcore.framework.links import child_href, static, url_for
from seqcore.resources.analyses import SubmissionResource
from seqcore.resources.files import SampleSequenceFiles, SequencingObjects, registered_kinds
from seqcore.resources.samples import SampleResource

# The submission links the core registers itself; the kinds' input links follow them, ahead
# of the links plugins hang on submissions, whatever order the plugins load in.
CORE_SUBMISSION_RELS = ("analysis",)


def default_inputs(kinds: Mapping[str, FileKind]) -> tuple[str, ...]:
    """The names of the kinds an analysis type that declares no inputs takes."""
    return tuple(kind.name for kind in kinds.values() if kind.default_input)


def _add_input_link(config: Configurator, kind: FileKind) -> None:
    """The submission's link to its inputs of ``kind``, after the core's submission links and
    the other kinds' input links, whatever order the plugins load in."""
    config.add_link(
        LinkSpec(SubmissionResource, kind.input_rel,
                 child_href("sequenceFiles", kind.path_segment)),
        after=lambda: (*CORE_SUBMISSION_RELS,
                       *(k.input_rel for k in registered_kinds(config.registry).values())))


def _resolve_default_inputs(registry: Registry) -> None:
    """Give analysis types that declare no inputs the default input kinds."""
    from seqcore.analysis.registry import analysis_registry

    defaults = default_inputs(registered_kinds(registry))
    types = analysis_registry(registry).types
    for name, analysis_type in list(types.items()):
        if analysis_type.inputs:
            continue
        if not defaults:
            raise ConfigurationError(
                f"analysis type {name!r} declares no inputs and no loaded plugin registers "
                "a default input kind (FileKind(default_input=True)); name its inputs")
        types[name] = replace(analysis_type, inputs=defaults)


#: What a kind may declare as ``sra_layout``: NCBI's ``library_layout`` values, or nothing.
SRA_LAYOUTS = ("", "SINGLE", "PAIRED")


def add_file_kind(config: Configurator, kind: FileKind) -> None:
    """Register a kind and everything derived from it (each part conflict-checked)."""
    if kind.sra_layout not in SRA_LAYOUTS:
        raise ConfigurationError(
            f"file kind {kind.name!r}: sra_layout {kind.sra_layout!r} is not one of "
            f"{', '.join(repr(layout) for layout in SRA_LAYOUTS)}")

    def register() -> None:
        config.registry.setdefault("seqcore.file_kinds", {})[kind.path_segment] = kind

    config.action(("seqcore.file_kind", kind.name), register)
    config.action(("seqcore.file_kind.segment", kind.path_segment), None)

    def factory(parent: Any) -> SequencingObjects:
        return SequencingObjects(parent.request, kind.path_segment, parent, kind)

    config.add_resource_child(ChildSpec(SampleResource, kind.path_segment, factory))
    config.add_link(LinkSpec(SampleResource, kind.collection_rel, child_href(kind.path_segment)))
    if kind.collection_rel.startswith("sample/sequenceFiles/"):
        # As in IRIDA, the sample's sequenceFiles collection links the kinds' collections
        # named under it: the legacy uploader (0.7.1) finds where to post a pair there.
        config.add_link(LinkSpec(SampleSequenceFiles, kind.collection_rel, static(
            lambda request, resource: url_for(request, resource.__parent__,
                                              kind.path_segment))))
    if kind.input_rel:
        _add_input_link(config, kind)
    if kind.default_upload:
        config.action(("seqcore.file_kind.default_upload",), None)
    if kind.attachment_format:  # one kind takes attached files of a format, n at a time
        config.action(("seqcore.file_kind.attachment", kind.attachment_format, kind.files),
                      None)
    # The REST transport serves each kind (``seqcore.rest.kinds``).
    config.add_file_kind_endpoints(kind)


def includeme(config: Configurator) -> None:
    config.add_directive("add_file_kind", add_file_kind)
    # After every kind and type is registered (order 0), before the declarations are
    # verified (order 100).
    config.action(("seqcore.file_kind.default_inputs",),
                  lambda: _resolve_default_inputs(config.registry), order=2)
