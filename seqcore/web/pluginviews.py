"""The views plugins contribute to the pages (``register_views``): their template directories
and static files, the view of an analysis output per rel, the view of a file kind.

Every declaration is checked at start-up, as the other declarations are: an output view
must name an output rel its analysis type declares, a file-kind view a registered kind, and
its template must be found (and compile) in the template directories; a plugin's
translations must hold a compiled catalogue for every language the pages speak; otherwise
the start-up stops with an error naming the plugin. Two views of one rel or kind, or two
asset sets of one name, conflict (Pyramid's discriminators).

An output view may name the analysis type ``"*"`` (:data:`ANY_TYPE`): it shows that rel of
every type declaring it, unless a view names the type itself. A plugin whose types are made
at start-up from files (pipeline descriptors) shows their common output this way.

A plugin's views translate with the plugin's own catalogue (its ``ViewAssets``'
``translations``), then the core's: templates get that ``_``, ``context`` callables
``ViewInput.translate``.

At request time :func:`output_views` renders each output of a submission with the view of
the plugin that owns it. A view that fails is logged and its output falls back to the plain
entry of the list, so one broken plugin never hides the rest of the analysis page; a view
that refuses a query value raises a domain error (``Invalid``), or the core table's
``TableProblem``, answered as the page's 400.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mako.exceptions import MakoException, TopLevelLookupException
from markupsafe import Markup
from pyramid.config import Configurator
from pyramid.exceptions import ConfigurationError
from pyramid.request import Request
from sqlalchemy import select

from seqcore.analysis.registry import analysis_registry
from seqcore.errors.domain import DomainError
from seqcore.framework.contrib import (
    ANY_TYPE,
    FileKindView,
    OutputView,
    ViewAssets,
    ViewInput,
)
from seqcore.framework.contributions import declarations
from seqcore.models.sample import MetadataEntry
from seqcore.resources.files import registered_kinds
from seqcore.security.fieldaccess import Caller, readable_entry
from seqcore.security.policy import session_identity
from seqcore.web.i18n import DOMAIN, add_plugin_catalogue, translator
from seqcore.web.render import PLUGIN_STATIC, add_template_directory, lookup, render
from seqcore.web.table import TableProblem

log = logging.getLogger(__name__)

OUTPUT_VIEWS = "seqcore.web.output_views"
KIND_VIEWS = "seqcore.web.kind_views"


@dataclass(frozen=True)
class _Registered:
    """A declared view and the translation domain of the plugin that declared it."""

    view: OutputView | FileKindView
    domain: str


@dataclass(frozen=True)
class ShownOutput:
    """One output of a submission as the analysis page shows it: its key, its stored file,
    and the plugin view's HTML (``None``: the plain list entry)."""

    key: str
    output: Any
    html: Markup | None


def _claim(config: Configurator, plugin: str, what: str) -> Configurator:
    """A Configurator whose actions carry the plugin's name, so a conflict names both."""
    sub = config.with_package(config.package)
    sub.info = f"plugin {plugin!r}: {what}"
    return sub


def _check_template(registry: Any, plugin: str, what: str, template: str) -> None:
    try:
        lookup(registry).get_template(template)
    except TopLevelLookupException:
        raise ConfigurationError(
            f"plugin {plugin!r}: {what}: template {template!r} is in no template directory "
            "(declare the plugin's ViewAssets)") from None
    except MakoException as error:
        raise ConfigurationError(
            f"plugin {plugin!r}: {what}: template {template!r} does not compile: "
            f"{error}") from None


def _add_assets(config: Configurator, plugin: str, assets: ViewAssets) -> str | None:
    """Add the assets; the translation domain they bring, if any."""
    templates = Path(assets.templates)
    if not templates.is_dir():
        raise ConfigurationError(f"plugin {plugin!r}: ViewAssets {assets.name!r}: template "
                                 f"directory {str(templates)!r} does not exist")
    add_template_directory(config, templates)
    if assets.static is not None:
        static = Path(assets.static)
        if not static.is_dir():
            raise ConfigurationError(f"plugin {plugin!r}: ViewAssets {assets.name!r}: static "
                                     f"directory {str(static)!r} does not exist")
        config.registry.setdefault(PLUGIN_STATIC, {})[assets.name] = static
        config.add_static_view(f"-/plugins/{assets.name}", str(static), cache_max_age=3600)
    _claim(config, plugin, f"ViewAssets {assets.name!r}").action(
        ("seqcore.view_assets", assets.name), None)
    if assets.translations is None:
        return None
    domain = assets.domain or assets.name
    add_plugin_catalogue(config, plugin, assets.translations, domain)
    return domain


def _add_output_view(config: Configurator, plugin: str, view: OutputView, domain: str) -> None:
    what = f"OutputView {view.rel!r} of {view.analysis_type!r}"

    def register() -> None:
        if view.analysis_type == ANY_TYPE:  # the types may be none yet: the template only
            _check_template(config.registry, plugin, what, view.template)
            config.registry.setdefault(OUTPUT_VIEWS, {})[(ANY_TYPE, view.rel)] = _Registered(
                view, domain)
            return
        rels = {rel.rel for rel in analysis_registry(config.registry).output_rels(
            view.analysis_type)}
        if view.rel not in rels:
            raise ConfigurationError(
                f"plugin {plugin!r}: {what}: analysis type {view.analysis_type!r} declares no "
                f"output rel {view.rel!r} (declared: {', '.join(sorted(rels)) or 'none'})")
        _check_template(config.registry, plugin, what, view.template)
        config.registry.setdefault(OUTPUT_VIEWS, {})[(view.analysis_type, view.rel)] = \
            _Registered(view, domain)

    # After the output rels (order 1) are registered.
    _claim(config, plugin, what).action(
        ("seqcore.output_view", view.analysis_type, view.rel), register, order=2)


def _add_kind_view(config: Configurator, plugin: str, view: FileKindView, domain: str) -> None:
    what = f"FileKindView of {view.kind!r}"

    def register() -> None:
        if view.kind not in {kind.name for kind in registered_kinds(config.registry).values()}:
            raise ConfigurationError(f"plugin {plugin!r}: {what}: no loaded plugin registers "
                                     f"the file kind {view.kind!r}")
        _check_template(config.registry, plugin, what, view.template)
        config.registry.setdefault(KIND_VIEWS, {})[view.kind] = _Registered(view, domain)

    _claim(config, plugin, what).action(("seqcore.kind_view", view.kind), register, order=2)


def _render(request: Request, registered: _Registered, values: dict[str, Any],
            view_input: ViewInput) -> Markup | None:
    template = registered.view.template
    context: Callable[[ViewInput], Mapping[str, Any]] | None = registered.view.context
    _ = translator(request, registered.domain)
    view_input = replace(view_input, translate=_)
    try:
        extra = dict(context(view_input)) if context is not None else {}
        return Markup(render(request, template, **values, **extra, _=_))
    except (DomainError, TableProblem):
        raise  # a bad query value the view refuses: the page answers it (400, 404...)
    except Exception:  # a plugin's view must not break the page: fall back, loudly
        log.exception("view template %s failed; showing the plain entry instead", template)
        return None


def output_views(request: Request, submission: Any) -> list[ShownOutput]:
    """Each output of ``submission``, rendered by its plugin's view when one is declared for
    one of the rels of its key."""
    views: dict[tuple[str, str], _Registered] = request.registry.get(OUTPUT_VIEWS, {})
    rels_of: dict[str, list[str]] = {}
    for rel in analysis_registry(request.registry).output_rels(submission.analysis_type):
        rels_of.setdefault(rel.key, []).append(rel.rel)
    outputs = {output.key: output for output in submission.outputs}
    shown = []
    for output in submission.outputs:
        rels = rels_of.get(output.key, [])
        view = next((views[(submission.analysis_type, rel)] for rel in rels
                     if (submission.analysis_type, rel) in views), None) or next(
            (views[(ANY_TYPE, rel)] for rel in rels if (ANY_TYPE, rel) in views), None)
        html = None
        if view is not None:
            # A local file for the view: the stored file itself, or a copy from an object
            # store that lives while the view renders.
            with request.storage.local_copy(output.file.path) as path:
                view_input = ViewInput(request=request, subject=submission, item=output,
                                       path=path, outputs=outputs)
                html = _render(request, view, {
                    "submission": submission, "output": output,
                    "download_path": lambda shown: request.route_path(
                        "web.analysis.output", id=submission.id, output=shown.id)}, view_input)
        shown.append(ShownOutput(output.key, output, html))
    return shown


def readable_metadata(request: Request, sample_ids: Iterable[int]) -> dict[int, dict[str, str]]:
    """The metadata of ``sample_ids`` the signed-in account may read, by sample and field
    (one statement): what a view shows or colours by, never a field the API would hide."""
    ids = list(sample_ids)
    if not ids:
        return {}
    caller = Caller.of(session_identity(request))
    found: dict[int, dict[str, str]] = {}
    for entry in request.db.scalars(select(MetadataEntry).where(
            MetadataEntry.sample_id.in_(ids), readable_entry(caller))):
        found.setdefault(entry.sample_id, {})[entry.field] = entry.value
    return found


def kind_view(request: Request, sample: Any, obj: Any) -> Markup | None:
    """An object of a file kind rendered by its plugin's view, if one is declared."""
    view: _Registered | None = request.registry.get(KIND_VIEWS, {}).get(obj.kind)
    if view is None:
        return None
    files = obj.files
    if not files:
        return _render(request, view, {"sample": sample, "object": obj},
                       ViewInput(request=request, subject=sample, item=obj, path=None,
                                 outputs={}))
    with request.storage.local_copy(files[0].path) as path:
        return _render(request, view, {"sample": sample, "object": obj},
                       ViewInput(request=request, subject=sample, item=obj, path=path,
                                 outputs={}))


def includeme(config: Configurator) -> None:
    declared = list(declarations(config.registry.pm, "register_views"))
    # The assets first: a plugin's views translate with the domain its assets bring.
    domains: dict[str, str] = {}
    for plugin, item in declared:
        if isinstance(item, ViewAssets):
            domain = _add_assets(config, plugin, item)
            if domain is not None:
                domains.setdefault(plugin, domain)
    for plugin, item in declared:
        if isinstance(item, ViewAssets):
            continue
        if isinstance(item, OutputView):
            _add_output_view(config, plugin, item, domains.get(plugin, DOMAIN))
        elif isinstance(item, FileKindView):
            _add_kind_view(config, plugin, item, domains.get(plugin, DOMAIN))
        else:
            raise ConfigurationError(f"plugin {plugin!r}: register_views returned {item!r}, "
                                     "expected ViewAssets, OutputView or FileKindView")


__all__ = ["ShownOutput", "kind_view", "output_views", "readable_metadata"]
