"""Schema assembly from contributions, and the depth and complexity limits."""

import graphene
import pytest
from pyramid.exceptions import ConfigurationConflictError

from seqcore import hookimpl
from tests.graphql.conftest import gid


class Greeting(graphene.ObjectType):
    text = graphene.String()


class GreetingQuery(graphene.ObjectType):
    greeting = graphene.Field(Greeting, name=graphene.String(default_value="world"))

    @staticmethod
    def resolve_greeting(root, info, name):
        return {"text": f"hello {name}, from {info.context.identity.username}"}


class GreetingPlugin:
    __name__ = "greeting_graphql"

    @hookimpl
    def register_graphql_types(self):
        return [Greeting]

    @hookimpl
    def register_graphql_query_fields(self):
        return [GreetingQuery]


class SecondGreetingPlugin:
    __name__ = "second_greeting_graphql"

    @hookimpl
    def register_graphql_query_fields(self):
        class AnotherGreeting(graphene.ObjectType):
            greeting = graphene.String()

        return [AnotherGreeting]


class SampleClaimingPlugin:
    __name__ = "claims_sample_type"

    @hookimpl
    def register_graphql_types(self):
        class Sample(graphene.ObjectType):
            name = graphene.String()

        return [Sample]


def test_a_plugin_adds_a_type_and_a_query_field(build_app, factories):
    app = build_app([GreetingPlugin()])
    user = factories.user(username="ada")
    body = app.post_json("/api/graphql", {"query": '{ greeting(name: "seqcore") { text } }'},
                         headers=factories.graphql_headers(user)).json
    assert body == {"data": {"greeting": {"text": "hello seqcore, from ada"}}}


def test_two_plugins_claiming_one_query_field_fail_naming_both(build_app):
    with pytest.raises(ConfigurationConflictError) as info:
        build_app([GreetingPlugin(), SecondGreetingPlugin()])
    message = str(info.value)
    assert "greeting_graphql" in message and "second_greeting_graphql" in message


def test_a_plugin_claiming_a_core_type_fails_naming_both(build_app):
    with pytest.raises(ConfigurationConflictError) as info:
        build_app([SampleClaimingPlugin()])
    message = str(info.value)
    assert "claims_sample_type" in message and "seqcore core" in message


def test_depth_limit(graphql, factories):
    user = factories.user()
    nested = "project { samples { nodes { " * 5
    query = "{ samples { nodes { " + nested + "name" + " } } }" * 5 + " } } }"
    body = graphql.as_user(user)(query)
    assert "data" not in body
    assert body["errors"][0]["message"] == "Query has depth of 18, which exceeds max depth of 15"


def test_complexity_limit(graphql, factories):
    user = factories.user()
    graphql.as_user(user)
    # IRIDA Next's own example: five fields per node at 100 a page is too much...
    body = graphql("{ samples(first: 100) { nodes { id name metadata project { id fullPath } } }"
                   " }")
    assert body["errors"][0]["message"] == ("Query has complexity of 602, which exceeds max "
                                            "complexity of 550")
    # ...the same at 25, or the point-3 query at 100, is not.
    assert "errors" not in graphql("{ samples(first: 25) { nodes { id name metadata project "
                                   "{ id fullPath } } } }")
    assert "errors" not in graphql("{ samples(first: 100) { nodes { name metadata project "
                                   "{ fullPath } } } }")
    # Variables count too.
    body = graphql("query($n: Int) { samples(first: $n) { nodes { id name metadata project "
                   "{ id fullPath } } } }", {"n": 100})
    assert "exceeds max complexity" in body["errors"][0]["message"]


def test_introspection_is_not_limited(graphql, factories):
    from graphql import get_introspection_query

    body = graphql.as_user(factories.user())(get_introspection_query(descriptions=True))
    assert "errors" not in body
    names = {t["name"] for t in body["data"]["__schema"]["types"]}
    assert {"Sample", "Project", "User", "SampleConnection", "JSON"} <= names


def test_unknown_fields_are_validation_errors(graphql, factories):
    body = graphql.as_user(factories.user())("{ does_not_exist }")
    assert "data" not in body
    assert "does_not_exist" in body["errors"][0]["message"]


def test_ids_use_the_configured_app_segment(build_app, factories):
    app = build_app([], **{"seqcore.graphql.app": "lab"})
    user = factories.user()
    body = app.post_json("/api/graphql", {"query": "{ currentUser { id } }"},
                         headers=factories.graphql_headers(user)).json
    assert body["data"]["currentUser"]["id"] == f"gid://lab/User/{user.id}"
    assert gid("User", 1) == "gid://seqcore/User/1"
