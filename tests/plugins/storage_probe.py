"""A plugin endpoint that finds services the way plugins should: ``request.find_service``."""

from seqcore import hookimpl
from seqcore.framework.contrib import ChildSpec, Endpoint, View
from seqcore.resources.base import Context
from seqcore.resources.root import ApiRoot
from seqcore.rest.envelope import single
from seqcore.security.permissions import Permission
from seqcore.services import IQCEngine, IStorage


class Probe(Context):
    """``/api/storage-probe``; inherits the API root's ACL."""


def probe(request):
    storage = request.find_service(IStorage)
    engine = request.find_service(IQCEngine)
    return single(request, request.context, {"storageRoot": str(storage.root),
                                             "qcEngine": engine.label})


@hookimpl
def register_resource_children():
    return [ChildSpec(ApiRoot, "storage-probe", lambda parent: Probe(parent.request,
                                                                     "storage-probe", parent))]


@hookimpl
def register_rest_endpoints():
    return [Endpoint("storage_probe", "/api/storage-probe",
                     {"GET": View(probe, Permission.API_READ)})]
