"""Contract suites a plugin's tests subclass; each checks what every plugin of its sort owes
its users, through HTTP against the real application."""

from __future__ import annotations

from pathlib import Path
from typing import Any, ClassVar

from seqcore.testing.uploads import multipart, parameters


def stored_files(storage_root: str | Path) -> list[Path]:
    """Every file in storage except the temporary area (which must be empty too)."""
    root = Path(storage_root)
    return [p for p in root.rglob("*") if p.is_file()]


class FileKindContract:
    """What every file kind owes: set ``segment`` (the URL segment), ``collection_rel``,
    ``files`` (how many files an object holds), ``media_type`` (download), and implement
    :meth:`good_files` (valid ``(file name, bytes)`` per file) and :meth:`bad_content`."""

    segment: ClassVar[str]
    collection_rel: ClassVar[str]
    files: ClassVar[int] = 1
    media_type: ClassVar[str] = "application/fastq"

    def good_files(self) -> list[tuple[str, bytes]]:
        raise NotImplementedError

    def bad_content(self) -> bytes | None:
        """Content the kind must refuse, or ``None`` if it accepts any non-empty bytes."""
        raise NotImplementedError

    # -- helpers ----------------------------------------------------------------------------

    def _parts(self, files: list[tuple[str, bytes]]) -> list[tuple[str, str | None, bytes,
                                                                   str | None]]:
        if self.files == 1:
            (name, content), = files
            return [("file", f"/home/lab/run/{name}", content, None), parameters()]
        parts: list[tuple[str, str | None, bytes, str | None]] = [
            (f"file{i}", f"/home/lab/run/{name}", content, None)
            for i, (name, content) in enumerate(files, start=1)]
        parts += [(f"parameters{i}", None, b"{}", "application/json")
                  for i in range(1, self.files + 1)]
        return parts

    def upload(self, testapp: Any, sample: Any, headers: dict, files: list | None = None,
               status: int = 201) -> Any:
        body, content_type = multipart(self._parts(files or self.good_files()))
        return testapp.post(f"/api/samples/{sample.id}/{self.segment}", body,
                            headers={**headers, "Content-Type": content_type}, status=status)

    def _setup(self, factories: Any) -> tuple[Any, Any, dict]:
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
        assert hrefs[self.collection_rel].endswith(f"/api/samples/{sample.id}/{self.segment}")

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
        assert len(file_links) == self.files
        expected = {name: content for name, content in self.good_files()}
        for href in file_links:
            meta = testapp.get(href, headers=headers).json["resource"]
            assert meta["fileName"] in expected
            got = testapp.get(href, headers={**headers, "Accept": self.media_type})
            assert got.body == expected[meta["fileName"]]
            assert got.headers["Content-Length"] == str(len(got.body))
            assert meta["fileName"] in got.headers["Content-Disposition"]
        root = app_config.get_settings()["seqcore.storage.path"]
        assert len(stored_files(root)) >= self.files
        testapp.delete(object_url, headers=headers)
        testapp.get(object_url, headers=headers, status=404)
        assert stored_files(root) == []

    def test_bad_content_leaves_nothing(self, testapp: Any, factories: Any, app_config: Any,
                                        db: Any) -> None:
        from seqcore.models.sequencing import SequenceFile, SequencingObject

        _, sample, headers = self._setup(factories)
        files = self.good_files()
        bad = self.bad_content()
        if bad is not None:
            files[0] = (files[0][0], bad)
            self.upload(testapp, sample, headers, files, status=400)
        files[0] = (files[0][0], b"")
        res = self.upload(testapp, sample, headers, files, status=400)
        assert "empty" in res.json["message"]
        assert db.query(SequencingObject).count() == 0
        assert db.query(SequenceFile).count() == 0
        assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []

    def test_only_sample_writers_upload(self, testapp: Any, factories: Any) -> None:
        _, sample, _ = self._setup(factories)
        self.upload(testapp, sample, factories.headers(factories.user()), status=404)
        self.upload(testapp, sample, {}, status=401)


class AnalysisPluginContract:
    """What every analysis type owes: set ``analysis_type`` (its name), ``output_rels``
    (every rel its completed analysis shows), ``aliases`` if any, and ``migration_branch``
    if the plugin ships tables. The suite checks registration, links, that outputs appear
    only once completed and are served as text, and the plugin's migrations."""

    analysis_type: ClassVar[str]
    output_rels: ClassVar[set[str]]
    aliases: ClassVar[tuple[str, ...]] = ()
    migration_branch: ClassVar[str | None] = None

    def _world(self, factories: Any) -> tuple[Any, Any, dict]:
        owner = factories.user()
        sample = factories.sample(factories.project(owner=owner))
        pair = factories.sequencing_object(sample, "pairs")
        return owner, pair, factories.headers(owner)

    def test_type_is_listed_with_its_outputs(self, testapp: Any, factories: Any) -> None:
        _, _, headers = self._world(factories)
        listed = testapp.get("/api/analysisTypes", headers=headers).json["resource"]
        types = {t["name"]: t for t in listed["resources"]}
        assert self.analysis_type in types
        declared = {o["rel"] for o in types[self.analysis_type]["outputs"]}
        assert self.output_rels <= declared

    def test_submissions_link_to_the_filter(self, testapp: Any, factories: Any) -> None:
        _, _, headers = self._world(factories)
        links = testapp.get("/api/analysisSubmissions", headers=headers).json["resource"][
            "links"]
        rels = {link["rel"]: link["href"] for link in links}
        for name in (self.analysis_type, *self.aliases):
            href = rels[f"analysisSubmissions/{name}"]
            testapp.get(href, headers=headers)

    def test_analysis_only_when_completed(self, testapp: Any, factories: Any) -> None:
        owner, pair, headers = self._world(factories)
        for state in ("NEW", "RUNNING", "ERROR"):
            sub = factories.submission(owner, [pair], self.analysis_type, state=state)
            body = testapp.get(f"/api/analysisSubmissions/{sub.id}", headers=headers).json
            assert "analysis" not in {link["rel"] for link in body["resource"]["links"]}
            testapp.get(f"/api/analysisSubmissions/{sub.id}/analysis", headers=headers,
                        status=404)

    def test_completed_outputs_are_served_as_text(self, testapp: Any, factories: Any,
                                                  app: Any) -> None:
        from seqcore.analysis.registry import analysis_registry

        owner, pair, headers = self._world(factories)
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
