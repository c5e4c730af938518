"""Services are registered against interfaces, found by plugins with request.find_service
and by workers with registry_service, and swapped through the test kit."""

import pytest
from webtest import TestApp

from seqcore.analysis.executors import LocalExecutor
from seqcore.framework.links import LinkService
from seqcore.qc import FastQCCompatibleEngine
from seqcore.services import (
    IAnalysisRegistry,
    IDatabaseEngine,
    IExecutor,
    ILinkService,
    IQCEngine,
    ISessionFactory,
    IStorage,
    registry_service,
)
from seqcore.storage.service import Storage
from seqcore.testing.services import replace_service
from tests.plugins import storage_probe


class NamedEngine:
    label = "a swapped engine"

    def run(self, path):
        raise AssertionError("not run in this test")


def test_every_core_service_is_found_by_its_interface(app, app_config, seqcore_settings):
    registry = app_config.registry
    storage = registry_service(registry, IStorage)
    assert isinstance(storage, Storage)
    assert str(storage.root) == str(seqcore_settings["seqcore.storage.path"])
    assert isinstance(registry_service(registry, IQCEngine), FastQCCompatibleEngine)
    assert isinstance(registry_service(registry, ILinkService), LinkService)
    assert registry_service(registry, IAnalysisRegistry).type("readcount") is not None
    engine = registry_service(registry, IDatabaseEngine)
    assert registry_service(registry, ISessionFactory).kw["bind"] is engine


def test_executors_are_named_services_built_per_lookup(app, app_config):
    first = registry_service(app_config.registry, IExecutor, name="local")
    second = registry_service(app_config.registry, IExecutor, name="local")
    assert isinstance(first, LocalExecutor) and first is not second
    with pytest.raises(LookupError, match="IExecutor named 'nowhere'"):
        registry_service(app_config.registry, IExecutor, name="nowhere")


def test_a_plugin_finds_services_through_the_request(build_app, factories, swap_service,
                                                     seqcore_settings, seqcore_plugins):
    app = build_app([*seqcore_plugins, storage_probe])
    headers = factories.headers(factories.user())
    body = app.get("/api/storage-probe", headers=headers).json["resource"]
    assert body["storageRoot"] == str(seqcore_settings["seqcore.storage.path"])
    assert body["qcEngine"] == "seqcore QC engine (FastQC-compatible)"

    restore = replace_service(app, IQCEngine, NamedEngine())
    assert app.get("/api/storage-probe", headers=headers).json["resource"][
        "qcEngine"] == "a swapped engine"
    restore()
    assert app.get("/api/storage-probe", headers=headers).json["resource"][
        "qcEngine"] == "seqcore QC engine (FastQC-compatible)"


def test_swap_service_replaces_for_one_test(app_config, swap_service):
    engine = swap_service(IQCEngine, NamedEngine())
    assert registry_service(app_config.registry, IQCEngine) is engine


def test_the_previous_test_swap_was_undone(app, app_config):
    assert isinstance(registry_service(app_config.registry, IQCEngine), FastQCCompatibleEngine)


def test_swapping_a_service_nobody_registered_is_refused(app, app_config):
    from zope.interface import Interface

    class INothing(Interface):
        pass

    with pytest.raises(LookupError, match="INothing"):
        replace_service(app_config, INothing, object())


def test_links_render_from_the_link_service(testapp, factories, app_config):
    headers = factories.headers(factories.user())
    links = testapp.get("/api", headers=headers).json["resource"]["links"]
    assert {"rel": "self", "href": "http://localhost/api"} in links
    assert registry_service(app_config.registry, ILinkService).specs_for(type(None)) == []


def test_a_service_is_not_found_before_the_configuration_commits(seqcore_settings,
                                                                database_url, engine):
    from seqcore.config import configure

    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine}, plugins=[])
    with pytest.raises(LookupError, match=r"IStorage .*not committed"):
        registry_service(config.registry, IStorage)
    TestApp(config.make_wsgi_app())
    assert isinstance(registry_service(config.registry, IStorage), Storage)
