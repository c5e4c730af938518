import pytest

from seqcore.testing.contracts import FileKindContract
from seqcore.testing.uploads import fastq, gz, hdf5, multipart, parameters
from seqcore.testing.workers import Worker

HDF5 = hdf5()


class TestFast5Contract(FileKindContract):
    """The rel, media type and good files come from the kind's declaration."""

    segment = "fast5"

    def bad_content(self):
        return b"@read\nACGT\n+\nIIII\n"  # FASTQ, not FAST5


@pytest.mark.parametrize(("name", "content", "kind"), [
    ("reads.fast5", HDF5, "SINGLE"),
    ("reads.tar.gz", gz(HDF5), "ZIPPED"),
])
def test_fast5_type_from_content(testapp, factories, app_config, name, content, kind):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    headers = factories.headers(owner)
    body, content_type = multipart([("file", f"/data/{name}", content, None), parameters()])
    res = testapp.post(f"/api/samples/{sample.id}/fast5", body,
                       headers={**headers, "Content-Type": content_type}, status=201)
    assert res.json["resource"]["fileName"] == name
    listed = testapp.get(f"/api/samples/{sample.id}/fast5", headers=headers).json["resource"]
    (entry,) = listed["resources"]
    assert entry["fast5Type"] == kind
    assert entry["file"]["fileName"] == name
    Worker(app_config.registry).run_until_idle()
    entry = testapp.get(entry["links"][0]["href"], headers=headers).json["resource"]
    assert entry["processingState"] == "FINISHED"
    file_url = res.headers["Location"].replace("http://localhost", "")
    testapp.get(file_url + "/qc", headers=headers, status=404)  # no FASTQ QC for FAST5
    got = testapp.get(file_url, headers={**headers, "Accept": "application/octet-stream"})
    assert got.body == content


def test_empty_fast5_is_refused(testapp, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    body, content_type = multipart([("file", "reads.fast5", b"", None)])
    res = testapp.post(f"/api/samples/{sample.id}/fast5", body,
                       headers={**factories.headers(owner), "Content-Type": content_type},
                       status=400)
    assert "empty" in res.json["message"]


def test_the_kit_builds_fast5_objects_from_the_declaration(testapp, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    obj = factories.sequencing_object(sample, "fast5")
    listed = testapp.get(f"/api/samples/{sample.id}/fast5",
                         headers=factories.headers(owner)).json["resource"]
    (entry,) = listed["resources"]
    assert entry["identifier"] == str(obj.id)
    assert entry["fast5Type"] == "SINGLE" and entry["file"]["fileName"] == "reads.fast5"


@pytest.mark.parametrize(("content", "problem"), [
    (fastq(), "this is not FAST5: it is neither HDF5 nor a gzip archive."),
    (b"something else", "this is not FAST5: it is neither HDF5 nor a gzip archive."),
    (b"\x89HDF\r\n\x1a\n" + bytes(4096),
     "this is not FAST5: the HDF5 superblock is damaged (impossible sizes of offsets and "
     "lengths)."),
    (b"\x89HDF\r\n\x1a\n\x07" + bytes(64),
     "this is not FAST5: the HDF5 superblock has an unknown version (7)."),
    (hdf5(bytes(100))[:-50],
     "this is not FAST5: the HDF5 superblock says the file holds 156 bytes, but it "
     "holds 106."),
])
def test_what_is_not_fast5_is_refused(testapp, factories, app_config, content, problem):
    """A FASTQ named .fast5, an HDF5 signature followed by zeros, an unknown superblock or
    a truncated file: 400 naming the problem, nothing stored."""
    from seqcore.testing.contracts import stored_files

    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    body, content_type = multipart([("file", "reads.fast5", content, None), parameters()])
    res = testapp.post(f"/api/samples/{sample.id}/fast5", body,
                       headers={**factories.headers(owner), "Content-Type": content_type},
                       status=400)
    assert problem in res.json["message"]
    listed = testapp.get(f"/api/samples/{sample.id}/fast5", headers=factories.headers(owner))
    assert listed.json["resource"]["resources"] == []
    assert stored_files(app_config.get_settings()["seqcore.storage.path"]) == []
