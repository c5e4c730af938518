"""A request no plugin takes part in costs the same whatever plugins are installed.

A lab installs seqcore with every first-party plugin; none of them is involved in reading a
project, so ``GET /api/projects/{id}`` must not pay for them (a hook called per request, links
or permissions looked up over every declaration, routes tried that cannot match, something
fixed rebuilt per request). Both applications are built here the way ``bench/plugin_cost.py``
builds them (as deployed: seqcore's PasteDeploy factory, the access log written; entry points
against every one of them blocked; one database migrated with every installed plugin) and
compared:

* exactly, so that this cannot flake and still fails when a per-request cost of plugins comes
  back: no pluggy hook called per request, one route tried, and the same Python calls per
  request apart from building the answer's links (a plugin declaring a link relation for
  projects adds a link; building it costs what any link costs);
* the process's CPU time per request (``time.process_time``), from alternating batches, the
  best batch of each: within 10 %, the best of three measurements, since other programs on a
  shared machine can still disturb one.

The database is the test's own temporary SQLite file (the comparison is of the application,
not of the database), so the module runs once, in CI's SQLite pass.
"""

from __future__ import annotations

import json
import logging

import pytest

from bench.plugin_cost import (
    application,
    calls_per_request,
    cpu_per_request,
    hook_calls_per_request,
    links_in,
    prepare,
    requester,
    routes_tried,
)

pytestmark = pytest.mark.database_independent

PATH = "/api/projects/1"


@pytest.fixture(scope="module")
def apps(tmp_path_factory):
    # The deployed factory sets up the process's logging (the access log, to a file): the
    # test session's own is put back afterwards.
    root, access, ours = (logging.getLogger(name) for name in ("", "seqcore.access", "seqcore"))
    saved = (list(root.handlers), root.level, access.level, ours.level)
    directory = tmp_path_factory.mktemp("plugin-cost")
    url, token = prepare(directory)
    log = directory / "access.log"
    built = {"none": application(url, False, log), "installed": application(url, True, log)}
    try:
        # The first-party plugins are installed (entry points): the comparison means something.
        installed = {name for name, plugin in built["installed"].registry.pm.list_name_plugin()
                     if plugin is not None}
        assert {"sequencefiles", "assemblies", "phylogenomics", "serotyper"} <= installed
        assert not installed & {name for name, plugin
                                in built["none"].registry.pm.list_name_plugin()
                                if plugin is not None and not name.startswith("seqcore.")}
        yield {name: (app, requester(app, PATH, token), log) for name, app in built.items()}
    finally:
        for handler in root.handlers[:]:
            if handler not in saved[0]:
                root.removeHandler(handler)
                handler.close()
        root.setLevel(saved[1])
        access.setLevel(saved[2])
        ours.setLevel(saved[3])


@pytest.fixture(scope="module")
def sends(apps):
    return {name: send for name, (_, send, _) in apps.items()}


def test_the_answer_is_the_same_with_and_without_plugins(apps, sends):
    none = json.loads(sends["none"]())["resource"]
    installed = json.loads(sends["installed"]())["resource"]
    assert none["name"] == installed["name"] == "Project 1"
    # Plugins add links (an analysis type's project rels), nothing else.
    assert {k: v for k, v in none.items() if k != "links"} == \
        {k: v for k, v in installed.items() if k != "links"}
    # Each request wrote its access log line, as a deployed server's does.
    log = apps["none"][2].read_text()
    assert log.count(f"GET {PATH} 200") >= 2


def test_no_hook_is_called_per_request(apps):
    for name, (app, send, _) in apps.items():
        assert hook_calls_per_request(app, send) == 0, name


def test_dispatch_tries_one_route_whatever_the_plugins_add(apps):
    assert {name: routes_tried(app, PATH) for name, (app, _, _) in apps.items()} == \
        {"none": 1, "installed": 1}


def test_python_calls_per_request_do_not_grow_with_the_plugins(sends):
    calls = {name: calls_per_request(send, requests=30) for name, send in sends.items()}
    links = {name: links_in(send()) for name, send in sends.items()}
    besides = {name: c["all"] - c["links"] for name, c in calls.items()}
    # The same work besides the links (1 % for what runs on a timer: a cache refreshed, a
    # token's last use recorded).
    assert besides["installed"] <= 1.01 * besides["none"], (besides, calls)
    # A link costs the same whatever link relations the plugins declared.
    assert links["installed"] >= links["none"]
    per_link = {name: calls[name]["links"] / links[name] for name in calls}
    assert per_link["installed"] <= 1.01 * per_link["none"], (per_link, links)
    assert calls["installed"]["all"] <= 1.10 * calls["none"]["all"], calls


def test_cpu_per_request_does_not_grow_with_the_plugins(sends):
    ratios = []
    for _ in range(3):
        cpu = cpu_per_request(sends, requests=600)
        ratios.append(cpu["installed"]["min"] / cpu["none"]["min"])
        if ratios[-1] <= 1.10:
            break
    assert min(ratios) <= 1.10, ratios
