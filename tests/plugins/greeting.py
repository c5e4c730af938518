"""A plugin contributing a child resource, a REST endpoint and a root link."""

from seqcore import hookimpl
from seqcore.framework.contrib import ChildSpec, Endpoint, LinkSpec, View
from seqcore.framework.links import api_href
from seqcore.models.project import Project
from seqcore.resources.base import Context
from seqcore.resources.root import ApiRoot
from seqcore.rest.envelope import single
from seqcore.rest.errors import ApiError
from seqcore.security.permissions import Permission


class Greetings(Context):
    """``/api/greetings``; inherits the API root's ACL."""


def greet(request):
    return single(request, request.context, {"greeting": "hello"})


def create_then_fail(request):
    request.db.add(Project(name="Never committed", namespace="greeting", path="never"))
    request.db.flush()
    raise ApiError(400, message="rejected after writing")


@hookimpl
def register_resource_children():
    return [ChildSpec(ApiRoot, "greetings", lambda parent: Greetings(parent.request,
                                                                      "greetings", parent))]


@hookimpl
def register_links():
    return [LinkSpec(ApiRoot, "greetings", api_href("greetings"))]


@hookimpl
def register_rest_endpoints():
    return [Endpoint("greeting.list", "/api/greetings", {
        "GET": View(greet, Permission.API_READ),
        "POST": View(create_then_fail, Permission.API_READ),
    })]
