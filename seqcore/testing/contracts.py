"""Contract suites a plugin's tests subclass; each checks what every plugin of its sort owes
its users, through HTTP against the real application."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

import pytest

from seqcore.framework.contrib import FileKind
from seqcore.services import IDatabaseEngine, registry_service
from seqcore.testing.analyses import upload_parts
from seqcore.testing.uploads import multipart


def stored_files(storage_root: str | Path) -> list[Path]:
    """Every file in storage except the temporary area (which must be empty too)."""
    root = Path(storage_root)
    return [p for p in root.rglob("*") if p.is_file()]


class FileKindContract:
    """What every file kind owes, through HTTP: its sample link; upload, listing, reading,
    download of every file byte for byte, and deletion that leaves no stored file; bad
    content (and an empty file) refused with a 4xx that stores nothing, rows or bytes; and
    uploads by sample writers only.

    Set ``segment`` (the kind's URL segment); the rest is read from the kind's declaration
    unless set: ``collection_rel``, ``files`` (files per object), ``media_type`` (the first
    of its ``media_types``), :meth:`good_files` (its ``sample_files``). Implement
    :meth:`bad_content`.
    """

    segment: ClassVar[str]
    collection_rel: ClassVar[str | None] = None
    files: ClassVar[int | None] = None
    media_type: ClassVar[str | None] = None

    def good_files(self) -> list[tuple[str, bytes]]:
        """Valid ``(file name, bytes)`` per file; default: the kind's ``sample_files``."""
        kind = self._kind
        if kind.sample_files is None:
            raise NotImplementedError(f"file kind {kind.name!r} declares no sample_files: "
                                      "implement good_files()")
        return kind.sample_files()

    def bad_content(self) -> bytes | None:
        """Content the kind must refuse, or ``None`` if it accepts any non-empty bytes."""
        raise NotImplementedError

    # -- helpers ----------------------------------------------------------------------------

    @pytest.fixture(autouse=True)
    def _declaration(self, app: Any) -> None:
        kinds = app.registry.get("seqcore.file_kinds", {})
        assert self.segment in kinds, (
            f"no file kind is registered at {self.segment!r} (registered: "
            f"{', '.join(kinds) or 'none'}): is its plugin in seqcore_plugins?")
        self._kind: FileKind = kinds[self.segment]

    @property
    def _files(self) -> int:
        return self.files if self.files is not None else self._kind.files

    @property
    def _rel(self) -> str:
        return self.collection_rel or self._kind.collection_rel

    @property
    def _media_type(self) -> str:
        return self.media_type or self._kind.media_types[0]

    def upload(self, testapp: Any, sample: Any, headers: dict[str, Any],
               files: list[Any] | None = None, status: int | str = 201) -> Any:
        body, content_type = multipart(upload_parts(self._kind, files or self.good_files()))
        return testapp.post(f"/api/samples/{sample.id}/{self.segment}", body,
                            headers={**headers, "Content-Type": content_type}, status=status)

    def _setup(self, factories: Any) -> tuple[Any, Any, dict[str, Any]]:
        owner = factories.user()
        project = factories.project(owner=owner)
        sample = factories.sample(project)
        return owner, sample, factories.headers(owner)

    # -- the contract -----------------------------------------------------------------------

    def test_kind_is_registered_with_its_sample_link(self, testapp: Any, factories: Any
                                                     ) -> None:
        _, sample, headers = self._setup(factories)
        links = testapp.get(f"/api/samples/{sample.id}", headers=headers).json["resource"][
            "links"]
        hrefs = {link["rel"]: link["href"] for link in links}
        assert hrefs[self._rel].endswith(f"/api/samples/{sample.id}/{self.segment}")

    def test_upload_list_read_download_delete(self, testapp: Any, factories: Any,
                                              app_config: Any) -> None:
        _, sample, headers = self._setup(factories)
        res = self.upload(testapp, sample, headers)
        location = res.headers["Location"]
        assert location.startswith(f"http://localhost/api/samples/{sample.id}/{self.segment}/")
        listed = testapp.get(f"/api/samples/{sample.id}/{self.segment}", headers=headers)
        (entry,) = listed.json["resource"]["resources"]
        object_url = entry["links"][0]["href"].replace("http://localhost", "")
        assert testapp.get(object_url, headers=headers).json["resource"] == entry
        files = testapp.get(f"/api/samples/{sample.id}/sequenceFiles", headers=headers)
        file_links = [f["links"][0]["href"] for f in files.json["resource"]["resources"]]
        assert len(file_links) == self._files
        expected = {name: content for name, content in self.good_files()}
        for href in file_links:
            meta = testapp.get(href, headers=headers).json["resource"]
            assert meta["fileName"] in expected
            got = testapp.get(href, headers={**headers, "Accept": self._media_type})
            assert got.body == expected[meta["fileName"]]
            assert got.headers["Content-Length"] == str(len(got.body))
            assert meta["fileName"] in got.headers["Content-Disposition"]
        root = app_config.get_settings()["seqcore.storage.path"]
        assert len(stored_files(root)) >= self._files
        testapp.delete(object_url, headers=headers)
        testapp.get(object_url, headers=headers, status=404)
        assert stored_files(root) == []

    def test_bad_content_leaves_nothing(self, testapp: Any, factories: Any, app_config: Any,
                                        db: Any) -> None:
        _, sample, headers = self._setup(factories)
        files = self.good_files()
        bad = self.bad_content()
        if bad is not None:
            files[0] = (files[0][0], bad)
            res = self.upload(testapp, sample, headers, files, status="*")
            assert res.status_int == 400 and "message" in res.json, (
                f"file kind {self._kind.name!r} answered bad_content() with {res.status}, "
                f"{res.body[:300]!r}: its content_check must raise seqcore.plugin.BadContent"
                "(\"why\") from feed() or finish(), which the core answers with a 400 "
                "{\"message\": \"<file name>: why\"} and nothing stored")
            self._nothing_stored(db, app_config)
        files[0] = (files[0][0], b"")
        res = self.upload(testapp, sample, headers, files, status="*")
        assert res.status_int == 400 and "empty" in res.json.get("message", ""), (
            f"an empty file of kind {self._kind.name!r} was answered with {res.status}, "
            f"{res.body[:300]!r}; the core refuses empty files itself before the kind's "
            "content check: does the kind's prepare() or upload replace the core's?")
        self._nothing_stored(db, app_config)

    def _nothing_stored(self, db: Any, app_config: Any) -> None:
        """No object, no file row, no byte in storage, and no row of the kind's own tables
        left pointing nowhere."""
        from seqcore.models.sequencing import SequenceFile, SequencingObject
        from seqcore.testing.consistency import check_consistency

        root = app_config.get_settings()["seqcore.storage.path"]
        assert db.query(SequencingObject).count() == 0
        assert db.query(SequenceFile).count() == 0
        assert stored_files(root) == []
        report = check_consistency(registry_service(app_config.registry, IDatabaseEngine), root)
        assert not report, report.problems

    def test_only_sample_writers_upload(self, testapp: Any, factories: Any) -> None:
        _, sample, _ = self._setup(factories)
        self.upload(testapp, sample, factories.headers(factories.user()), status=404)
        self.upload(testapp, sample, {}, status=401)


class AnalysisPluginContract:
    """What every analysis type owes: set ``analysis_type`` (its name), ``output_rels``
    (every rel its completed analysis shows), ``aliases`` if any, and ``migration_branch``
    if the plugin ships tables.

    The suite checks registration, links, that outputs appear only once completed and are
    served as text, the plugin's migrations, that the pipeline path imports, and that the
    pipeline, run for real on sample data (uploaded through the API, launched through the
    API, driven on the configured executor), completes with at least one declared output.
    The run is skipped only when a tool the type declares (not optional) is missing.

    A type that declares ``writes_back=True`` must declare its ``write_back`` function too,
    and the run then asks for the write-back (``writeResultsToSamples``): it must complete
    and :meth:`check_write_back` must find what it wrote. By default every name of
    ``written_metadata`` on every analysed sample's metadata, or, when that is empty, at
    least one metadata field on one of them; a type that writes something else (an assembly)
    overrides :meth:`check_write_back`.

    The sample data: one object of ``input_kind`` (default: the type's first input kind)
    per entry of :meth:`sample_data`, each in its own sample; by default one object made
    of the kind's ``sample_files``. ``parameters`` are launch parameters; override
    :meth:`launch_body` for more launch fields (a reference file; its ``parameters`` add to
    the others), ``run_timeout`` for a slow pipeline, ``launch_path`` for a type launched
    at its own endpoint.
    """

    analysis_type: ClassVar[str]
    output_rels: ClassVar[set[str]]
    aliases: ClassVar[tuple[str, ...]] = ()
    migration_branch: ClassVar[str | None] = None
    input_kind: ClassVar[str | None] = None
    parameters: ClassVar[dict[str, Any]] = {}
    run_timeout: ClassVar[float] = 300.0
    launch_path: ClassVar[str | None] = None
    written_metadata: ClassVar[set[str]] = set()

    def check_write_back(self, testapp: Any, headers: dict[str, Any], samples: list[Any],
                         run: Any) -> None:
        """Assert what the write-back left on ``samples`` (models) after ``run`` completed."""
        found = {sample.id: testapp.get(f"/api/samples/{sample.id}/metadata",
                                        headers=headers).json["resource"]["metadata"]
                 for sample in samples}
        if self.written_metadata:
            for sample_id, fields in found.items():
                missing = sorted(self.written_metadata - set(fields))
                assert not missing, (
                    f"after {self.analysis_type}'s write-back sample {sample_id} lacks the "
                    f"metadata {missing} (it has {sorted(fields)}): write_back(ctx) must call "
                    "ctx.metadata(sample_id, {name: value}) for each id of ctx.samples()")
        else:
            assert any(found.values()), (
                f"{self.analysis_type} declares writes_back=True, but its write-back left no "
                "metadata on the analysed samples: write_back(ctx) must call "
                "ctx.metadata(sample_id, {name: value}) for each id of ctx.samples(), or "
                "the contract must override check_write_back() for what it writes instead")

    def sample_data(self, kind: FileKind) -> list[list[tuple[str, bytes]]]:
        """The files of each input object, one object per sample."""
        if kind.sample_files is None:
            raise NotImplementedError(f"file kind {kind.name!r} declares no sample_files: "
                                      "implement sample_data()")
        return [kind.sample_files()]

    def launch_body(self, testapp: Any, headers: dict[str, Any], project: Any, samples: list[Any]
                    ) -> dict[str, Any]:
        """Launch fields besides the inputs and ``parameters`` (default: none)."""
        return {}

    # -- helpers ----------------------------------------------------------------------------

    def _declared(self, app: Any) -> Any:
        from seqcore.analysis.registry import analysis_registry

        declared = analysis_registry(app.registry).type(self.analysis_type)
        assert declared is not None, (
            f"analysis type {self.analysis_type!r} is not registered: is its plugin in "
            "seqcore_plugins?")
        return declared

    def _input_kind(self, app: Any) -> str:
        return self.input_kind or self._declared(app).inputs[0]

    def _world(self, factories: Any, app: Any) -> tuple[Any, Any, dict[str, Any]]:
        owner = factories.user()
        sample = factories.sample(factories.project(owner=owner))
        obj = factories.sequencing_object(sample, self._input_kind(app))
        return owner, obj, factories.headers(owner)

    def test_type_is_listed_with_its_outputs(self, testapp: Any, factories: Any, app: Any
                                             ) -> None:
        _, _, headers = self._world(factories, app)
        listed = testapp.get("/api/analysisTypes", headers=headers).json["resource"]
        types = {t["name"]: t for t in listed["resources"]}
        assert self.analysis_type in types
        declared = {o["rel"] for o in types[self.analysis_type]["outputs"]}
        assert self.output_rels <= declared

    def test_submissions_link_to_the_filter(self, testapp: Any, factories: Any, app: Any
                                            ) -> None:
        _, _, headers = self._world(factories, app)
        links = testapp.get("/api/analysisSubmissions", headers=headers).json["resource"][
            "links"]
        rels = {link["rel"]: link["href"] for link in links}
        for name in (self.analysis_type, *self.aliases):
            href = rels[f"analysisSubmissions/{name}"]
            testapp.get(href, headers=headers)

    def test_analysis_only_when_completed(self, testapp: Any, factories: Any, app: Any
                                          ) -> None:
        owner, pair, headers = self._world(factories, app)
        for state in ("NEW", "RUNNING", "ERROR"):
            sub = factories.submission(owner, [pair], self.analysis_type, state=state)
            body = testapp.get(f"/api/analysisSubmissions/{sub.id}", headers=headers).json
            assert "analysis" not in {link["rel"] for link in body["resource"]["links"]}
            testapp.get(f"/api/analysisSubmissions/{sub.id}/analysis", headers=headers,
                        status=404)

    def test_completed_outputs_are_served_as_text(self, testapp: Any, factories: Any,
                                                  app: Any) -> None:
        from seqcore.analysis.registry import analysis_registry

        owner, pair, headers = self._world(factories, app)
        keys = analysis_registry(app.registry).output_keys(self.analysis_type)
        outputs = {key: (rel.file_name, f"content of {key}\n".encode())
                   for key, rel in keys.items()}
        sub = factories.submission(owner, [pair], self.analysis_type, state="COMPLETED",
                                   outputs=outputs)
        body = testapp.get(f"/api/analysisSubmissions/{sub.id}", headers=headers).json
        analysis_href = {link["rel"]: link["href"] for link in body["resource"]["links"]}[
            "analysis"]
        analysis = testapp.get(analysis_href, headers=headers).json["resource"]
        rels = {link["rel"]: link["href"] for link in analysis["links"]}
        assert self.output_rels <= set(rels)
        by_href = {rel.rel: key for key, rel in keys.items()}
        for rel in self.output_rels:
            got = testapp.get(rels[rel], headers={**headers, "Accept": "text/plain"})
            key = by_href.get(rel)
            if key is not None:
                assert got.body == outputs[key][1]

    def test_migrations_upgrade_and_downgrade(self, app_config: Any, tmp_path: Path) -> None:
        if self.migration_branch is None:
            return
        from sqlalchemy import inspect

        from seqcore.db import get_engine
        from seqcore.db.migrations import downgrade, upgrade

        url = f"sqlite:///{tmp_path / 'contract.sqlite'}"
        settings = {**app_config.get_settings(), "sqlalchemy.url": url}
        pm = app_config.registry.pm
        upgrade(settings, pm)
        engine = get_engine(url)
        before = set(inspect(engine).get_table_names())
        downgrade(settings, pm, f"{self.migration_branch}@base")
        after = set(inspect(engine).get_table_names())
        assert {"user", "project", "sample"} <= after  # core tables untouched
        assert after < before
        upgrade(settings, pm)
        assert set(inspect(engine).get_table_names()) == before
        engine.dispose()

    def test_pipeline_imports(self, app: Any) -> None:
        from seqcore.analysis.pipeline import load_pipeline

        declared = self._declared(app)
        assert declared.pipeline, f"analysis type {declared.name!r} declares no pipeline"
        try:
            function = load_pipeline(declared.pipeline)
        except Exception as err:  # any import-time failure is the plugin's bug
            pytest.fail(f"pipeline {declared.pipeline!r} does not import: "
                        f"{type(err).__name__}: {err}")
        assert callable(function), f"pipeline {declared.pipeline!r} is not callable"

    def test_pipeline_runs_on_sample_data(self, testapp: Any, factories: Any, app: Any,
                                          upload_reads: Any, run_analysis: Any) -> None:
        from seqcore.analysis.readiness import not_ready_message, readiness
        from seqcore.analysis.registry import analysis_registry
        from seqcore.testing.analyses import find_kind

        declared = self._declared(app)
        ready, states = readiness(declared)
        if not ready:
            pytest.skip(not_ready_message(declared, states))
        owner = factories.user()
        project = factories.project(owner=owner)
        headers = factories.headers(owner)
        kind = self._input_kind(app)
        samples, inputs = [], []
        for files in self.sample_data(find_kind(app.registry, kind)):
            sample = factories.sample(project)
            samples.append(sample)
            inputs.append(upload_reads(sample, headers, kind, files))
        body = {"projects": [project.id],
                **self.launch_body(testapp, headers, project, samples)}
        if declared.writes_back:
            assert declared.write_back is not None, (
                f"analysis type {declared.name!r} declares writes_back=True but no write_back "
                "function: give AnalysisType(write_back=...) a function taking a "
                "seqcore.plugin.WriteBack")
            body.setdefault("writeResultsToSamples", True)
        parameters = {**self.parameters, **body.pop("parameters", {})}
        run = run_analysis(self.analysis_type, inputs, headers, parameters,
                           timeout=self.run_timeout, path=self.launch_path, **body)
        hint = ""
        if run.state != "COMPLETED" and (run.error or "").startswith("Could not complete"):
            hint = (" (the pipeline ran; the write-back raised: ctx.samples() returns sample "
                    "ids, ctx.outputs and ctx.output_path(key) the stored outputs by key, "
                    "ctx.metadata(sample_id, values) writes metadata; see WriteBack)")
        assert run.state == "COMPLETED", (
            f"{self.analysis_type} on the sample data ended {run.state}: {run.error}{hint}")
        if body.get("writeResultsToSamples"):
            self.check_write_back(testapp, headers, samples, run)
        rels = {rel.rel for rel in analysis_registry(app.registry).output_rels(declared.name)}
        produced = rels & set(run.outputs)
        assert produced, (f"{self.analysis_type} completed but produced none of its declared "
                          f"outputs ({', '.join(sorted(rels)) or 'none declared'})")
