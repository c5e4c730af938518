"""The real IRIDA uploader (``iridauploader==0.9.6`` from PyPI), unchanged, against a real
seqcore server on loopback: directory and MiSeq layouts, single-end, FAST5 and assemblies;
everything read back over REST and compared byte for byte."""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import random
import time
from pathlib import Path

import pytest

from seqcore.testing.server import live_server
from seqcore.testing.uploads import hdf5
from tests.e2e.client_venvs import client_program, run_iridauploader

PASSWORD = "Uploader-pass1!"
ADMIN_PASSWORD = "Admin-pass1!"

# xdist_group: the module's server (accounts and client made by seqcore commands) starts
# once, on one worker, rather than once on each worker the module's tests are spread over.
# Its servers make their own SQLite databases: one run covers both of .ci/run's passes.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("irida_uploader"),
              pytest.mark.database_independent]


def uploader_binary() -> Path:
    """The uploader in a virtualenv of its own (made once; its pins differ from ours)."""
    return client_program("iridauploader==0.9.6", "irida-uploader")


def reads(seed: int, count: int = 40, length: int = 100) -> bytes:
    rng = random.Random(seed)
    lines = []
    for i in range(count):
        seq = "".join(rng.choice("ACGT") for _ in range(length))
        lines.append(f"@r{seed}_{i}\n{seq}\n+\n{'I' * length}\n")
    return "".join(lines).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = live_server(tmp_path_factory.mktemp("server"))
    srv.create_user("admin", ADMIN_PASSWORD, "ROLE_ADMIN")
    srv.create_user("uploader", PASSWORD, "ROLE_SEQUENCER")
    srv.secret = srv.create_client("irida-uploader", "--lenient")
    srv.start()
    srv.admin = srv.token("irida-uploader", srv.secret, "admin", ADMIN_PASSWORD)
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def binary():
    return uploader_binary()


@pytest.fixture
def project(server):
    status, body, _ = server.request("POST", "/api/projects", server.admin,
                                     {"name": f"Uploads {time.monotonic_ns()}"})
    assert status == 201
    return json.loads(body)["resource"]["identifier"]


def run_uploader(binary, server, run_dir: Path, *args: str, parser: str = "directory"):
    return run_iridauploader(binary, run_dir, {
        "client_id": "irida-uploader", "client_secret": server.secret,
        "username": "uploader", "password": PASSWORD, "base_url": f"{server.url}/api/",
        "parser": parser, "readonly": False, "delay": 0, "timeout": 10,
        "minimum_file_size": 0, "http_max_retries": 1, "http_backoff_factor": 0}, *args)


def directory_run(base: Path, project: str, rows: list[tuple[str, str, str]],
                  files: dict[str, bytes]) -> Path:
    run = base / f"run-{time.monotonic_ns()}"
    run.mkdir(parents=True)
    lines = ["[Data]", "Sample_Name,Project_ID,File_Forward,File_Reverse"]
    lines += [f"{name},{project},{fwd},{rev}" for name, fwd, rev in rows]
    (run / "SampleList.csv").write_text("\n".join(lines) + "\n")
    for name, content in files.items():
        (run / name).write_bytes(content)
    return run


def sample_by_name(server, project: str, name: str) -> dict:
    samples = server.get_json(f"/api/projects/{project}/samples", server.admin)
    (sample,) = [s for s in samples["resource"]["resources"] if s["sampleName"] == name]
    return sample


def download(server, href: str, media: str) -> bytes:
    status, body, headers = server.request("GET", href, server.admin, accept=media)
    assert status == 200
    assert int(headers["Content-Length"]) == len(body)
    return body


def runs(server) -> list[dict]:
    return server.get_json("/api/sequencingrun", server.admin)["resource"]["resources"]


def check_ok(result) -> None:
    assert result.returncode == 0, result.stdout + result.stderr


def test_directory_paired_end(binary, server, project, tmp_path):
    files = {"alpha_R1.fastq.gz": gzip.compress(reads(1), mtime=0),
             "alpha_R2.fastq.gz": gzip.compress(reads(2), mtime=0),
             "beta_1.fastq": reads(3), "beta_2.fastq": reads(4)}
    run = directory_run(tmp_path, project, [
        ("alpha-01", "alpha_R1.fastq.gz", "alpha_R2.fastq.gz"),
        ("beta-02", "beta_1.fastq", "beta_2.fastq")], files)
    before = len(runs(server))
    check_ok(run_uploader(binary, server, run))
    status = json.loads((run / "irida_uploader_status.info").read_text())
    assert status["Upload Status"].upper() == "COMPLETE"
    new_runs = runs(server)[before:]
    assert [(r["sequencerType"], r["uploadStatus"], r["layoutType"]) for r in new_runs] == [
        ("directory", "COMPLETE", "PAIRED_END")]
    assert new_runs[0]["identifier"] == str(status["Run ID"])
    for name, fwd, rev in (("alpha-01", "alpha_R1.fastq.gz", "alpha_R2.fastq.gz"),
                           ("beta-02", "beta_1.fastq", "beta_2.fastq")):
        sample = sample_by_name(server, project, name)
        pairs = server.get_json(f"/api/samples/{sample['identifier']}/pairs", server.admin)
        (pair,) = pairs["resource"]["resources"]
        assert pair["forwardSequenceFile"]["fileName"] == fwd
        assert pair["reverseSequenceFile"]["fileName"] == rev
        links = {link["rel"]: link["href"] for link in pair["links"]}
        assert download(server, links["pair/forward"], "application/fastq") == files[fwd]
        assert download(server, links["pair/reverse"], "application/fastq") == files[rev]
        assert pair["forwardSequenceFile"]["uploadSha256"] == hashlib.sha256(
            files[fwd]).hexdigest()

    # Running the same directory again changes nothing: the uploader refuses a completed
    # run, and a forced re-run stores no second copy.
    again = run_uploader(binary, server, run)
    assert again.returncode != 0 or "already" in (again.stdout + again.stderr).lower()
    check_ok(run_uploader(binary, server, run, "-f"))
    sample = sample_by_name(server, project, "alpha-01")
    pairs = server.get_json(f"/api/samples/{sample['identifier']}/pairs", server.admin)
    assert len(pairs["resource"]["resources"]) == 1
    samples = server.get_json(f"/api/projects/{project}/samples", server.admin)
    assert len(samples["resource"]["resources"]) == 2

    # The embedded worker processes the files once the run is COMPLETE.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        pair = server.get_json(f"/api/samples/{sample['identifier']}/pairs", server.admin)[
            "resource"]["resources"][0]
        if pair["processingState"] in ("FINISHED", "ERROR"):
            break
        time.sleep(0.5)
    assert pair["processingState"] == "FINISHED"
    qc = next(link["href"] for link in server.get_json(
        pair["forwardSequenceFile"]["links"][0]["href"], server.admin)["resource"]["links"]
        if link["rel"] == "sequencefile/qc")
    assert server.get_json(qc, server.admin)["resource"]["totalSequences"] == 40


def test_directory_single_end(binary, server, project, tmp_path):
    files = {"gamma_S1_L001_R1_001.fastq": reads(5)}
    run = directory_run(tmp_path, project, [("gamma-03", "gamma_S1_L001_R1_001.fastq", "")],
                        files)
    check_ok(run_uploader(binary, server, run))
    sample = sample_by_name(server, project, "gamma-03")
    unpaired = server.get_json(f"/api/samples/{sample['identifier']}/unpaired", server.admin)
    (obj,) = unpaired["resource"]["resources"]
    assert obj["sequenceFile"]["fileName"] == "gamma_S1_L001_R1_001.fastq"
    href = obj["sequenceFile"]["links"][0]["href"]
    assert download(server, href, "application/fastq") == files["gamma_S1_L001_R1_001.fastq"]
    assert runs(server)[-1]["layoutType"] == "SINGLE_END"


def test_miseq_layout(binary, server, project, tmp_path):
    run = tmp_path / "181012_M01234_0001_000000000-ABCDE"
    calls = run / "Data" / "Intensities" / "BaseCalls"
    calls.mkdir(parents=True)
    (run / "CompletedJobInfo.xml").write_text("<?xml version=\"1.0\"?><JobInfo/>\n")
    (run / "SampleSheet.csv").write_text(
        "[Header]\nIEMFileVersion,4\nInvestigator Name,Jane Doe\nExperiment Name,exp-42\n"
        "Date,10/12/2018\nWorkflow,GenerateFASTQ\nApplication,FASTQ Only\nAssay,Nextera XT\n"
        "Description,seqcore test run\nChemistry,Amplicon\n\n[Reads]\n101\n101\n\n"
        "[Settings]\nReverseComplement,0\n\n[Data]\n"
        "Sample_ID,Sample_Name,Sample_Plate,Sample_Well,I7_Index_ID,index,I5_Index_ID,index2,"
        "Sample_Project,Description\n"
        f"delta-04,delta-04,plate1,A01,N701,TAAGGCGA,S517,GCGTAAGA,{project},first\n"
        f"epsilon-05,epsilon-05,plate1,B01,N702,CGTACTAG,S517,GCGTAAGA,{project},second\n")
    files = {}
    for number, name in ((1, "delta-04"), (2, "epsilon-05")):
        for read in (1, 2):
            file_name = f"{name}_S{number}_L001_R{read}_001.fastq.gz"
            files[file_name] = gzip.compress(reads(10 * number + read), mtime=0)
            (calls / file_name).write_bytes(files[file_name])
    check_ok(run_uploader(binary, server, run, parser="miseq"))
    latest = runs(server)[-1]
    assert (latest["sequencerType"], latest["uploadStatus"]) == ("miseq", "COMPLETE")
    assert latest["experimentName"] == "exp-42" and latest["readLengths"] == "101"
    sample = sample_by_name(server, project, "epsilon-05")
    assert sample["description"] == "second"
    (pair,) = server.get_json(f"/api/samples/{sample['identifier']}/pairs", server.admin)[
        "resource"]["resources"]
    forward = pair["forwardSequenceFile"]["fileName"]
    assert forward == "epsilon-05_S2_L001_R1_001.fastq.gz"
    links = {link["rel"]: link["href"] for link in pair["links"]}
    assert download(server, links["pair/forward"], "application/fastq") == files[forward]
    # The sheet's sample columns arrive as the files' extra properties.
    assert pair["forwardSequenceFile"]["I7_Index_ID"] == "N702"


def test_fast5(binary, server, project, tmp_path):
    content = hdf5(os.urandom(4096))
    run = directory_run(tmp_path, project, [("zeta-06", "zeta.fast5", "")],
                        {"zeta.fast5": content})
    check_ok(run_uploader(binary, server, run, "-u", "fast5"))
    sample = sample_by_name(server, project, "zeta-06")
    fast5 = server.get_json(f"/api/samples/{sample['identifier']}/fast5", server.admin)
    (obj,) = fast5["resource"]["resources"]
    assert (obj["file"]["fileName"], obj["fast5Type"]) == ("zeta.fast5", "SINGLE")
    assert download(server, obj["file"]["links"][0]["href"], "application/octet-stream") == (
        content)


def test_assemblies(binary, server, project, tmp_path):
    rng = random.Random(7)
    content = "".join(f">contig_{i}\n" + "".join(rng.choice("ACGT") for _ in range(300)) + "\n"
                      for i in range(3)).encode()
    run = directory_run(tmp_path, project, [("eta-07", "eta.fasta", "")],
                        {"eta.fasta": content})
    check_ok(run_uploader(binary, server, run, "-u", "assemblies"))
    sample = sample_by_name(server, project, "eta-07")
    assemblies = server.get_json(f"/api/samples/{sample['identifier']}/assemblies",
                                 server.admin)
    (assembly,) = assemblies["resource"]["resources"]
    assert assembly["fileName"] == "eta.fasta"
    assert download(server, assembly["links"][0]["href"], "application/fasta") == content
