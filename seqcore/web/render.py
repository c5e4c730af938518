"""Server-rendered pages: Mako templates with HTML escaping on by default.

Every template receives ``request``, ``identity`` (the signed-in account or ``None``),
``csrf_token``, ``static(name)`` (a URL of ``seqcore/web/static``), ``vendor(name)`` (a URL of
an npm asset, :mod:`seqcore.web.vendored`), ``plugin_static(name, file)`` (a URL of a plugin's
view assets), ``_(message, **mapping)`` (the message in the
page's language, :mod:`seqcore.web.i18n`), ``locale`` and ``nav`` (the main navigation).
Plugins add template directories with :func:`add_template_directory`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mako.lookup import TemplateLookup
from pyramid.config import Configurator
from pyramid.request import Request
from pyramid.response import Response

from seqcore.web.i18n import LANGUAGES, translate
from seqcore.web.navigation import entries

TEMPLATES = Path(__file__).resolve().parent / "templates"
STATIC = Path(__file__).resolve().parent / "static"
LOOKUP = "seqcore.web.template_lookup"
#: Static directories of plugins' view assets by name (:mod:`seqcore.web.pluginviews`).
PLUGIN_STATIC = "seqcore.web.plugin_static"
_DIRECTORIES = "seqcore.web.template_directories"


def static_path(request: Request, name: str) -> str:
    """The URL path of one of seqcore's own static files."""
    return request.static_path(str(STATIC / name))


def vendor_path(request: Request, name: str) -> str:
    """The URL path of an npm asset every page may load (``web.vendor``)."""
    return request.route_path("web.vendor", name=name)


def plugin_static_path(request: Request, name: str, file: str) -> str:
    """The URL path of ``file`` among the static files of the plugin view assets ``name``
    (served at ``/-/plugins/<name>/``)."""
    directory = request.registry.get(PLUGIN_STATIC, {}).get(name)
    if directory is None:
        raise KeyError(f"no plugin view assets named {name!r}")
    return str(request.static_path(str(Path(directory) / file)))


def add_template_directory(config: Configurator, directory: str | Path) -> None:
    """Let pages find templates in ``directory`` too (after the core's own): a plugin's
    views name their templates relative to it."""
    directories = config.registry.setdefault(_DIRECTORIES, [str(TEMPLATES)])
    if str(directory) not in directories:
        directories.append(str(directory))
    config.registry.pop(LOOKUP, None)


def lookup(registry: Any = None) -> TemplateLookup:
    """The application's template lookup (the core's templates without a registry)."""
    if registry is None:
        return _core_lookup
    found = registry.get(LOOKUP)
    if found is None:
        found = registry[LOOKUP] = _new_lookup(registry.get(_DIRECTORIES, [str(TEMPLATES)]))
    return found


def _new_lookup(directories: list[str]) -> TemplateLookup:
    return TemplateLookup(directories=directories, default_filters=["h"],
                          strict_undefined=True, input_encoding="utf-8")


_core_lookup = _new_lookup([str(TEMPLATES)])


def template_values(request: Request) -> dict[str, Any]:
    """What every template finds besides its own values."""
    from seqcore.security.policy import session_identity

    identity = session_identity(request)
    return {
        "request": request, "identity": identity,
        "csrf_token": request.session.get_csrf_token(),
        "static": lambda name: static_path(request, name),
        "vendor": lambda name: vendor_path(request, name),
        "plugin_static": lambda name, file: plugin_static_path(request, name, file),
        "_": lambda message, **mapping: translate(request, message, **mapping),
        "locale": request.locale_name, "languages": LANGUAGES,
        "nav": entries(request, identity),
        "flashes": request.session.pop_flash(),
    }


def render(request: Request, template: str, **values: Any) -> str:
    """A template's HTML (a whole page, or a fragment such as a Turbo frame or stream)."""
    return lookup(request.registry).get_template(template).render(
        **{**template_values(request), **values})


def page(request: Request, template: str, status: int = 200, **values: Any) -> Response:
    body = render(request, template, **values)
    response = Response(body, status=status, content_type="text/html", charset="utf-8")
    # Pages may hold a token's secret or a CSRF token: never cache them.
    response.headers["Cache-Control"] = "no-store"
    response.headers["X-Frame-Options"] = "DENY"
    response.headers["Referrer-Policy"] = "same-origin"
    response.headers["Content-Language"] = request.locale_name
    return response
