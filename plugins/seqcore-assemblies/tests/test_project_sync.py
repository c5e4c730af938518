"""IRIDA's project synchronisation, played against seqcore as the remote IRIDA (issue 18).

:class:`SyncClient` makes the requests IRIDA 24.12's ``ProjectSynchronizationService`` makes,
in its order, following links as it does: the project, its ``project/hash`` (equal to the
last one seen: stop), the project's samples, the metadata of each sample that is new or whose
fields changed, then for every sample its pairs, unpaired files, FAST5 objects and assemblies
(each listing skipped when the sample has no such link, as IRIDA skips a remote without it),
downloading only what it has not mirrored yet. This suite loads the sequence-file kinds and
the assemblies plugin, so all of it is exercised.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from seqcore.testing.uploads import fasta, fastq, multipart
from seqcore.testing.workers import Worker

HOST = "http://localhost"


def links(body: dict[str, Any]) -> dict[str, str]:
    return {link["rel"]: link["href"] for link in body["links"]}


def fields(body: dict[str, Any]) -> dict[str, Any]:
    """What IRIDA's ``checkForChanges`` compares: the record without its links."""
    return {key: value for key, value in body.items() if key != "links"}


class SyncClient:
    """A local IRIDA mirroring one remote project; ``log`` is every request it made."""

    def __init__(self, testapp: Any, headers: dict[str, str]) -> None:
        self.testapp = testapp
        self.headers = headers
        self.log: list[str] = []
        self.project_hash: int | None = None
        self.project: dict[str, Any] = {}
        # Mirrored samples by their remote URL: fields, metadata, and what was downloaded.
        self.samples: dict[str, dict[str, Any]] = {}

    def get(self, href: str, accept: str = "application/json") -> Any:
        path = href.removeprefix(HOST)
        self.log.append(path if accept == "application/json" else f"{path} [{accept}]")
        return self.testapp.get(path, headers={**self.headers, "Accept": accept})

    def sync(self, project_url: str) -> None:
        project = self.get(project_url).json["resource"]
        remote_hash = self.get(links(project)["project/hash"]).json["resource"]["projectHash"]
        if remote_hash == self.project_hash:
            return  # "No changes to project. Skipping"
        self.project = fields(project)
        listed = self.get(links(project)["project/samples"]).json["resource"]["resources"]
        remote = {links(sample)["self"]: sample for sample in listed}
        for gone in set(self.samples) - set(remote):
            del self.samples[gone]
        for url, sample in remote.items():
            self.sync_sample(url, sample)
        self.project_hash = remote_hash

    def sync_sample(self, url: str, sample: dict[str, Any]) -> None:
        local = self.samples.get(url)
        if local is None or local["fields"] != fields(sample):
            metadata = self.get(links(sample)["sample/metadata"]).json["resource"]["metadata"]
            local = self.samples[url] = {
                "fields": fields(sample), "metadata": metadata,
                "objects": (local or {}).get("objects", {}),
                "assemblies": (local or {}).get("assemblies", {})}
        sample_links = links(sample)
        for rel in ("sample/sequenceFiles/pairs", "sample/sequenceFiles/unpaired",
                    "sample/sequenceFiles/fast5"):
            if rel not in sample_links:
                continue  # that kind is not served there: IRIDA warns and goes on
            for obj in self.get(sample_links[rel]).json["resource"]["resources"]:
                obj_url = links(obj)["self"]
                if obj_url not in local["objects"]:
                    local["objects"][obj_url] = [self.download(f, "application/fastq")
                                                 for f in files_of(obj)]
        if "sample/assemblies" in sample_links:
            listed = self.get(sample_links["sample/assemblies"]).json["resource"]["resources"]
            for assembly in listed:
                assembly_url = links(assembly)["self"]
                if assembly_url not in local["assemblies"]:
                    local["assemblies"][assembly_url] = self.download(assembly,
                                                                      "application/fasta")

    def download(self, record: dict[str, Any], media_type: str) -> tuple[str, str]:
        content = self.get(links(record)["self"], accept=media_type).body
        return record["fileName"], hashlib.sha256(content).hexdigest()


def files_of(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The file records of a sequencing object as IRIDA reads them: a pair's ``files``, an
    unpaired object's ``sequenceFile``, a FAST5 object's ``file``."""
    if "files" in obj:
        return obj["files"]
    if "sequenceFile" in obj:
        return [obj["sequenceFile"]]
    return [obj["file"]]


def sha(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def upload(testapp, path, headers, parts):
    body, content_type = multipart(parts)
    return testapp.post(path, body, headers={**headers, "Content-Type": content_type},
                        status=201).json["resource"]


@pytest.fixture
def remote(testapp, factories, app_config):
    """A project on the remote seqcore: sample A with a pair and a single-end file, sample B
    with metadata and an assembly; the worker has processed the files."""
    owner = factories.user()
    headers = factories.headers(owner)
    project = factories.project(owner=owner, name="Remote project")
    sample_a = factories.sample(project, name="isolate-A")
    sample_b = factories.sample(project, name="isolate-B", metadata={"serovar": "Enteritidis"})
    content = {"a_R1.fastq": fastq(seed=1), "a_R2.fastq": fastq(seed=2),
               "single.fastq": fastq(seed=3), "b.fasta": fasta(seed=4)}
    upload(testapp, f"/api/samples/{sample_a.id}/pairs", headers,
           [("file1", "a_R1.fastq", content["a_R1.fastq"], None),
            ("file2", "a_R2.fastq", content["a_R2.fastq"], None)])
    upload(testapp, f"/api/samples/{sample_a.id}/unpaired", headers,
           [("file", "single.fastq", content["single.fastq"], None)])
    upload(testapp, f"/api/samples/{sample_b.id}/assemblies", headers,
           [("file", "b.fasta", content["b.fasta"], None)])
    Worker(app_config.registry).run_until_idle()
    # The synchronising account is a member of the project (IRIDA syncs as a reader).
    reader = factories.user()
    testapp.post_json(f"/api/projects/{project.id}/users", {"userId": reader.username},
                      headers=headers, status=201)
    return {"project": project, "a": sample_a, "b": sample_b, "headers": headers,
            "reader": factories.headers(reader), "content": content}


def test_sync_fetches_everything_then_changes_then_nothing(testapp, app_config, factories,
                                                           remote):
    project, a, b = remote["project"], remote["a"], remote["b"]
    client = SyncClient(testapp, remote["reader"])
    project_url = f"/api/projects/{project.id}"

    # 1. First sync: everything.
    client.sync(project_url)
    pairs_a = testapp.get(f"/api/samples/{a.id}/pairs",
                          headers=remote["reader"]).json["resource"]["resources"]
    (pair,) = pairs_a
    pair_files = [f"{links(f)['self'].removeprefix(HOST)} [application/fastq]"
                  for f in pair["files"]]
    (single,) = testapp.get(f"/api/samples/{a.id}/unpaired",
                            headers=remote["reader"]).json["resource"]["resources"]
    (assembly,) = testapp.get(f"/api/samples/{b.id}/assemblies",
                              headers=remote["reader"]).json["resource"]["resources"]
    listings = {sid: [f"/api/samples/{sid}/pairs", f"/api/samples/{sid}/unpaired",
                      f"/api/samples/{sid}/assemblies"] for sid in (a.id, b.id)}
    assert client.log == [
        project_url, f"{project_url}/hash", f"{project_url}/samples",
        f"/api/samples/{a.id}/metadata", f"/api/samples/{a.id}/pairs", *pair_files,
        f"/api/samples/{a.id}/unpaired",
        f"{links(single['sequenceFile'])['self'].removeprefix(HOST)} [application/fastq]",
        f"/api/samples/{a.id}/assemblies",
        f"/api/samples/{b.id}/metadata", *listings[b.id],
        f"{links(assembly)['self'].removeprefix(HOST)} [application/fasta]",
    ]
    content = remote["content"]
    mirrored_a = client.samples[f"{HOST}/api/samples/{a.id}"]
    assert sorted(f for files in mirrored_a["objects"].values() for f in files) == sorted(
        (name, sha(content[name])) for name in ("a_R1.fastq", "a_R2.fastq", "single.fastq"))
    mirrored_b = client.samples[f"{HOST}/api/samples/{b.id}"]
    assert mirrored_b["metadata"] == {"serovar": {"value": "Enteritidis", "type": "text"}}
    assert list(mirrored_b["assemblies"].values()) == [("b.fasta", sha(content["b.fasta"]))]
    first_hash = client.project_hash

    # 2. A change to sample B's metadata and a new assembly of sample A: the hash differs,
    # B's metadata is fetched again (its fields changed), A's is not, and only the new
    # assembly is downloaded.
    testapp.put_json(f"/api/samples/{b.id}/metadata",
                     {"mlst": {"value": "ST-11", "type": "text"}}, headers=remote["headers"])
    new_assembly = upload(testapp, f"/api/samples/{a.id}/assemblies", remote["headers"],
                          [("file", "a.fasta", fasta(seed=9), None)])
    Worker(app_config.registry).run_until_idle()
    client.log.clear()
    client.sync(project_url)
    assert client.project_hash != first_hash
    assert client.log == [
        project_url, f"{project_url}/hash", f"{project_url}/samples",
        *listings[a.id],
        f"{links(new_assembly)['self'].removeprefix(HOST)} [application/fasta]",
        f"/api/samples/{b.id}/metadata", *listings[b.id],
    ]
    assert client.samples[f"{HOST}/api/samples/{b.id}"]["metadata"] == {
        "serovar": {"value": "Enteritidis", "type": "text"},
        "mlst": {"value": "ST-11", "type": "text"}}
    assert ("a.fasta", sha(fasta(seed=9))) in client.samples[
        f"{HOST}/api/samples/{a.id}"]["assemblies"].values()
    second_hash = client.project_hash

    # 3. Nothing changed here (reads, an idle worker, another project's changes): the hash is
    # the same and the client fetches nothing beyond the project and its hash.
    other = factories.project(owner=None, name="Unrelated project")
    factories.sample(other, metadata={"x": "y"})
    Worker(app_config.registry).run_until_idle()
    client.log.clear()
    client.sync(project_url)
    assert client.log == [project_url, f"{project_url}/hash"]
    assert client.project_hash == second_hash


def test_an_assembly_changes_the_hash(testapp, remote):
    """Assemblies are part of the hash because the plugin attaches them to samples."""
    url = f"/api/projects/{remote['project'].id}/hash"
    before = testapp.get(url, headers=remote["reader"]).json["resource"]["projectHash"]
    upload(testapp, f"/api/samples/{remote['b'].id}/assemblies", remote["headers"],
           [("file", "again.fasta", fasta(seed=12), None)])
    after = testapp.get(url, headers=remote["reader"]).json["resource"]["projectHash"]
    assert after != before
    assert testapp.get(url, headers=remote["reader"]).json["resource"]["projectHash"] == after
