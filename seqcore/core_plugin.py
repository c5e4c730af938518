"""The core's own declarations, made through the same hooks a plugin uses."""

from __future__ import annotations

from seqcore import hookimpl
from seqcore.contrib import Setting
from seqcore.settings import CORE_SETTINGS


@hookimpl
def register_models() -> list[type]:
    from seqcore import models

    classes = (getattr(models, name) for name in models.__all__)
    return [cls for cls in classes if isinstance(cls, type) and hasattr(cls, "__tablename__")]


@hookimpl
def register_settings() -> list[Setting]:
    return [Setting(s.name, s.default, s.doc, s.type_) for s in CORE_SETTINGS]


@hookimpl
def register_links() -> list:
    from seqcore.core_links import core_links

    return core_links()


@hookimpl
def register_rest_endpoints() -> list:
    from seqcore.rest.views import core_endpoints

    return core_endpoints()


@hookimpl
def register_metadata_types() -> list:
    from seqcore.metadata import TEXT

    return [TEXT]
