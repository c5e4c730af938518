"""Registering file kinds: one declaration becomes a child resource, a sample link and the
endpoints every kind shares (see :class:`seqcore.contrib.FileKind`)."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator

from seqcore.contrib import ChildSpec, FileKind, LinkSpec
from seqcore.links import child_href
from seqcore.resources.files import SequencingObjects
from seqcore.resources.samples import SampleResource


def add_file_kind(config: Configurator, kind: FileKind) -> None:
    """Register a kind and everything derived from it (each part conflict-checked)."""

    def register() -> None:
        config.registry.setdefault("seqcore.file_kinds", {})[kind.path_segment] = kind

    config.action(("seqcore.file_kind", kind.name), register)
    config.action(("seqcore.file_kind.segment", kind.path_segment), None)

    def factory(parent: Any) -> SequencingObjects:
        return SequencingObjects(parent.request, kind.path_segment, parent, kind)

    config.add_resource_child(ChildSpec(SampleResource, kind.path_segment, factory))
    config.add_link(LinkSpec(SampleResource, kind.collection_rel, child_href(kind.path_segment)))
    if kind.default_upload:
        config.action(("seqcore.file_kind.default_upload",), None)
    # The REST transport serves each kind (``seqcore.rest.kinds``).
    config.add_file_kind_endpoints(kind)


def includeme(config: Configurator) -> None:
    config.add_directive("add_file_kind", add_file_kind)
