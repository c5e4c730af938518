"""How a page asks who is calling and what they may see: the same traversal contexts and
ACLs as REST (``seqcore.resources`` over ``seqcore.security.access``), so a page never shows
what the API would hide.

Page views are registered with :func:`add_page`, which wraps them so that the answers every
page shares are given in one place: no session, a redirect to the sign-in page (coming back
afterwards); something hidden or missing, 404; allowed to see but not to do, 403; a bad
query string or form, 400 with the problems in words. The domain's errors
(:mod:`seqcore.errors.domain`) are answered the same way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from pyramid.config import Configurator
from pyramid.httpexceptions import HTTPFound
from pyramid.i18n import TranslationString
from pyramid.request import Request
from pyramid.response import Response

from seqcore.errors.domain import Conflict, DomainError, Forbidden, Invalid, NotFound
from seqcore.resources.base import Context, readable
from seqcore.resources.root import Root
from seqcore.security.identity import Identity
from seqcore.security.permissions import Permission
from seqcore.security.policy import session_identity
from seqcore.web.i18n import _, translate
from seqcore.web.render import page
from seqcore.web.table import TableProblem

View = Callable[[Request], Response]


class SignInRequired(Exception):
    """The page needs a signed-in account."""


class PageError(Exception):
    """A page's answer other than the page: ``status`` and a message in words."""

    def __init__(self, status: int, message: str | TranslationString, **mapping: Any) -> None:
        super().__init__(str(message))
        self.status = status
        self.message = message
        self.mapping = mapping


def not_found() -> PageError:
    return PageError(404, _("There is nothing here, or you may not see it."))


def signed_in(request: Request) -> Identity:
    """The signed-in account; :class:`SignInRequired` otherwise."""
    identity = session_identity(request)
    if identity is None:
        raise SignInRequired()
    return identity


def administrator(request: Request) -> Identity:
    """The signed-in administrator: :class:`SignInRequired` for nobody, 403 for anyone else
    (REST answers an account that is not an administrator 403 where only administrators
    may act: a system role, enabling an account)."""
    identity = signed_in(request)
    if not identity.is_admin:
        raise PageError(403, _("Only administrators may see this page."))
    return identity


def context_at(request: Request, *segments: str) -> Any:
    """The traversal context below ``/api`` at ``segments`` (``"projects", "5"``) if the
    caller may know it exists; a 404 :class:`PageError` otherwise (hidden and missing look
    the same, as in REST)."""
    node: Any = Root(request)["api"]
    try:
        for segment in segments:
            node = node[segment]
    except KeyError:
        raise not_found() from None
    if not readable(request, node):
        raise not_found()
    return node


def require(request: Request, context: Context, permission: str) -> None:
    """A 403 :class:`PageError` unless the caller holds ``permission`` on ``context``."""
    result = request.has_permission(permission, context)
    if not result:
        from seqcore.security.archived import archive_message, refused_by_archive

        if refused_by_archive(result):
            raise PageError(403, archive_message(request.db, context))
        raise PageError(403, _("You may see this but not change it."))


def parent_group(request: Request, field: str, top: str, create: str) -> Any:
    """The group a create form names in its ``field`` (the caller must write it), or ``None``
    for a top-level create, where the caller needs ``create`` on the ``top`` collection
    (``"projects"``, ``"groups"``)."""
    group_id = request.POST.get(field, "")
    if not group_id:
        require(request, context_at(request, top), create)
        return None
    context = context_at(request, "groups", group_id)
    require(request, context, Permission.GROUP_WRITE)
    return context.group


def may(request: Request, context: Context, permission: str) -> bool:
    return bool(request.has_permission(permission, context))


def sign_in_location(request: Request) -> str:
    query = urlencode({"next": request.path_qs})
    return f"{request.route_path('web.sign_in')}?{query}"


def _problem_page(request: Request, status: int, message: str) -> Response:
    headings = {400: _("This cannot be done as asked"), 403: _("Not allowed"),
                404: _("Not found"), 409: _("This conflicts with what is there")}
    heading = translate(request, headings.get(status, _("Something went wrong")))
    return page(request, "message.mako", status=status, heading=heading, message=message)


def domain_message(request: Request, error: DomainError) -> str:
    """A domain error in words (an :class:`Invalid`'s problems, field by field)."""
    if isinstance(error, Invalid) and error.problems and not error.has_message:
        return " ".join(f"{name}: {' '.join(messages)}"
                        for name, messages in error.problems.items())
    return error.message


STATUSES = ((Invalid, 400), (Forbidden, 403), (NotFound, 404), (Conflict, 409))


def guarded(view: View) -> View:
    """``view`` answering the shared outcomes itself."""

    def wrapper(request: Request) -> Response:
        try:
            return view(request)
        except SignInRequired:
            return HTTPFound(location=sign_in_location(request))
        except PageError as error:
            request.tm.doom()
            return _problem_page(request, error.status,
                                 translate(request, error.message, **error.mapping))
        except TableProblem as problem:
            request.tm.doom()
            return _problem_page(request, 400,
                                 translate(request, problem.message, **problem.mapping))
        except DomainError as error:
            # Nothing the view wrote before the error may stay.
            request.tm.doom()
            status = next((code for kind, code in STATUSES if isinstance(error, kind)), 400)
            return _problem_page(request, status, domain_message(request, error))

    wrapper.__name__ = getattr(view, "__name__", "page")
    wrapper.__doc__ = view.__doc__
    return wrapper


def add_page(config: Configurator, name: str, pattern: str | None, view: View,
             method: str = "GET", **predicates: Any) -> None:
    """Register a page view (and its route, when ``pattern`` is given). POST pages check
    the CSRF token, as the sign-in form does."""
    if pattern is not None:
        config.add_route(name, pattern)
    config.add_view(guarded(view), route_name=name, request_method=method,
                    require_csrf=method != "GET", **predicates)


__all__ = ["PageError", "SignInRequired", "add_page", "administrator", "context_at",
           "domain_message", "guarded", "may", "not_found", "require", "sign_in_location",
           "signed_in"]
