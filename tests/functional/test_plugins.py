"""The plugin host: contributions through hooks, conflicts, blocking, introspection."""

from dataclasses import replace

import pytest
from pyramid.exceptions import ConfigurationConflictError, ConfigurationError
from webtest import TestApp

import seqcore_sequencefiles.plugin as sequencefiles_plugin
from seqcore import hookimpl
from seqcore.config import configure
from seqcore.framework.contrib import AnalysisType, OutputRel
from seqcore.models.project import Project
from seqcore.models.user import SystemRole
from tests.plugins import (
    bad_declaration,
    claims_path,
    claims_rel_a,
    claims_rel_b,
    greeting,
)


@pytest.fixture
def build(seqcore_settings, database_url, engine):
    def build(plugins, **settings):
        return configure({**seqcore_settings, "sqlalchemy.url": database_url,
                          "seqcore.engine": engine, **settings}, plugins=plugins)
    return build


def test_plugin_contributes_route_and_link(build, factories):
    app = TestApp(build([greeting]).make_wsgi_app())
    headers = factories.headers(factories.user())
    root = app.get("/api", headers=headers).json["resource"]
    links = {link["rel"]: link["href"] for link in root["links"]}
    assert links["greetings"] == "http://localhost/api/greetings"
    body = app.get("/api/greetings", headers=headers).json["resource"]
    assert body["greeting"] == "hello"
    assert body["links"] == [{"rel": "self", "href": "http://localhost/api/greetings"}]
    # The plugin's route obeys the same rules as the core's.
    app.get("/api/greetings", status=401)
    app.delete("/api/greetings", headers=headers, status=405)


def test_a_failed_request_writes_nothing(build, factories, db):
    app = TestApp(build([greeting]).make_wsgi_app())
    headers = factories.headers(factories.user())
    res = app.post("/api/greetings", headers=headers, status=400)
    assert res.json == {"message": "rejected after writing"}
    assert db.query(Project).count() == 0


def test_two_plugins_claiming_one_rel_fail_naming_both(build):
    with pytest.raises(ConfigurationConflictError) as err:
        build([claims_rel_a, claims_rel_b]).make_wsgi_app()
    message = str(err.value)
    assert "tests.plugins.claims_rel_a" in message
    assert "tests.plugins.claims_rel_b" in message
    assert "shared/rel" in message


def test_two_plugins_claiming_one_path_fail_naming_both(build):
    with pytest.raises(ConfigurationConflictError) as err:
        build([greeting, claims_path]).make_wsgi_app()
    assert "tests.plugins.greeting" in str(err.value)
    assert "tests.plugins.claims_path" in str(err.value)


def test_plugin_cannot_claim_a_core_rel(build):
    from seqcore import hookimpl
    from seqcore.framework.contrib import LinkSpec
    from seqcore.framework.links import api_href
    from seqcore.resources.root import ApiRoot

    class Hijacker:
        __name__ = "hijacker"

        @hookimpl
        def register_links(self):
            return [LinkSpec(ApiRoot, "projects", api_href("elsewhere"))]

    with pytest.raises(ConfigurationConflictError) as err:
        build([Hijacker()]).make_wsgi_app()
    assert "hijacker" in str(err.value) and "seqcore.framework.core_plugin" in str(err.value)


def test_wrong_declarations_are_refused(build):
    with pytest.raises(ConfigurationError, match="expected LinkSpec"):
        build([bad_declaration])


class _Declares:
    """A plugin object whose declarations the test chooses."""

    def __init__(self, types=(), rels=()):
        self.types, self.rels = list(types), list(rels)

    @hookimpl
    def register_analysis_types(self):
        return self.types

    @hookimpl
    def register_output_rels(self):
        return self.rels


def test_an_output_rel_naming_no_type_stops_start_up(build):
    plugin = _Declares(rels=[OutputRel("no-such-type", "outputFile/x", "x", "x.txt")])
    with pytest.raises(ConfigurationError,
                       match="output rel 'outputFile/x' names analysis type 'no-such-type'"):
        build([sequencefiles_plugin, plugin]).commit()


def test_a_pipeline_that_does_not_import_stops_start_up(build):
    broken = AnalysisType(name="broken", label="Broken", workflow_id="broken-1",
                          pipeline="tests.plugins.no_such_module:run")
    with pytest.raises(ConfigurationError, match=r"analysis type 'broken': pipeline "
                       "'tests.plugins.no_such_module:run' does not load: "
                       "ModuleNotFoundError"):
        build([sequencefiles_plugin, _Declares(types=[broken])]).commit()
    missing = replace(broken, pipeline="tests.plugins.readcount_pipeline:no_such_function")
    with pytest.raises(ConfigurationError, match="has no function 'no_such_function'"):
        build([sequencefiles_plugin, _Declares(types=[missing])]).commit()


def test_an_input_kind_nobody_registers_stops_start_up(build):
    needs_fast5 = AnalysisType(name="nanopore", label="Nanopore", workflow_id="np-1",
                               pipeline="tests.plugins.readcount_pipeline:count_reads",
                               inputs=("pairs", "fast5"))
    with pytest.raises(ConfigurationError, match=r"analysis type 'nanopore': input kind.s. "
                       "'fast5' are registered by no loaded plugin"):
        build([sequencefiles_plugin, _Declares(types=[needs_fast5])]).commit()


def test_disabled_plugins_do_not_load(build, factories):
    config = build([greeting], **{"seqcore.plugins.disabled": "tests.plugins.greeting"})
    app = TestApp(config.make_wsgi_app())
    headers = factories.headers(factories.user())
    app.get("/api/greetings", headers=headers, status=404)


def test_zero_plugins_serves_the_core(build, factories):
    app = TestApp(build([]).make_wsgi_app())
    admin = factories.user(role=SystemRole.ADMIN)
    headers = factories.headers(admin)
    app.get("/api", headers=headers)
    app.get("/api/users", headers=headers)
    app.post_json("/api/projects", {"name": "Core only"}, headers=headers, status=201)
    app.get("/api/projects", headers=headers)


def test_installed_plugins_load_from_entry_points(build, factories):
    from importlib.metadata import entry_points

    config = build(None)
    app = TestApp(config.make_wsgi_app())
    app.get("/api", headers=factories.headers(factories.user()))
    loaded = {name for name, _ in config.registry.pm.list_name_plugin()}
    assert {ep.name for ep in entry_points(group="seqcore")} <= loaded


def test_admin_lists_plugins_and_versions(build, factories):
    from seqcore import __version__

    app = TestApp(build([greeting]).make_wsgi_app())
    admin = factories.headers(factories.user(role=SystemRole.ADMIN))
    entries = app.get("/api/plugins", headers=admin).json["resource"]["resources"]
    by_name = {e["name"]: e for e in entries}
    assert by_name["seqcore.framework.core_plugin"]["version"] == __version__
    assert "register_rest_endpoints" in by_name["tests.plugins.greeting"]["hooks"]
    app.get("/api/plugins", headers=factories.headers(factories.user()), status=403)


def test_rest_transport_registers_the_core_endpoints_itself(build, factories):
    """The core plugin declares no REST view: the REST transport (``seqcore.rest.views``) is
    a core plugin of its own, so the layers below it import no view."""
    app = TestApp(build([]).make_wsgi_app())
    admin = factories.headers(factories.user(role=SystemRole.ADMIN))
    entries = app.get("/api/plugins", headers=admin).json["resource"]["resources"]
    hooks = {e["name"]: e["hooks"] for e in entries}
    assert hooks["seqcore.rest.views"] == ["register_rest_endpoints"]
    assert "register_rest_endpoints" not in hooks["seqcore.framework.core_plugin"]
    app.get("/api/projects", headers=admin, status=200)


def test_two_kinds_taking_one_attachment_format_fail_naming_both(build):
    """One kind takes attached FASTQ files of each file count (``attachment_format``)."""
    pairs = next(k for k in sequencefiles_plugin.register_file_kinds() if k.name == "pairs")

    class Rival:
        __name__ = "rival"

        @hookimpl
        def register_file_kinds(self):
            return [replace(pairs, name="rival-pairs", path_segment="rivalpairs",
                            collection_rel="sample/sequenceFiles/rivalpairs",
                            default_input=False, input_rel="", default_upload=False)]

    with pytest.raises(ConfigurationConflictError) as err:
        build([sequencefiles_plugin, Rival()]).make_wsgi_app()
    assert "seqcore.file_kind.attachment" in str(err.value)
    assert "rival" in str(err.value)
