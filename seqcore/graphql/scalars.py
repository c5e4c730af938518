"""Scalars: ``JSON`` (an object on the wire, not a string) and ``ValueScalar`` (a string or a
list of strings, for advanced-search conditions)."""

from __future__ import annotations

from typing import Any

import graphene
from graphene.types.generic import GenericScalar
from graphql import GraphQLError
from graphql.language import ast


class JSON(graphene.Scalar):
    """Untyped JSON, returned as a JSON value (sample metadata is an object of strings)."""

    serialize = staticmethod(lambda value: value)
    parse_value = staticmethod(lambda value: value)

    @staticmethod
    def parse_literal(node: ast.Node, _variables: Any = None) -> Any:
        return GenericScalar.parse_literal(node)


def _value(value: Any) -> str | list[str]:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise GraphQLError("ValueScalar takes a string or a list of strings.")


class ValueScalar(graphene.Scalar):
    """A string or a list of strings."""

    serialize = staticmethod(lambda value: value)
    parse_value = staticmethod(_value)

    @staticmethod
    def parse_literal(node: ast.Node, _variables: Any = None) -> Any:
        if isinstance(node, ast.StringValueNode):
            return node.value
        if isinstance(node, ast.ListValueNode) and all(
                isinstance(v, ast.StringValueNode) for v in node.values):
            return [v.value for v in node.values if isinstance(v, ast.StringValueNode)]
        raise GraphQLError("ValueScalar takes a string or a list of strings.")
