"""The fuzzer finds its targets in the registry (a plugin's new endpoint is fuzzed without
editing it) and names the root cause of a failure from the server's log."""

from __future__ import annotations

from seqcore.config import configure
from seqcore.testing.fuzzing import Target, discover_targets, request_plan, root_cause
from tests.plugins import greeting


def test_a_plugins_endpoint_is_a_target_with_its_declared_methods(seqcore_settings,
                                                                   database_url, engine):
    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine}, plugins=[greeting])
    config.make_wsgi_app()
    targets = {t.name: t for t in discover_targets(config.registry)}

    assert targets["greeting.list"] == Target("greeting.list", "/api/greetings",
                                              ("GET", "POST", "HEAD"), endpoint=True)
    # Pages and GraphQL are targets too, with every method; static assets are not.
    assert targets["graphql"].graphql and not targets["graphql"].endpoint
    assert "web.sign_in" in targets
    assert not any("static" in name for name in targets)
    plan = request_plan(list(targets.values()))
    greeting_methods = {m for t, m in plan if t is not None and t.name == "greeting.list"}
    assert {"GET", "POST", "HEAD"} < greeting_methods  # and one it does not declare
    assert sum(t is None for t, _ in plan) >= len(plan) // 5  # GraphQL operations


def test_the_root_cause_is_the_innermost_seqcore_frame():
    log = (
        "WARNI [waitress] something unrelated\n"
        "ERROR [seqcore.rest.errors] Unhandled error on GET /api/samples/%C2%B2\n"
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.11/site-packages/pyramid/router.py", line 270, in call\n'
        "    response = self.execution_policy(environ, self)\n"
        '  File "/work/wt/seqcore/resources/samples.py", line 44, in child\n'
        "    sample = self.db.get(Sample, int_key(key))\n"
        '  File "/work/wt/seqcore/resources/base.py", line 46, in int_key\n'
        "    return int(key)\n"
        "ValueError: invalid literal for int() with base 10: '²'\n"
    )
    assert root_cause(log) == ("ValueError: invalid literal for int() with base 10: '²'",
                               "seqcore/resources/base.py:46 (int_key)")


def test_a_failure_outside_seqcore_names_the_library_frame():
    log = (
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.11/site-packages/webob/request.py", line 781, in POST\n'
        "    fs = cgi_FieldStorage(\n"
        '  File "/venv/lib/python3.11/site-packages/webob/compat.py", line 150, in init\n'
        "    raise ValueError('Invalid boundary')\n"
        "ValueError: Invalid boundary in multipart form: b''\n"
    )
    cause, where = root_cause(log)
    assert cause == "ValueError: Invalid boundary in multipart form: b''"
    assert where == "webob/compat.py:150 (init) (no seqcore frame)"
    assert root_cause("no traceback here") == ("no traceback logged", "?")
