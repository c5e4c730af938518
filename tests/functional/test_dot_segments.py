"""A path with a '.' or '..' segment is a 400, whatever its route: traversal would resolve the
segment and hand the view a context of another kind (a 500 before)."""

import pytest


@pytest.mark.parametrize("path", [
    "/api/analysisTypes/..", "/api/analysisTypes/.", "/api/projects/..", "/api/samples/1/..",
    "/api/analysisTypes/%2e%2e", "/api/projects/./1", "/api/../api/projects", "/users/../api",
])
@pytest.mark.parametrize("method", ["get", "head", "delete"])
def test_dot_segments_are_refused(testapp, factories, path, method):
    headers = factories.headers(factories.user())
    res = getattr(testapp, method)(path + "?sort=name", headers=headers, status=400)
    if method != "head" and path.startswith("/api"):
        assert res.json == {"message": "The path has a '.' or '..' segment; send the "
                                       "resolved path."}


def test_names_with_dots_are_still_names(testapp, factories):
    headers = factories.headers(factories.user())
    testapp.get("/api/analysisTypes/...", headers=headers, status=404)
    testapp.get("/api/analysisTypes/.hidden", headers=headers, status=404)
