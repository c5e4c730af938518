"""Assemblies in data exports: a project with pairs, assemblies (uploaded and written back by
a completed analysis) and that analysis unpacks to exactly its manifest, checksums equal."""

import gzip
import hashlib
import io
import json
import zipfile

from seqcore.testing.uploads import fasta, fastq, multipart
from seqcore.testing.workers import AnalysisWorker, ExportWorker


def test_an_export_with_pairs_assemblies_and_an_analysis(testapp, app_config, factories):
    owner = factories.user()
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    first = factories.sample(project, name="SAL-1", metadata={"serotype": "Typhimurium"})
    second = factories.sample(project, name="SAL-2")
    pair = factories.sequencing_object(first, "pairs", files=[
        ("a_R1.fastq.gz", gzip.compress(fastq(seed=1), 1)),
        ("a_R2.fastq.gz", gzip.compress(fastq(seed=2), 1))])
    contigs = fasta(contigs=3, length=400)
    body, content_type = multipart([("file", "uploaded.fasta", contigs, None)])
    testapp.post(f"/api/samples/{second.id}/assemblies", body,
                 headers={**headers, "Content-Type": content_type}, status=201)
    launched = testapp.post_json("/api/analysisSubmissions/analysisType/fake-assembly",
                                 {"sequencingObjects": [pair.id], "projects": [project.id],
                                  "writeResultsToSamples": True},
                                 headers=headers, status=201).json["resource"]
    AnalysisWorker(app_config.registry).run_until_idle(timeout=60)
    analysis = int(launched["identifier"])

    created = testapp.post_json(f"/api/projects/{project.id}/exports", {
        "samples": [first.id, second.id], "fileKinds": ["pairs", "assemblies"],
        "analyses": [analysis]}, headers=headers, status=201).json["resource"]
    assert ExportWorker(app_config.registry, "w").run_once() == 1
    location = {link["rel"]: link["href"] for link in created["links"]}["self"]
    export = testapp.get(location, headers=headers).json["resource"]
    assert export["state"] == "READY"
    data = testapp.get(location + "/download", headers=headers).body

    manifest = {entry["path"]: entry for entry in export["manifest"]}
    top = f"seqcore-export-{export['identifier']}"
    with zipfile.ZipFile(io.BytesIO(data)) as bundle:
        names = bundle.namelist()
        assert sorted(names) == sorted([*manifest, f"{top}/manifest.json"])
        assert json.loads(bundle.read(f"{top}/manifest.json"))["entries"] == export["manifest"]
        for name, entry in manifest.items():
            content = bundle.read(name)
            assert (len(content), hashlib.sha256(content).hexdigest()) == (
                entry["size"], entry["sha256"])
        kinds = sorted(name.split("/")[3] for name in names if "/samples/" in name)
        # The pair's two files, the uploaded assembly and the one the analysis wrote back.
        assert kinds == ["assemblies", "assemblies", "pairs", "pairs"]
        uploaded = next(name for name in names if name.endswith("/uploaded.fasta"))
        assert uploaded.startswith(f"{top}/samples/{second.puid}_SAL-2/assemblies/")
        assert bundle.read(uploaded) == contigs
        assert bundle.getinfo(uploaded).compress_type == zipfile.ZIP_DEFLATED
        outputs = [name for name in names if "/analyses/" in name]
        assert [name.rsplit("/", 1)[1] for name in outputs] == ["contigs.fasta"]
        assert bundle.read(outputs[0]) == b">contig1\nACGTACGTACGT\n"
        linelist = bundle.read(f"{top}/linelist.csv").decode()
    assert linelist.splitlines()[0] == "SAMPLE ID,SAMPLE NAME,PROJECT ID,serotype"
    assert f"{first.puid},SAL-1,{project.puid},Typhimurium" in linelist
