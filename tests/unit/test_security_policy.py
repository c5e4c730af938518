"""The top-level security policy: one sub-policy per request, chosen by where it goes, and
its outcome computed once."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from pyramid.interfaces import IRequestExtensions, IRequestFactory, ISecurityPolicy
from pyramid.request import Request, apply_request_extensions

from seqcore.security.policy import (
    BearerTokenPolicy,
    PersonalAccessTokenPolicy,
    SessionPolicy,
    TopLevelPolicy,
    credentials,
)


@pytest.fixture
def blank(app: Any, engine: Any) -> Iterator[Callable[..., Request]]:
    """Requests of the application (its request methods, a transaction each), aborted after
    the test."""
    made: list[Request] = []

    def make(path: str, **headers: str) -> Request:
        # The application's request class (seqcore.framework.requestclass holds its extensions).
        request = app.registry.getUtility(IRequestFactory).blank(path, headers=headers)
        request.registry = app.registry
        apply_request_extensions(request, app.registry.getUtility(IRequestExtensions))
        request.tm.begin()
        made.append(request)
        return request

    yield make
    for request in made:
        request.tm.abort()


@pytest.mark.parametrize(("path", "headers", "expected"), [
    ("/api", {}, BearerTokenPolicy),
    ("/api/projects/1", {"Authorization": "Basic eDp5"}, BearerTokenPolicy),
    ("/api/oauth/token", {}, BearerTokenPolicy),
    ("/api/graphql", {"Authorization": "Basic eDp5"}, PersonalAccessTokenPolicy),
    ("/api/graphql", {"Authorization": "Bearer abc"}, PersonalAccessTokenPolicy),
    ("/api/graphql", {}, SessionPolicy),
    ("/graphiql", {"Authorization": "Bearer abc"}, SessionPolicy),
    ("/users/sign_in", {}, SessionPolicy),
    ("/apix", {}, SessionPolicy),
])
def test_where_the_request_goes_picks_the_credential(path: str, headers: dict[str, str],
                                                     expected: type) -> None:
    request = Request.blank(path, headers=headers)
    assert isinstance(TopLevelPolicy().subpolicy(request), expected)


def test_the_application_uses_the_top_level_policy(app: Any) -> None:
    assert isinstance(app.registry.getUtility(ISecurityPolicy), TopLevelPolicy)


def test_a_bearer_token_is_checked_once_per_request(blank: Any, factories: Any,
                                                    sql_counter: Any) -> None:
    user = factories.user()
    request = blank("/api/projects", Authorization=factories.headers(user)["Authorization"])
    with sql_counter:
        assert request.identity.user_id == user.id
    first = sql_counter.count
    with sql_counter:
        assert request.identity.user_id == user.id
        assert credentials(request).method == "bearer"
    assert first > 0
    assert sql_counter.count == 0  # nothing more was asked


def test_graphql_credentials_name_their_kind_and_why_they_fail(blank: Any,
                                                              factories: Any) -> None:
    user = factories.user()
    good = blank("/api/graphql", **factories.graphql_headers(user))
    bad = blank("/api/graphql", Authorization="Bearer nothing")
    anonymous = blank("/api/graphql")
    assert credentials(good).method == "token"
    assert credentials(good).identity.user_id == user.id
    assert credentials(bad).identity is None
    assert "Basic" in credentials(bad).error
    assert credentials(anonymous).identity is None
    assert "sign in" in credentials(anonymous).error
