"""``GET /-/health`` and ``GET /-/ready``: public, 503 naming what failed, nothing leaked."""

import shutil

import pytest
from sqlalchemy import create_engine

from seqcore.db import get_engine
from seqcore.db.migrations import upgrade
from seqcore.testing.database import test_database_url as fresh_database_url


def _no_leak(res, *private):
    text = res.text
    for value in private:
        assert value not in text
    assert "26." not in text and "version" not in text.lower()


def test_health_is_public_and_minimal(testapp, app_config):
    res = testapp.get("/-/health", status=200)
    assert res.json == {"status": "ok"}
    assert res.headers["Cache-Control"] == "no-store"
    _no_leak(res, app_config.get_settings()["seqcore.storage.path"])


def migrate(app_config, database, target="heads"):
    """Migrate ``database`` (app settings from :func:`database_at`) with the session's
    plugins, to ``target`` or to every head."""
    settings = {**app_config.get_settings(), "sqlalchemy.url": database["sqlalchemy.url"]}
    upgrade(settings, app_config.registry.pm, engine=database["seqcore.engine"], target=target)


@pytest.fixture
def database_at(app_config, tmp_path):
    """Databases of their own, migrated to a target: the session's database may carry more
    branches than the session's plugins (live servers migrate every installed plugin)."""
    engines = []

    def make(name, target="heads"):
        url = fresh_database_url(tmp_path, name)
        engines.append(get_engine(url))
        database = {"seqcore.engine": engines[-1], "sqlalchemy.url": url}
        migrate(app_config, database, target)
        return database

    yield make
    for engine in engines:
        engine.dispose()


@pytest.fixture
def migrated(database_at):
    return database_at("obs_ready")


def test_ready_when_everything_works(build_app, migrated, app_config):
    app = build_app(None, **migrated)
    res = app.get("/-/ready", status=200)
    assert res.json == {"status": "ready",
                        "checks": {"database": "ok", "storage": "ok", "migrations": "ok"}}
    settings = app_config.get_settings()
    _no_leak(res, settings["seqcore.storage.path"], migrated["sqlalchemy.url"])
    app.head("/-/ready", status=200)


def test_ready_503_when_the_database_is_unreachable(build_app, database_url, tmp_path):
    if database_url.startswith("postgresql"):
        url = "postgresql+psycopg://postgres@127.0.0.1:1/seqcore?connect_timeout=2"
    else:
        url = f"sqlite:///{tmp_path / 'no-such-directory' / 'seqcore.sqlite'}"
    unreachable = create_engine(url)
    app = build_app(None, **{"seqcore.engine": unreachable, "sqlalchemy.url": url})
    res = app.get("/-/ready", status=503)
    assert res.json["status"] == "unavailable"
    assert res.json["checks"]["database"] == "unreachable"
    assert "database" in res.json["failed"]
    assert res.json["checks"]["storage"] == "ok"
    _no_leak(res, url, str(tmp_path), "127.0.0.1")
    app.get("/-/health", status=200)  # alive all the same


@pytest.mark.parametrize("how", ["removed", "replaced by a file"])
def test_ready_503_when_storage_is_not_writable(build_app, migrated, tmp_path, how):
    # The tests run as root, for whom permissions do not stop a write: the storage
    # directory goes away instead, as when its disk is not mounted.
    storage = tmp_path / "storage"
    app = build_app(None, **migrated, **{"seqcore.storage.path": str(storage)})
    app.get("/-/ready", status=200)
    shutil.rmtree(storage)
    if how == "replaced by a file":
        storage.write_text("not a directory")
    res = app.get("/-/ready", status=503)
    assert res.json["failed"] == ["storage"]
    assert res.json["checks"]["storage"] == "not writable"
    assert not storage.is_dir()  # the check created nothing
    _no_leak(res, str(tmp_path))


def test_ready_503_when_migrations_are_behind(build_app, app_config, database_at):
    database = database_at("obs_behind", "c0008")
    app = build_app(None, **database)
    res = app.get("/-/ready", status=503)
    assert res.json["failed"] == ["migrations"]
    assert res.json["checks"]["migrations"] == "not at head (run seqcore db upgrade)"
    _no_leak(res, "c0008", "c0009", database["sqlalchemy.url"])
    migrate(app_config, database)
    assert app.get("/-/ready", status=200).json["checks"]["migrations"] == "ok"


def test_ready_503_when_a_plugin_branch_is_behind(build_app, app_config, database_at):
    """The core at its head is not enough: the sequence-file plugin's branch is missing."""
    database = database_at("obs_plugin_behind", "seqcore@head")
    app = build_app(None, **database)
    res = app.get("/-/ready", status=503)
    assert res.json["failed"] == ["migrations"]
    migrate(app_config, database)
    app.get("/-/ready", status=200)
