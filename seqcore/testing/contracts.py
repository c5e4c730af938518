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
