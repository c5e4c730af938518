"""production.ini builds the app behind a proxy: links follow X-Forwarded-Proto/Host."""

from pathlib import Path

from webtest import TestApp

ROOT = Path(__file__).resolve().parents[2]


def test_links_follow_the_proxy(monkeypatch, tmp_path, factories, database_url, engine):
    from pyramid.paster import get_app

    monkeypatch.setenv("SEQCORE_SQLALCHEMY_URL", database_url)
    monkeypatch.setenv("SEQCORE_STORAGE_PATH", str(tmp_path))
    monkeypatch.setenv("SEQCORE_SESSION_SECRET", "production-sets-its-own")
    # The proxy connects from loopback, a trusted proxy in production.ini.
    app = TestApp(get_app(str(ROOT / "production.ini"), "main"),
                  extra_environ={"REMOTE_ADDR": "127.0.0.1"})
    headers = {**factories.headers(factories.user()), "X-Forwarded-Proto": "https",
               "X-Forwarded-Host": "seqcore.example.org"}
    links = app.get("/api", headers=headers).json["resource"]["links"]
    assert links[0]["href"] == "https://seqcore.example.org/api"
