def test_root_requires_a_token(testapp):
    res = testapp.get("/api", status=401)
    assert res.headers["WWW-Authenticate"] == "Bearer"


def test_root_with_token(testapp, factories):
    user = factories.user()
    res = testapp.get("/api", headers=factories.headers(user))
    rels = [link["rel"] for link in res.json["resource"]["links"]]
    assert rels[0] == "self"
