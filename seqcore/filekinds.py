"""Registering file kinds: one declaration becomes a child resource, a sample link and the
endpoints every kind shares (see :class:`seqcore.contrib.FileKind`)."""

from __future__ import annotations

from typing import Any

from pyramid.config import Configurator

from seqcore.contrib import ChildSpec, Endpoint, FileKind, LinkSpec, View
from seqcore.links import child_href
from seqcore.resources.files import SequencingObjects
from seqcore.resources.samples import SampleResource
from seqcore.security.permissions import Permission

SID = "{sid:\\d+}"
OID = "{oid:\\d+}"
FID = "{fid:\\d+}"


def kind_endpoints(kind: FileKind) -> list[Endpoint]:
    """The endpoints of one kind, canonical paths first, then the ``sequenceFiles`` aliases."""
    from seqcore.rest.views import files

    seg = kind.path_segment
    base = f"/api/samples/{SID}/{seg}"
    read, write = Permission.SAMPLE_READ, Permission.SAMPLE_WRITE
    endpoints = [
        Endpoint(f"api.{kind.name}", base, {
            "GET": View(files.list_objects, read),
            "POST": View(files.upload, write),
        }, description=f"A sample's {kind.label or kind.name}; POST uploads one."),
        Endpoint(f"api.{kind.name}.object", f"{base}/{OID}", {
            "GET": View(files.get_object, read),
            "DELETE": View(files.delete_object, write),
        }, description=f"One {kind.label or kind.name} object."),
        Endpoint(f"api.{kind.name}.file", f"{base}/{OID}/files/{FID}", {
            "GET": View(files.get_file, read, renderer=None),
        }, description="One file; Accept: " + ", ".join(kind.media_types) + " downloads it."),
        Endpoint(f"api.{kind.name}.qc", f"{base}/{OID}/files/{FID}/qc", {
            "GET": View(files.get_qc, read),
        }, description="The file's QC record (404 until the worker has made it)."),
    ]
    alias = f"/api/samples/{SID}/sequenceFiles/{seg}"
    endpoints += [
        Endpoint(f"api.{kind.name}.alias", alias, {
            "GET": View(files.list_objects, read),
            "POST": View(files.upload, write),
        }, traverse=base),
        Endpoint(f"api.{kind.name}.object.alias", f"{alias}/{OID}", {
            "GET": View(files.get_object, read),
            "DELETE": View(files.delete_object, write),
        }, traverse=f"{base}/{OID}"),
    ]
    return endpoints


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
    for endpoint in kind_endpoints(kind):
        config.add_endpoint(endpoint)


def includeme(config: Configurator) -> None:
    config.add_directive("add_file_kind", add_file_kind)
