"""Traversal contexts of the REST API.

Rules (so that a plugin's resources are safe by default):

* contexts are thin: ``__name__``, ``__parent__``, ``__acl__`` and ``__getitem__`` raising
  ``KeyError`` for anything that does not exist; they hold the model object they stand for;
* permissions are inherited through ``__parent__``: a child with no ACL of its own is exactly
  as private as its parent;
* plugins add children with :class:`seqcore.framework.contrib.ChildSpec`, never by editing
  core code.

Part of the domain layer: the transports traverse these contexts; they import no transport.
"""

from pyramid.config import Configurator


def add_resource_child(config: Configurator, spec: object) -> None:
    from seqcore.framework.contrib import ChildSpec

    assert isinstance(spec, ChildSpec)

    def register() -> None:
        table = config.registry.setdefault("seqcore.children", {})
        table.setdefault(spec.parent, {})[spec.name] = spec.factory

    config.action(("seqcore.child", spec.parent, spec.name), register)


def includeme(config: Configurator) -> None:
    config.add_directive("add_resource_child", add_resource_child)
    config.include("seqcore.resources.analyses")
