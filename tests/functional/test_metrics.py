"""``GET /-/metrics``: the figures move with requests, uploads and analyses; access is
restricted by network and token."""

from prometheus_client.parser import text_string_to_metric_families

from seqcore.models.sequencing import SequencingObject
from seqcore.worker import WorkerLoop

LOCAL = {"REMOTE_ADDR": "127.0.0.1"}


def scrape(app, **environ):
    res = app.get("/-/metrics", extra_environ={**LOCAL, **environ}, status=200)
    assert res.headers["Content-Type"].startswith("text/plain; version=0.0.4")
    samples = {}
    for family in text_string_to_metric_families(res.text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_request_counters_and_latency_move(testapp, factories):
    headers = factories.headers(factories.user())
    before = scrape(testapp)
    for _ in range(3):
        testapp.get("/api/projects", headers=headers, status=200)
    testapp.get("/api/projects", status=401)
    after = scrape(testapp)
    route = "/api/projects"
    assert value(after, "seqcore_http_requests_total", route=route, method="GET",
                 status="200") - value(before, "seqcore_http_requests_total", route=route,
                                       method="GET", status="200") == 3
    assert value(after, "seqcore_http_requests_total", route=route, method="GET",
                 status="401") - value(before, "seqcore_http_requests_total", route=route,
                                       method="GET", status="401") == 1
    assert value(after, "seqcore_http_request_duration_seconds_count", route=route,
                 method="GET") - value(before, "seqcore_http_request_duration_seconds_count",
                                       route=route, method="GET") == 4
    # Paths that match no route share one label: ids in paths never multiply series.
    testapp.get("/no/such/path/12345", status=404)
    assert value(scrape(testapp), "seqcore_http_requests_total", route="unmatched",
                 method="GET", status="404") >= 1


def test_upload_processing_and_analysis_figures_move(testapp, app_config, factories,
                                                     upload_reads, run_analysis, db):
    user = factories.user()
    headers = factories.headers(user)
    sample = factories.sample(factories.project(owner=user))
    before = scrape(testapp)
    uploaded = upload_reads(sample, headers, process=False)
    stored = db.get(SequencingObject, uploaded.id).files
    waiting = scrape(testapp)
    assert value(waiting, "seqcore_upload_files_total") - value(
        before, "seqcore_upload_files_total") == len(stored) == 2
    assert value(waiting, "seqcore_upload_bytes_total") - value(
        before, "seqcore_upload_bytes_total") == sum(f.size for f in stored) > 0
    assert value(waiting, "seqcore_processing_queue_depth", state="UNPROCESSED") == 1
    assert value(waiting, "seqcore_processing_queue_oldest_age_seconds") >= 0

    loop = WorkerLoop(app_config.registry, name="metrics-test-worker")
    loop.run_once()
    processed = scrape(testapp)
    assert value(processed, "seqcore_processing_queue_depth", state="UNPROCESSED") == 0
    assert value(processed, "seqcore_processing_queue_oldest_age_seconds") == 0
    assert value(processed, "seqcore_qc_duration_seconds_count") - value(
        before, "seqcore_qc_duration_seconds_count") == 2
    assert value(processed, "seqcore_processing_duration_seconds_count",
                 outcome="finished") - value(before, "seqcore_processing_duration_seconds_count",
                                             outcome="finished") == 1
    assert value(processed, "seqcore_worker_heartbeat_timestamp_seconds",
                 worker="metrics-test-worker") > 0

    res = run_analysis.launch("readcount", [uploaded], headers)
    launched = scrape(testapp)
    assert value(launched, "seqcore_analyses", state="NEW", type="readcount") == 1
    run = run_analysis.drive(int(res.json["resource"]["identifier"]), headers)
    assert run.state == "COMPLETED"
    done = scrape(testapp)
    assert value(done, "seqcore_analyses", state="NEW", type="readcount") == 0
    assert value(done, "seqcore_analyses", state="COMPLETED", type="readcount") == 1
    assert value(done, "seqcore_analysis_duration_seconds_count", type="readcount",
                 state="COMPLETED") - value(before, "seqcore_analysis_duration_seconds_count",
                                            type="readcount", state="COMPLETED") == 1


def test_a_refused_upload_counts_no_bytes(testapp, factories):
    user = factories.user()
    sample = factories.sample(factories.project(owner=user))
    before = scrape(testapp)
    testapp.post(f"/api/samples/{sample.id}/pairs", b"not multipart",
                 headers={**factories.headers(user), "Content-Type": "text/plain"},
                 status="*")
    after = scrape(testapp)
    assert value(after, "seqcore_upload_bytes_total") == value(before,
                                                               "seqcore_upload_bytes_total")


def test_default_access_is_loopback_only(testapp):
    scrape(testapp, REMOTE_ADDR="127.0.0.1")
    scrape(testapp, REMOTE_ADDR="::1")
    res = testapp.get("/-/metrics", extra_environ={"REMOTE_ADDR": "192.0.2.10"}, status=403)
    assert "seqcore_" not in res.text
    testapp.get("/-/metrics", extra_environ={"REMOTE_ADDR": "192.0.2.10"},
                headers={"Authorization": "Bearer anything"}, status=403)


def test_a_proxy_on_loopback_does_not_make_visitors_local(build_app):
    """Relayed by an untrusted proxy on the same machine: refused; by a trusted proxy, the
    client it names decides."""
    app = build_app(None)
    relayed = {"REMOTE_ADDR": "127.0.0.1", "HTTP_X_FORWARDED_FOR": "192.0.2.10"}
    app.get("/-/metrics", extra_environ=relayed, status=403)
    trusting = build_app(None, **{"seqcore.trusted_proxies": "127.0.0.1"})
    trusting.get("/-/metrics", extra_environ=relayed, status=403)
    trusting.get("/-/metrics", extra_environ={**relayed, "HTTP_X_FORWARDED_FOR": "127.0.0.1"},
                 status=200)


def test_networks_and_token_from_the_settings(build_app):
    app = build_app(None, **{"seqcore.metrics.allow": "10.0.0.0/8",
                             "seqcore.metrics.token": "metrics-token-0123456789"})
    app.get("/-/metrics", extra_environ={"REMOTE_ADDR": "10.1.2.3"}, status=200)
    res = app.get("/-/metrics", extra_environ={"REMOTE_ADDR": "127.0.0.1"}, status=401)
    assert res.headers["WWW-Authenticate"].startswith("Bearer")
    app.get("/-/metrics", extra_environ={"REMOTE_ADDR": "192.0.2.1"},
            headers={"Authorization": "Bearer wrong-token-0123456789"}, status=401)
    ok = app.get("/-/metrics", extra_environ={"REMOTE_ADDR": "192.0.2.1"},
                 headers={"Authorization": "Bearer metrics-token-0123456789"}, status=200)
    assert "seqcore_http_requests_total" in ok.text
    token_only = build_app(None, **{"seqcore.metrics.allow": "",
                                    "seqcore.metrics.token": "metrics-token-0123456789"})
    token_only.get("/-/metrics", extra_environ=LOCAL, status=401)
    token_only.get("/-/metrics", extra_environ=LOCAL,
                   headers={"Authorization": "Bearer metrics-token-0123456789"}, status=200)


def test_a_bad_network_stops_the_start(build_app):
    import pytest
    from pyramid.exceptions import ConfigurationError

    with pytest.raises(ConfigurationError, match=r"seqcore\.metrics\.allow"):
        build_app(None, **{"seqcore.metrics.allow": "10.0.0.0/33"})
