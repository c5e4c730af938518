"""A request no plugin takes part in costs the same whatever plugins are installed.

A lab installs seqcore with every first-party plugin; none of them is involved in reading a
project, so ``GET /api/projects/{id}`` must not pay for them (a hook called per request, links
or permissions looked up over every declaration, something fixed rebuilt per request). Both
applications are built here the way ``bench/plugin_cost.py`` builds them (entry points
against no plugin at all, one database migrated with every installed plugin) and compared:

* Python function calls per request, counted exactly (the same on any machine): within 10 %;
* the thread's CPU time per request, from alternating batches: within 10 %, the best of three
  measurements, since other programs on a shared machine can still disturb one.

The database is the test's own temporary SQLite file (the comparison is of the application,
not of the database), so the module runs once, in CI's SQLite pass.
"""

from __future__ import annotations

import pytest

from bench.plugin_cost import (
    application,
    calls_per_request,
    cpu_per_request,
    prepare,
    requester,
)

pytestmark = pytest.mark.database_independent

PATH = "/api/projects/1"


@pytest.fixture(scope="module")
def sends(tmp_path_factory):
    url, token = prepare(tmp_path_factory.mktemp("plugin-cost"))
    apps = {"none": application(url, False), "installed": application(url, True)}
    # The first-party plugins are installed (entry points): the comparison means something.
    installed = {name for name, plugin in apps["installed"].registry.pm.list_name_plugin()
                 if plugin is not None}
    assert {"sequencefiles", "assemblies", "phylogenomics", "serotyper"} <= installed
    return {name: requester(app, PATH, token) for name, app in apps.items()}


def test_the_answer_is_the_same_with_and_without_plugins(sends):
    import json

    none = json.loads(sends["none"]())["resource"]
    installed = json.loads(sends["installed"]())["resource"]
    assert none["name"] == installed["name"] == "Project 1"
    # Plugins add links (an analysis type's project rels), nothing else.
    assert {k: v for k, v in none.items() if k != "links"} == \
        {k: v for k, v in installed.items() if k != "links"}


def test_python_calls_per_request_do_not_grow_with_the_plugins(sends):
    calls = {name: calls_per_request(send, requests=30) for name, send in sends.items()}
    assert calls["installed"] <= 1.10 * calls["none"], calls


def test_cpu_per_request_does_not_grow_with_the_plugins(sends):
    ratios = []
    for _ in range(3):
        cpu = cpu_per_request(sends, requests=400)
        ratios.append(cpu["installed"] / cpu["none"])
        if ratios[-1] <= 1.10:
            break
    assert min(ratios) <= 1.10, ratios
