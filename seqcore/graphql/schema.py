"""Assembling the schema from contributions, once, after all of them are registered.

The core and every plugin contribute types (``register_graphql_types``) and ``Query`` field
mixins (``register_graphql_query_fields``). Each type name and each query field name is a
Pyramid configuration action with a discriminator, so two contributors claiming the same one
stop the application at start-up with both names in the error. The schema itself is built by
a later-ordered action, when every contribution is known.
"""

from __future__ import annotations

from typing import Any

import graphene
from graphene.types.base import BaseType
from graphene.utils.str_converters import to_camel_case
from pyramid.config import Configurator
from pyramid.exceptions import ConfigurationError

TYPES = "seqcore.graphql.types"
QUERY_MIXINS = "seqcore.graphql.query_mixins"
SCHEMA = "seqcore.graphql.schema"
NODE_TYPES = "seqcore.graphql.node_types"
SCHEMA_ORDER = 1000  # after every contribution (default order 0)


def add_graphql_type(config: Configurator, graphene_type: type[Any]) -> None:
    """Directive: add a graphene type; a type name can be claimed once."""
    if not (isinstance(graphene_type, type) and issubclass(graphene_type, BaseType)):
        raise ConfigurationError(f"{graphene_type!r} is not a graphene type")
    name = graphene_type._meta.name

    def register() -> None:
        config.registry.setdefault(TYPES, []).append(graphene_type)

    config.action(("seqcore.graphql.type", name), register)


def query_field_names(mixin: type[Any]) -> list[str]:
    """The GraphQL names of the fields a ``Query`` mixin declares."""
    return [field.name or to_camel_case(attr) for attr, field in mixin._meta.fields.items()]


def add_graphql_query_fields(config: Configurator, mixin: type) -> None:
    """Directive: merge a graphene ``ObjectType``'s fields into ``Query``; a field name can
    be claimed once."""
    if not (isinstance(mixin, type) and issubclass(mixin, graphene.ObjectType)):
        raise ConfigurationError(f"{mixin!r} is not a graphene ObjectType")

    def register() -> None:
        config.registry.setdefault(QUERY_MIXINS, []).append(mixin)

    config.action(("seqcore.graphql.query_mixin", mixin), register)
    for name in query_field_names(mixin):
        config.action(("seqcore.graphql.query_field", name), None)


def build_schema(registry: Any) -> graphene.Schema:
    from seqcore.graphql.mutations import Mutation
    from seqcore.graphql.types import Node

    types = list(registry.get(TYPES, []))
    mixins = list(registry.get(QUERY_MIXINS, []))
    query = type("Query", (*reversed(mixins), graphene.ObjectType),
                 {"__doc__": "The root of every query."})
    schema = graphene.Schema(query=query, mutation=Mutation, types=types)
    registry[NODE_TYPES] = {
        t._meta.name: t for t in types
        if issubclass(t, graphene.ObjectType) and Node in t._meta.interfaces
        and callable(getattr(t, "get_node", None))
    }
    return schema


def includeme(config: Configurator) -> None:
    config.add_directive("add_graphql_type", add_graphql_type)
    config.add_directive("add_graphql_query_fields", add_graphql_query_fields)

    def build() -> None:
        config.registry[SCHEMA] = build_schema(config.registry)

    config.action(("seqcore.graphql.schema",), build, order=SCHEMA_ORDER)
