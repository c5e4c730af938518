"""The upload-check contract a file kind relies on: the core refuses an empty file for every
kind, before and without any content check, and a check refuses content by raising the public
``BadContent``, answered as a 400 naming the file with nothing kept."""

import pytest
from webtest import TestApp

from seqcore.config import configure
from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.plugin import BadContent, FileKind, hookimpl
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing.analyses import upload_parts
from seqcore.testing.contracts import stored_files
from seqcore.testing.factories import Factories
from seqcore.testing.uploads import multipart


class TabCheck:
    """A check written only from the public API: every line holds a tab."""

    def __init__(self):
        self.data = b""

    def feed(self, data):
        self.data += bytes(data)

    def finish(self):
        if any(b"\t" not in line for line in self.data.splitlines()):
            raise BadContent("this is not a TSV: a line holds no tab.")


class Kinds:
    @hookimpl
    def register_file_kinds(self):
        return [FileKind(name="uncheckedkind", path_segment="uncheckedkind",
                         collection_rel="sample/uncheckedkind", media_types=("text/plain",)),
                FileKind(name="summary", path_segment="summary",
                         collection_rel="sample/summary", media_types=("text/plain",),
                         content_check=lambda settings: TabCheck())]


@pytest.fixture
def site(seqcore_settings, database_url, engine):
    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine}, plugins=[Kinds()])
    testapp = TestApp(config.make_wsgi_app(), extra_environ={"HTTP_HOST": "localhost"})
    kinds = config.registry["seqcore.file_kinds"]
    factories = Factories(registry_service(config.registry, ISessionFactory),
                          config.get_settings(), {k.name: k for k in kinds.values()})
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    session = registry_service(config.registry, ISessionFactory)()

    def upload(segment, content, status):
        body, content_type = multipart(upload_parts(kinds[segment], [("s.tsv", content)]))
        return testapp.post(f"/api/samples/{sample.id}/{segment}", body, status=status,
                            headers={**factories.headers(owner), "Content-Type": content_type})

    def nothing_kept():
        assert session.query(SequencingObject).count() == 0
        assert session.query(SequenceFile).count() == 0
        assert stored_files(config.get_settings()["seqcore.storage.path"]) == []

    yield upload, nothing_kept
    session.close()


@pytest.mark.parametrize("segment", ["uncheckedkind", "summary"])
def test_an_empty_file_is_refused_by_the_core_for_every_kind(site, segment):
    upload, nothing_kept = site
    res = upload(segment, b"", 400)
    assert res.json["message"] == "s.tsv: the file is empty."
    nothing_kept()


def test_a_kind_without_a_check_takes_any_bytes(site):
    upload, _ = site
    upload("uncheckedkind", b"no tabs here\n", 201)


def test_bad_content_raised_by_a_check_is_a_400_naming_the_file(site):
    upload, nothing_kept = site
    res = upload("summary", b"no tabs here\n", 400)
    assert res.json["message"] == "s.tsv: this is not a TSV: a line holds no tab."
    nothing_kept()
    upload("summary", b"a\tb\n", 201)
