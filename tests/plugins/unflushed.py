"""A plugin endpoint that writes without flushing: a duplicate surfaces only when pyramid_tm
commits, after the view has returned its answer."""

from seqcore import hookimpl
from seqcore.framework.contrib import ChildSpec, Endpoint, View
from seqcore.models.project import Project, ProjectMember
from seqcore.resources.base import Context
from seqcore.resources.root import ApiRoot
from seqcore.security.permissions import Permission


class Unflushed(Context):
    """``/api/unflushed``; inherits the API root's ACL."""


def create_unflushed(request):
    request.db.add(Project(name="Fixed path", namespace="unflushed", path="fixed"))
    request.response.status = 201
    return {"created": True}


def add_dangling_member(request):
    """A membership of a project that does not exist (as if deleted meanwhile)."""
    request.db.add(ProjectMember(project_id=10**6, user_id=request.identity.user_id))
    return {"created": True}


@hookimpl
def register_resource_children():
    return [ChildSpec(ApiRoot, "unflushed", lambda parent: Unflushed(parent.request,
                                                                      "unflushed", parent))]


@hookimpl
def register_rest_endpoints():
    return [Endpoint("unflushed.create", "/api/unflushed", {
        "POST": View(create_unflushed, Permission.API_READ),
        "PUT": View(add_dangling_member, Permission.API_READ),
    })]
