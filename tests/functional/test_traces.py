"""Traces in process: off unless a setting or the standard variable names a collector (then
no tween, no wrapped storage, no trace context saved with work), on with a request span
carrying the request id and the storage's calls as its children."""

from __future__ import annotations

import pytest
from pyramid.interfaces import ITweens

from seqcore.framework.settings import SettingError
from seqcore.models.sequencing import SequencingObject
from seqcore.observability import tracing
from seqcore.observability.tracehooks import TracedStorage
from seqcore.services import IStorage, registry_service
from seqcore.testing.otlp import OtlpReceiver

TWEEN = "seqcore.observability.tracehooks.trace_tween_factory"


@pytest.fixture(autouse=True)
def traces_off_afterwards(monkeypatch):
    for name in tracing.ENDPOINT_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    yield
    tracing.shutdown()


def tweens(app):
    return [name for name, _ in app.app.registry.getUtility(ITweens).implicit()]


def test_off_by_default(build_app, factories, upload_reads, db):
    app = build_app()
    assert not tracing.enabled() and TWEEN not in tweens(app)
    assert not isinstance(registry_service(app.app.registry, IStorage), TracedStorage)
    with tracing.span("nothing") as span:
        assert span is None and tracing.traceparent() is None and tracing.headers() == {}
    assert tracing.job_settings() is None
    user = factories.user()
    uploaded = upload_reads(factories.sample(factories.project(owner=user)),
                            factories.headers(user), process=False)
    assert db.get(SequencingObject, uploaded.id).trace_context is None


def test_a_request_is_a_span_with_its_request_id(build_app, factories, upload_reads, db):
    with OtlpReceiver() as receiver:
        app = build_app(**{tracing.ENDPOINT: receiver.url})
        assert tracing.enabled() and TWEEN in tweens(app)
        assert isinstance(registry_service(app.app.registry, IStorage), TracedStorage)
        user = factories.user()
        sample = factories.sample(factories.project(owner=user))
        app.get(f"/api/samples/{sample.id}", headers={**factories.headers(user),
                                                      "X-Request-ID": "span-req-1"})
        tracing.flush()
        request = receiver.wait_for(lambda spans: next(
            (s for s in spans if s.attributes.get("seqcore.request_id") == "span-req-1"),
            None))
    assert request.name == "GET /api/samples/{sid}" and request.parent_id == ""
    assert request.attributes["http.response.status_code"] == 200
    assert request.attributes["http.route"] == "/api/samples/{sid}"


def test_an_upload_saves_its_trace_for_the_worker(build_app, factories, upload_reads, db):
    with OtlpReceiver() as receiver:
        build_app(**{tracing.ENDPOINT: receiver.url})
        user = factories.user()
        sample = factories.sample(factories.project(owner=user))
        # upload_reads posts through the session's own app: the request span is this
        # test's, so the object's trace context is that span's.
        with tracing.span("client") as client:
            uploaded = upload_reads(sample, factories.headers(user), process=False)
    db.expire_all()
    saved = db.get(SequencingObject, uploaded.id).trace_context
    assert saved is not None and saved.split("-")[1] == format(
        client.get_span_context().trace_id, "032x")


def test_a_sample_ratio_out_of_range_stops_the_start_up(build_app):
    with pytest.raises(SettingError, match=r"seqcore\.traces\.sample_ratio"):
        build_app(**{tracing.SAMPLE_RATIO: "1.5"})


def test_the_settings_a_job_gets():
    assert tracing.wanted({}, {}) is None
    assert tracing.wanted({}, {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}) == (
        tracing.TraceSettings("", "seqcore", 1.0))
    want = tracing.wanted({tracing.ENDPOINT: "http://c:4318", tracing.SERVICE_NAME: "lab",
                           tracing.SAMPLE_RATIO: 0.5}, {})
    assert want is not None and want.as_dict() == {
        "endpoint": "http://c:4318", "service_name": "lab", "sample_ratio": 0.5}
