"""Settings are declared once, resolved once at start-up into typed values, and a bad or
missing value stops the start-up naming the setting, the value and where it came from."""

import pytest
from pyramid.exceptions import ConfigurationError

from seqcore import hookimpl
from seqcore.config import configure
from seqcore.framework.contrib import Setting
from seqcore.framework.settings import SettingError, as_bool


@pytest.fixture
def start(seqcore_settings, database_url, engine):
    def start(plugins=(), origin="the settings passed to configure", **settings):
        return configure({**seqcore_settings, "sqlalchemy.url": database_url,
                          "seqcore.engine": engine, **settings}, plugins=list(plugins),
                         origin=origin)
    return start


class Plugin:
    """A plugin declaring settings of each kind."""

    @staticmethod
    @hookimpl
    def register_settings():
        return [Setting("seqcore.probe.retries", 3, "How often the probe retries.", int),
                Setting("seqcore.probe.loud", False, "Whether the probe shouts.", as_bool),
                Setting("seqcore.probe.endpoint", "", "Where the probe reports to.",
                        required=True)]


def test_values_are_typed_once_in_the_registry(start, monkeypatch):
    monkeypatch.setenv("SEQCORE_PROBE_LOUD", "yes")
    settings = start([Plugin], **{"seqcore.graphql.max_depth": "7",
                                  "seqcore.session.secure": "false",
                                  "seqcore.probe.endpoint": "https://probe.example.org",
                                  "seqcore.probe.retries": "5"}).get_settings()
    assert settings["seqcore.graphql.max_depth"] == 7
    assert settings["seqcore.session.secure"] is False
    assert settings["seqcore.probe.retries"] == 5
    assert settings["seqcore.probe.loud"] is True
    assert settings["seqcore.max_body_bytes"] == 16 * 1_048_576  # the declared default


def test_the_environment_overrides_the_ini_file(start, monkeypatch):
    monkeypatch.setenv("SEQCORE_GRAPHQL_MAX_DEPTH", "4")
    settings = start(**{"seqcore.graphql.max_depth": "9"}).get_settings()
    assert settings["seqcore.graphql.max_depth"] == 4


def test_a_bad_ini_value_names_the_setting_value_and_file(start):
    with pytest.raises(SettingError) as caught:
        start(origin="ini file /etc/seqcore/production.ini",
              **{"seqcore.max_body_bytes": "lots"})
    message = str(caught.value)
    assert "'seqcore.max_body_bytes'" in message
    assert "'lots'" in message
    assert "ini file /etc/seqcore/production.ini" in message
    assert "expected int" in message


def test_a_bad_environment_value_names_the_variable(start, monkeypatch):
    monkeypatch.setenv("SEQCORE_SESSION_SECURE", "maybe")
    with pytest.raises(SettingError, match=r"'seqcore.session.secure': bad value 'maybe' from "
                                           r"environment variable SEQCORE_SESSION_SECURE "
                                           r"\(expected boolean"):
        start()


def test_a_bad_plugin_default_names_the_plugin(start):
    class Careless:
        @staticmethod
        @hookimpl
        def register_settings():
            return [Setting("seqcore.careless.count", "many", "A count, badly defaulted.",
                            int)]

    with pytest.raises(SettingError, match=r"'seqcore.careless.count': bad value 'many' from "
                                           r"the default declared by plugin .*Careless"):
        start([Careless])


def test_a_missing_required_setting_stops_the_start_up(start):
    with pytest.raises(SettingError, match=r"'seqcore.probe.endpoint' is required .* "
                                           r"SEQCORE_PROBE_ENDPOINT"):
        start([Plugin])


def test_an_empty_required_core_setting_names_its_source(start, monkeypatch):
    monkeypatch.setenv("SEQCORE_STORAGE_PATH", " ")
    with pytest.raises(SettingError, match=r"'seqcore.storage.path' is required but "
                                           r"environment variable SEQCORE_STORAGE_PATH"):
        start()


def test_a_setting_declared_twice_names_both_owners(start):
    class Again:
        @staticmethod
        @hookimpl
        def register_settings():
            return [Setting("seqcore.max_body_bytes", 10, "The same key again.", int)]

    with pytest.raises(ConfigurationError, match=r"'seqcore.max_body_bytes' is declared "
                                                 r"twice: by seqcore and by plugin"):
        start([Again])


def test_the_ini_file_is_named_when_pastedeploy_starts_the_app(tmp_path, database_url):
    from seqcore.config import main

    ini = tmp_path / "site.ini"
    with pytest.raises(SettingError, match=f"ini file {ini}"):
        main({"__file__": str(ini)}, **{"sqlalchemy.url": database_url,
                                        "seqcore.storage.path": str(tmp_path),
                                        "seqcore.analysis.max_running": "two"})


def test_the_typed_values_take_effect(start, factories):
    from webtest import TestApp

    app = TestApp(start(**{"seqcore.graphql.max_depth": "3"}).make_wsgi_app(),
                  extra_environ={"HTTP_HOST": "localhost"})
    headers = factories.graphql_headers(factories.user())
    body = app.post_json("/api/graphql", {"query": "{ samples { nodes { project { name } } } }"},
                         headers=headers).json
    assert body["errors"][0]["message"] == "Query has depth of 4, which exceeds max depth of 3"


@pytest.mark.parametrize(("text", "value"), [("true", True), ("On", True), ("1", True),
                                             ("no", False), ("0", False), ("", False)])
def test_booleans_read_as_ini_files_spell_them(text, value):
    assert as_bool(text) is value


def test_anything_else_is_not_a_boolean():
    with pytest.raises(ValueError, match="not a boolean"):
        as_bool("maybe")
