"""``seqcore import irida`` between two live servers on loopback: one plays the IRIDA
install (seqcore's REST dialect), the other is the install the command imports into. The
project copied holds 50 samples with pairs, metadata, an assembly and a completed analysis;
both sides are compared field by field and file by file (SHA-256)."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import time

import pytest

from seqcore.testing import database
from seqcore.testing.server import SEQCORE, live_server
from seqcore.testing.uploads import fasta, fastq, multipart

pytestmark = pytest.mark.slow

PASSWORD = "Import-pass1!"
SAMPLES = 50
# The analysis the project holds is the test suite's read counter; a server on PostgreSQL
# needs a session secret.
SETTINGS = {"seqcore.plugins.modules": "tests.plugins.readcount",
            "seqcore.session.secret": "import-test-secret"}
PROJECT = {"name": "Import source", "projectDescription": "Outbreak 2026, all isolates",
           "organism": "Listeria monocytogenes", "genomeSize": 3000000,
           "minimumCoverage": 20, "maximumCoverage": 400}
SAMPLE_FIELDS = ("sampleName", "description", "organism", "isolate", "strain", "collectedBy",
                 "collectionDate", "geographicLocationName", "isolationSource", "latitude",
                 "longitude")


def upload(srv, token, path, parts):
    body, content_type = multipart(parts)
    import urllib.request

    req = urllib.request.Request(srv.url + path, data=body, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": content_type,
        "Accept": "application/json"})
    with urllib.request.urlopen(req) as res:
        return json.loads(res.read())["resource"]


def post(srv, token, path, body):
    status, answer, _ = srv.request("POST", path, token, body)
    assert status in (200, 201), (path, status, answer[:300])
    return json.loads(answer)["resource"]


def seed(srv, token, name=PROJECT["name"], samples=SAMPLES, big=0, analysis=True,
         prefix="isolate"):
    """A project like the acceptance test's: ``samples`` samples with a pair and metadata
    each, an unpaired file on every tenth, an assembly, a completed analysis; the first
    sample's pair ``big`` reads long (a file long enough to be killed in the middle of)."""
    project = post(srv, token, "/api/projects", {**PROJECT, "name": name})
    pid = project["identifier"]
    post(srv, token, f"/api/projects/{pid}/users", {"userId": "alice", "role": "PROJECT_USER"})
    post(srv, token, f"/api/projects/{pid}/users", {"userId": "bob", "role": "PROJECT_OWNER"})
    ids = []
    for n in range(samples):
        sample = post(srv, token, f"/api/projects/{pid}/samples", {
            "sampleName": f"{prefix}-{n:03d}", "description": f"isolate {n}",
            "organism": "Listeria", "strain": f"ST{n % 7}", "collectedBy": "Lab One",
            "collectionDate": "2026-03-0" + str(1 + n % 9), "latitude": "45.5",
            "longitude": "-73.6", "geographicLocationName": "Canada:Quebec"})
        sid = sample["identifier"]
        ids.append(sid)
        status, answer, _ = srv.request("PUT", f"/api/samples/{sid}/metadata", token, {
            "serotype": {"value": f"1/2{'abc'[n % 3]}"}, "source": {"value": "food"},
            "n": {"value": str(n)}})
        assert status == 200, answer
        reads = big if (n == 0 and big) else 20
        upload(srv, token, f"/api/samples/{sid}/pairs", [
            ("file1", f"{prefix}-{n:03d}_R1.fastq", fastq(reads=reads, seed=2 * n + 1), None),
            ("file2", f"{prefix}-{n:03d}_R2.fastq", fastq(reads=reads, seed=2 * n + 2), None)])
        if n % 10 == 0:
            upload(srv, token, f"/api/samples/{sid}/unpaired", [
                ("file", f"{prefix}-{n:03d}.fastq", fastq(seed=1000 + n), None)])
    if not analysis:
        return pid
    upload(srv, token, f"/api/samples/{ids[0]}/assemblies",
           [("file", "isolate-000.fasta", fasta(seed=5), None)])
    submission = post(srv, token, "/api/analysisSubmissions/analysisType/readcount", {
        "name": "counts", "samples": ids[:3], "projects": [int(pid)],
        "parameters": {"min_length": 10}})
    deadline = time.monotonic() + 90
    while True:
        state = srv.get_json(f"/api/analysisSubmissions/{submission['identifier']}",
                             token)["resource"]["analysisState"]
        if state in ("COMPLETED", "ERROR") or time.monotonic() > deadline:
            break
        time.sleep(0.3)
    assert state == "COMPLETED"
    return pid


@pytest.fixture(scope="module")
def source(tmp_path_factory):
    root = tmp_path_factory.mktemp("source")
    srv = live_server(root / "server", **{
        "sqlalchemy.url": database.test_database_url(root, "import_source"), **SETTINGS})
    srv.create_user("admin", PASSWORD, "ROLE_ADMIN")
    srv.create_user("alice", PASSWORD)
    srv.create_user("bob", PASSWORD)
    srv.secret = srv.create_client("client")
    srv.start()
    srv.admin = srv.token("client", srv.secret, "admin", PASSWORD)
    srv.project = seed(srv, srv.admin)
    yield srv
    srv.stop()


def target_server(tmp_path, name="import_target"):
    srv = live_server(tmp_path / name, **{
        "sqlalchemy.url": database.test_database_url(tmp_path, name), **SETTINGS})
    srv.create_user("owner", PASSWORD, "ROLE_ADMIN")
    srv.create_user("alice", PASSWORD)
    return srv


def graphql(srv, query, variables):
    """A GraphQL request as IRIDA Next's clients send it (Basic e-mail:personal token)."""
    import base64
    import urllib.request

    if not hasattr(srv, "pat"):
        srv.pat = srv.cli("tokens", "create", "admin", "--scope", "api").strip()
    basic = base64.b64encode(f"admin@example.org:{srv.pat}".encode()).decode()
    req = urllib.request.Request(srv.url + "/api/graphql", data=json.dumps(
        {"query": query, "variables": variables}).encode(), headers={
        "Authorization": f"Basic {basic}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        answer = json.loads(res.read())
    assert not answer.get("errors"), answer
    return answer["data"]


def target_url(target):
    return dict(line.split(" = ", 1) for line in target.ini.read_text().splitlines()
                if " = " in line)["sqlalchemy.url"]


def run_import(target, source, *args, check=True):
    done = subprocess.run(
        [*SEQCORE, "-c", str(target.ini), "import", "irida", source.url, "--client-id",
         "client", "--client-secret", source.secret, "--username", "admin", "--password",
         PASSWORD, *args], capture_output=True, text=True, timeout=600, check=False)
    if check:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def by_name(srv, token, pid):
    entries = srv.get_json(f"/api/projects/{pid}/samples", token)["resource"]["resources"]
    return {e["sampleName"]: e for e in entries}


def files_of(srv, token, sid, kind):
    answer = srv.get_json(f"/api/samples/{sid}/{kind}", token)["resource"]["resources"]
    found = []
    for obj in answer:
        for f in obj.get("files") or [obj.get("sequenceFile")]:
            href = next(link["href"] for link in f["links"] if link["rel"] == "self")
            status, body, _ = srv.request("GET", href, token, accept="application/fastq")
            assert status == 200
            found.append((f["fileName"], f["fileSizeBytes"], f["uploadSha256"],
                          hashlib.sha256(body).hexdigest()))
    return sorted(found)


def compare(source, target, token, pid):
    """Every copied field and file equal on both sides."""
    src_token = source.admin
    here = next(p for p in target.get_json("/api/projects", token)["resource"]["resources"]
                if p["name"] == PROJECT["name"])
    for key, value in PROJECT.items():
        assert here[key] == value, key
    users = {u["username"] for u in target.get_json(
        f"/api/projects/{here['identifier']}/users", token)["resource"]["resources"]}
    assert users == {"owner", "alice"}
    theirs, ours = by_name(source, src_token, pid), by_name(target, token, here["identifier"])
    assert sorted(theirs) == sorted(ours) and len(ours) == SAMPLES
    for name, remote in theirs.items():
        local = ours[name]
        for key in SAMPLE_FIELDS:
            assert local[key] == remote[key], (name, key)
        meta = [srv.get_json(f"/api/samples/{s['identifier']}/metadata", t)["resource"]
                for srv, s, t in ((source, remote, src_token), (target, local, token))]
        assert meta[1]["metadata"] == meta[0]["metadata"], name
        assert {p["source"] for p in meta[1]["metadataProvenance"].values()} == {"import"}
        for kind in ("pairs", "unpaired"):
            mine = files_of(target, token, local["identifier"], kind)
            assert mine == files_of(source, src_token, remote["identifier"], kind)
            assert all(sha == got for _, _, sha, got in mine)
    first = (theirs["isolate-000"]["identifier"], ours["isolate-000"]["identifier"])
    assemblies = [srv.get_json(f"/api/samples/{sid}/assemblies", t)["resource"]["resources"]
                  for srv, sid, t in ((source, first[0], src_token), (target, first[1], token))]
    assert [(a["fileName"], a["fileSizeBytes"]) for a in assemblies[1]] == [
        (a["fileName"], a["fileSizeBytes"]) for a in assemblies[0]]
    bodies = []
    for srv, listed, t in ((source, assemblies[0], src_token), (target, assemblies[1], token)):
        href = next(link["href"] for link in listed[0]["links"] if link["rel"] == "self")
        bodies.append(srv.request("GET", href, t, accept="application/fasta")[1])
    assert bodies[0] == bodies[1]
    analyses = [srv.get_json(f"/api/projects/{p}/analyses", t)["resource"]["resources"]
                for srv, p, t in ((source, pid, src_token),
                                  (target, here["identifier"], token))]
    assert len(analyses[1]) == len(analyses[0]) == 1
    subs = [srv.get_json(a[0]["links"][0]["href"], t)["resource"]
            for srv, a, t in ((source, analyses[0], src_token), (target, analyses[1], token))]
    for key in ("name", "analysisType", "workflowId", "inputParameters", "analysisState"):
        assert subs[1][key] == subs[0][key], key
    outputs = []
    for srv, sub, t in ((source, subs[0], src_token), (target, subs[1], token)):
        analysis = srv.get_json(f"/api/analysisSubmissions/{sub['identifier']}/analysis",
                                t)["resource"]
        outputs.append({link["rel"]: srv.request("GET", link["href"], t,
                                                 accept="text/plain")[1]
                        for link in analysis["links"] if link["rel"].startswith("outputFile/")})
    assert outputs[1] == outputs[0] and outputs[0]
    # Its inputs are the copies of its inputs there: one object of each of three samples.
    inputs = [sorted(f["fileName"] for kind in ("pairs", "unpaired") for obj in srv.get_json(
                  f"/api/analysisSubmissions/{s['identifier']}/sequenceFiles/{kind}",
                  t)["resource"]["resources"]
                  for f in obj.get("files") or [obj.get("sequenceFile")])
              for srv, s, t in ((source, subs[0], src_token), (target, subs[1], token))]
    assert inputs[1] == inputs[0] and len(inputs[0]) == 5


def test_a_project_is_copied_whole_then_nothing_more(source, tmp_path):
    target = target_server(tmp_path)
    done = run_import(target, source, "--project", source.project, "--owner", "owner")
    assert "bob" in done.stdout and "maps to no account" in done.stdout
    assert f"{SAMPLES} sample" in done.stdout
    target.start()
    try:
        secret = target.create_client("client")
        token = target.token("client", secret, "owner", PASSWORD)
        compare(source, target, token, source.project)
        again = run_import(target, source, "--project", source.project, "--owner", "owner")
        assert "to copy: nothing" in again.stdout and "copied: nothing new" in again.stdout
        projects = target.get_json("/api/projects", token)["resource"]["resources"]
        assert [p["name"] for p in projects] == [PROJECT["name"]]
    finally:
        target.stop()


def test_a_dry_run_lists_every_problem_and_writes_nothing(source, tmp_path):
    # A sample name IRIDA Next's rule takes and this install's REST rule refuses.
    spaced = graphql(source, 'mutation($p: ID!) { createSample(input: {projectId: $p, name: '
                     '"Outbreak 2026 sample", description: ""}) { sample { id } } }',
                     {"p": f"gid://seqcore/Project/{source.project}"}
                     )["createSample"]["sample"]["id"].rsplit("/", 1)[1]
    target = target_server(tmp_path)
    target.cli("users", "create", "--username", "clash", "--email", "clash@example.org",
               "--password", PASSWORD, "--first-name", "Cl", "--last-name", "Ash",
               "--phone-number", "5550100")
    try:
        done = run_import(target, source, "--project", source.project, "--dry-run")
        out = done.stdout
        assert "Outbreak 2026 sample" in out and "refuses the sample" in out
        assert "member bob" in out
        assert f"{SAMPLES} sample(s)" in out and "analysis submission(s)" in out
        done = run_import(target, source, "--project", source.project, "--owner", "owner",
                          "--strict", check=False)
        assert done.returncode != 0 and "nothing imported" in done.stderr
        from sqlalchemy import create_engine, text

        engine = create_engine(target_url(target))
        with engine.connect() as conn:
            for table in ("project", "sample", "import_map", "import_run", "sequence_file"):
                assert conn.execute(text(f"SELECT count(*) FROM {table}")).scalar() == 0
        engine.dispose()
    finally:
        status, _, _ = source.request(
            "DELETE", f"/api/projects/{source.project}/samples/{spaced}", source.admin)
        assert status == 200


def test_an_import_killed_mid_file_resumes_with_no_partial_file(source, tmp_path):
    src = source
    pid = seed(src, src.admin, name="Resume source", samples=4, big=60_000, analysis=False)
    target = target_server(tmp_path, "resume_target")
    command = [*SEQCORE, "-c", str(target.ini), "import", "irida", src.url, "--project",
               pid, "--owner", "owner", "--token", src.admin]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    tmp = tmp_path / "resume_target" / "storage" / "tmp"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and process.poll() is None:
        if tmp.exists() and any(p.stat().st_size > 0 for p in tmp.glob("upload-*")):
            break
        time.sleep(0.005)
    assert process.poll() is None, "the import ended before a file was half copied"
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    again = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stdout + again.stderr
    target.start()
    try:
        secret = target.create_client("client")
        token = target.token("client", secret, "owner", PASSWORD)
        here = target.get_json("/api/projects", token)["resource"]["resources"]
        assert len(here) == 1
        ours = by_name(target, token, here[0]["identifier"])
        theirs = by_name(src, src.admin, pid)
        assert sorted(ours) == sorted(theirs)
        for name, remote in theirs.items():
            for kind in ("pairs", "unpaired"):
                mine = files_of(target, token, ours[name]["identifier"], kind)
                assert mine == files_of(src, src.admin, remote["identifier"], kind)
    finally:
        target.stop()
    # Every stored file is a recorded one: the half-copied file was never placed.
    storage = tmp_path / "resume_target" / "storage"
    stored = {str(p.relative_to(storage)) for p in storage.rglob("*")
              if p.is_file() and p.parent.name != "tmp"}
    from sqlalchemy import create_engine, text

    engine = create_engine(target_url(target))
    with engine.connect() as conn:
        recorded = set(conn.execute(text("SELECT path FROM sequence_file")).scalars())
    engine.dispose()
    assert stored == recorded


def test_a_file_whose_checksum_differs_costs_only_its_sample(source, tmp_path):
    pid = seed(source, source.admin, name="Tamper source", samples=3, analysis=False,
               prefix="tamper")
    # The stored bytes of one file change behind the source's back: its SHA-256 no longer
    # matches the one the source gives.
    (stored,) = (source.root / "storage").rglob("tamper-001_R2.fastq")
    data = bytearray(stored.read_bytes())
    data[-2:-1] = b"A" if data[-2:-1] != b"A" else b"C"
    stored.write_bytes(bytes(data))
    target = target_server(tmp_path, "tamper_target")
    done = run_import(target, source, "--project", pid, "--owner", "owner", check=False)
    assert done.returncode == 1
    assert "tamper-001" in done.stderr and "SHA-256" in done.stderr, done.stderr
    assert "2 sample" in done.stdout.split("copied:")[1]
    target.start()
    try:
        token = target.token("client", target.create_client("client"), "owner", PASSWORD)
        here = target.get_json("/api/projects", token)["resource"]["resources"]
        assert sorted(by_name(target, token, here[0]["identifier"])) == ["tamper-000",
                                                                         "tamper-002"]
    finally:
        target.stop()
    again = run_import(target, source, "--project", pid, "--owner", "owner", check=False)
    assert again.returncode == 1 and "1 sample(s)" in again.stdout


def put_file(srv, filename, data):
    """IRIDA Next's direct upload: announce, then PUT the bytes; the signed blob id."""
    import urllib.request

    from seqcore.testing.uploads import CREATE_DIRECT_UPLOAD, md5_base64

    upload = graphql(srv, CREATE_DIRECT_UPLOAD, {
        "filename": filename, "contentType": "application/octet-stream",
        "checksum": md5_base64(data), "byteSize": len(data)})["createDirectUpload"]["directUpload"]
    req = urllib.request.Request(upload["url"], data=data, method="PUT",
                                 headers=json.loads(upload["headers"]))
    with urllib.request.urlopen(req) as res:
        assert res.status == 204
    return upload["signedBlobId"]


NEXT_SAMPLES = """query($puid: ID) { project(puid: $puid) { puid name description fullPath
  samples(first: 5) { nodes { puid name description metadata
    attachments(first: 5) { nodes { puid filename byteSize attachmentUrl } } } } } }"""


def test_an_irida_next_install_is_copied_with_its_groups_and_puids(source, tmp_path):
    made = graphql(source, 'mutation { createGroup(input: {name: "Outbreaks", path: '
                           '"outbreaks", description: "every outbreak"}) { group { id puid } } }',
                   {})["createGroup"]["group"]
    sub = graphql(source, 'mutation($g: ID!) { createGroup(input: {name: "Season 2026", '
                          'path: "s2026", description: "", groupId: $g}) { group { id } } }',
                  {"g": made["id"]})["createGroup"]["group"]
    project = graphql(source, 'mutation($g: ID!) { createProject(input: {name: "Listeria '
                              'cluster", description: "one cluster", groupId: $g}) { project '
                              '{ id puid fullPath } } }', {"g": sub["id"]}
                      )["createProject"]["project"]
    for n in range(3):
        sample = graphql(source, 'mutation($p: ID!, $n: String!) { createSample(input: '
                                 '{projectId: $p, name: $n, description: "x"}) { sample { id } } }',
                         {"p": project["id"], "n": f"Cluster sample {n}"}
                         )["createSample"]["sample"]
        graphql(source, 'mutation($s: ID!, $m: JSON!) { updateSampleMetadata(input: '
                        '{sampleId: $s, metadata: $m}) { errors { message } } }',
                {"s": sample["id"], "m": {"st": f"ST{n}", "country": "Canada"}})
        blobs = [put_file(source, f"cs{n}_R{d}.fastq", fastq(seed=50 + 2 * n + d))
                 for d in (1, 2)]
        blobs.append(put_file(source, f"cs{n}-report.txt", b"report %d\n" % n))
        graphql(source, 'mutation($s: ID!, $f: [String!]!) { attachFilesToSample(input: '
                        '{sampleId: $s, files: $f}) { errors { message } } }',
                {"s": sample["id"], "f": blobs})
    target = target_server(tmp_path, "next_target")
    done = subprocess.run(
        [*SEQCORE, "-c", str(target.ini), "import", "irida-next", source.url, "--project",
         project["puid"], "--owner", "owner", "--username", "admin@example.org", "--token",
         source.pat], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 group(s)" in done.stdout and "3 sample(s)" in done.stdout
    target.start()
    try:
        target.pat = target.cli("tokens", "create", "owner", "--scope", "api").strip()
        target_graphql = lambda q, v: graphql_as(target, "owner@example.org", q, v)  # noqa: E731
        groups = target_graphql("{ groups(first: 10) { nodes { puid fullPath description "
                                "parent { puid } } } }", {})["groups"]["nodes"]
        assert {g["fullPath"] for g in groups} == {"outbreaks", "outbreaks/s2026"}
        assert made["puid"] in {g["puid"] for g in groups}
        theirs = graphql(source, NEXT_SAMPLES, {"puid": project["puid"]})["project"]
        ours = target_graphql(NEXT_SAMPLES, {"puid": project["puid"]})["project"]
        assert ours["fullPath"] == "outbreaks/s2026/listeria-cluster"
        assert (ours["name"], ours["description"]) == (theirs["name"], theirs["description"])
        key = lambda s: s["puid"]  # noqa: E731
        for remote, local in zip(sorted(theirs["samples"]["nodes"], key=key),
                                 sorted(ours["samples"]["nodes"], key=key), strict=True):
            for field in ("puid", "name", "description", "metadata"):
                assert local[field] == remote[field], field
            files = []
            for side in (remote, local):
                files.append(sorted(
                    (a["puid"], a["filename"], a["byteSize"], hashlib.sha256(
                        urllib_get(a["attachmentUrl"])).hexdigest())
                    for a in side["attachments"]["nodes"]))
            assert files[0] == files[1] and len(files[0]) == 3
        # Attached FASTQ files that make a pair are a pair here too.
        token = target.token("client", target.create_client("client"), "owner", PASSWORD)
        here = target.get_json("/api/projects", token)["resource"]["resources"][0]
        for sample in by_name(target, token, here["identifier"]).values():
            pairs = target.get_json(f"/api/samples/{sample['identifier']}/pairs", token)
            assert len(pairs["resource"]["resources"]) == 1
        again = subprocess.run(done.args, capture_output=True, text=True, timeout=600)
        assert "to copy: nothing" in again.stdout, again.stdout + again.stderr
    finally:
        target.stop()


def graphql_as(srv, email, query, variables):
    import base64
    import urllib.request

    basic = base64.b64encode(f"{email}:{srv.pat}".encode()).decode()
    req = urllib.request.Request(srv.url + "/api/graphql", data=json.dumps(
        {"query": query, "variables": variables}).encode(), headers={
        "Authorization": f"Basic {basic}", "Content-Type": "application/json"})
    with urllib.request.urlopen(req) as res:
        answer = json.loads(res.read())
    assert not answer.get("errors"), answer
    return answer["data"]


def urllib_get(url):
    import urllib.request

    with urllib.request.urlopen(url) as res:
        return res.read()
