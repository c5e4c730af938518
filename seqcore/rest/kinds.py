"""The endpoints every file kind shares, added for each kind that registers
(:func:`seqcore.files.filekinds.add_file_kind` calls the ``add_file_kind_endpoints`` directive,
so the kind registry needs no REST view)."""

from __future__ import annotations

from pyramid.config import Configurator

from seqcore.framework.contrib import Endpoint, FileKind, View
from seqcore.rest.views import files
from seqcore.security.permissions import Permission

SID = "{sid:\\d+}"
OID = "{oid:\\d+}"
FID = "{fid:\\d+}"


def kind_endpoints(kind: FileKind) -> list[Endpoint]:
    """The endpoints of one kind, canonical paths first, then the ``sequenceFiles`` aliases."""
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


def add_file_kind_endpoints(config: Configurator, kind: FileKind) -> None:
    for endpoint in kind_endpoints(kind):
        config.add_endpoint(endpoint)


def includeme(config: Configurator) -> None:
    config.add_directive("add_file_kind_endpoints", add_file_kind_endpoints)
