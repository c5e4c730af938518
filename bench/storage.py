"""Object-storage throughput: uploads through seqcore's REST API into an S3 bucket (moto) and an
Azure container (Azurite), downloads through the signed URLs seqcore redirects to, and QC of a
file read from the store, each beside the store's own client in the same run.

For each store, a seqcore server (gunicorn, as production.ini) runs on loopback with the
store as its backend. The gzipped FASTQ pair of ``--gb`` GB (cached under ``var/bench``, as
bench/upload.py makes it) is uploaded as the IRIDA uploader does (one multipart POST to
``/api/samples/{id}/pairs``): seqcore streams it into the store as multipart uploads. The
anchor is the store's own Python client uploading the same two files (boto3's
``upload_file``; azure-storage-blob's ``upload_blob``, both with their default concurrency).
A small pair is uploaded first and the server's peak RSS read after each: flat memory means
the two peaks are close. Downloads: seqcore's answer to a file download (303 to a signed
URL) followed to the store, against the client's own download of the same object. QC: the
QC engine on the forward file staged from the store (``Storage.local_copy``) against the
same file on local disk.

    .venv/bin/python bench/storage.py [--gb 2] [--small-mb 50] [--rounds 2]
        [--stores s3,azure] [--tiny]

``--tiny`` (a 2 MB pair in a temporary directory, one round) checks the benchmark runs; its
figures mean little. A store whose program is missing (moto, Azurite) is skipped, saying so.
"""

from __future__ import annotations

import argparse
import http.client
import json
import shutil
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.upload import (  # noqa: E402
    READS_PER_BLOCK,
    bench_sample,
    make_gz,
    peak_rss_mb,
    upload,
)

BLOCK = 8 << 20


def client_upload(server: Any, bucket: str, files: list[Path]) -> float:
    """Seconds for the store's own client to upload ``files`` into ``bucket``."""
    start = time.perf_counter()
    if server.kind == "s3":
        client = server.boto3_client()
        for path in files:
            client.upload_file(str(path), bucket, f"client/{path.name}")
    else:
        container = server.blob_service().get_container_client(bucket)
        for path in files:
            with open(path, "rb") as fh:
                container.upload_blob(f"client/{path.name}", fh, overwrite=True,
                                      max_concurrency=4)
    return time.perf_counter() - start


def client_download(server: Any, bucket: str, names: list[str]) -> float:
    start = time.perf_counter()
    with open("/dev/null", "wb") as sink:
        for name in names:
            if server.kind == "s3":
                # One streamed GET, as the signed URL is read (boto3's ranged transfer
                # manager makes moto read the whole object again for every 8 MB range).
                body = server.boto3_client().get_object(Bucket=bucket,
                                                        Key=f"client/{name}")["Body"]
                for chunk in body.iter_chunks(BLOCK):
                    sink.write(chunk)
            else:
                blob = server.blob_service().get_blob_client(bucket, f"client/{name}")
                blob.download_blob(max_concurrency=4).readinto(sink)
    return time.perf_counter() - start


def fetch(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], int]:
    """GET ``url``, reading the body into nothing; status, headers and bytes read."""
    parts = urllib.parse.urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=3600)
    conn.request("GET", f"{parts.path}?{parts.query}" if parts.query else parts.path,
                 headers=headers or {})
    response = conn.getresponse()
    read = 0
    while block := response.read(BLOCK):
        read += len(block)
    conn.close()
    return response.status, dict(response.getheaders()), read


def api_download(port: int, token: str, sample_id: int) -> float:
    """Seconds to download the sample's files as a client does: seqcore answers 303 to a
    signed URL, the bytes come from the store."""
    auth = {"Authorization": f"Bearer {token}"}
    status, _, _ = fetch(f"http://127.0.0.1:{port}/api/samples/{sample_id}/sequenceFiles", auth)
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
    conn.request("GET", f"/api/samples/{sample_id}/sequenceFiles", headers=auth)
    listing = json.loads(conn.getresponse().read())
    conn.close()
    hrefs = [next(link["href"] for link in item["links"] if link["rel"] == "self")
             for item in listing["resource"]["resources"]]
    start = time.perf_counter()
    for href in hrefs:
        status, headers, _ = fetch(href, {**auth, "Accept": "application/fastq"})
        assert status == 303, status
        status, _, _ = fetch(headers["Location"])
        assert status == 200, status
    return time.perf_counter() - start


def md5_base64(path: Path) -> str:
    import base64
    import hashlib

    digest = hashlib.md5(usedforsecurity=False)
    with open(path, "rb") as fh:
        while block := fh.read(BLOCK):
            digest.update(block)
    return base64.b64encode(digest.digest()).decode()


def direct_upload(server: Any, files: list[Path]) -> float:
    """Seconds to PUT ``files`` to the signed URLs createDirectUpload answers (sendfile, as
    an efficient client does; announcing and hashing are not timed)."""
    import base64

    from seqcore.testing.uploads import CREATE_DIRECT_UPLOAD

    pat = server.cli("tokens", "create", "admin", "--scope", "api").strip().splitlines()[-1]
    basic = base64.b64encode(f"admin@example.org:{pat}".encode()).decode()
    targets = []
    for path in files:
        conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=600)
        conn.request("POST", "/api/graphql", body=json.dumps({
            "query": CREATE_DIRECT_UPLOAD, "variables": {
                "filename": path.name, "contentType": "application/gzip",
                "checksum": md5_base64(path), "byteSize": path.stat().st_size}}),
            headers={"Authorization": f"Basic {basic}", "Content-Type": "application/json"})
        answer = json.loads(conn.getresponse().read())
        conn.close()
        assert "errors" not in answer, answer
        targets.append(answer["data"]["createDirectUpload"]["directUpload"])
    start = time.perf_counter()
    for path, target in zip(files, targets, strict=True):
        url = urllib.parse.urlsplit(target["url"])
        conn = http.client.HTTPConnection(url.hostname, url.port, timeout=3600)
        conn.putrequest("PUT", f"{url.path}?{url.query}")
        for key, value in {**json.loads(target["headers"]),
                           "Content-Length": str(path.stat().st_size)}.items():
            conn.putheader(key, value)
        conn.endheaders()
        assert conn.sock is not None
        with open(path, "rb") as fh:
            conn.sock.sendfile(fh)
        response = conn.getresponse()
        response.read()
        assert response.status in (200, 201), response.status
        conn.close()
    return time.perf_counter() - start


def qc_seconds(path: Path) -> float:
    from seqcore.qc import FastQCCompatibleEngine

    start = time.perf_counter()
    FastQCCompatibleEngine().run(path)
    return time.perf_counter() - start


def run_store(kind: str, work: Path, args: argparse.Namespace, big: list[Path],
              small: list[Path], total: int) -> dict[str, Any]:
    from bench.deployed import announce_server_plugins
    from seqcore.storage.service import storage_from_settings
    from seqcore.testing.objectstores import start
    from seqcore.testing.server import live_server

    store = start(kind)
    try:
        settings = store.settings()
        bucket = settings["seqcore.storage.bucket"]
        server = live_server(work / kind, **{**settings,
                                             "seqcore.upload.max_bytes": str(10 ** 11),
                                             "seqcore.worker.embedded": "false"})
        server.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
        secret = server.create_client("bench")
        server.start("gunicorn")
        announce_server_plugins(server.ini)
        try:
            token, sample_id = bench_sample(server, secret, "bench")
            pid = server.process.pid
            _, location = upload(server.port, sample_id, token, small)
            small_rss = peak_rss_mb(pid)
            server.request("DELETE", location, token)
            client_up, api_up, client_down, api_down = [], [], [], []
            for _ in range(args.rounds):
                client_up.append(client_upload(store, bucket, big))
                seconds, location = upload(server.port, sample_id, token, big)
                api_up.append(seconds)
                client_down.append(client_download(store, bucket, [p.name for p in big]))
                api_down.append(api_download(server.port, token, sample_id))
                status, _, _ = server.request("DELETE", location, token)
                assert status == 200, status
            big_rss = peak_rss_mb(pid)
            direct = direct_upload(server, big)
        finally:
            server.stop()
        storage = storage_from_settings({**settings, "seqcore.storage.path": str(work / "qc")})
        with open(big[0], "rb") as fh:
            writer = storage.writer(big[0].name)
            while block := fh.read(BLOCK):
                writer.write(block)
            writer.close()
        local_qc = qc_seconds(big[0])
        start_qc = time.perf_counter()
        with storage.local_copy(writer.key) as staged:
            qc_seconds(staged)
        store_qc = time.perf_counter() - start_qc
        writer.discard()
    finally:
        store.stop()
    best = {name: min(times) for name, times in (("client_up", client_up), ("api_up", api_up),
                                                 ("client_down", client_down),
                                                 ("api_down", api_down))}
    return {
        "store": kind,
        "client_upload_seconds": [round(t, 2) for t in client_up],
        "api_upload_seconds": [round(t, 2) for t in api_up],
        "api_upload_mb_per_s": round(total / best["api_up"] / 1e6, 1),
        "api_upload_vs_client": round(best["client_up"] / best["api_up"], 3),
        "direct_upload_seconds": round(direct, 2),
        "direct_upload_vs_client": round(best["client_up"] / direct, 3),
        "client_download_seconds": [round(t, 2) for t in client_down],
        "signed_url_download_seconds": [round(t, 2) for t in api_down],
        "signed_url_download_vs_client": round(best["client_down"] / best["api_down"], 3),
        "qc_local_seconds": round(local_qc, 2),
        "qc_from_store_seconds": round(store_qc, 2),
        "server_peak_rss_mb_after_small": round(small_rss, 1),
        "server_peak_rss_mb_after_big": round(big_rss, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--small-mb", type=float, default=50.0)
    parser.add_argument("--rounds", type=int, default=2,
                        help="client and API runs, taken in turns; the best of each counts")
    parser.add_argument("--stores", default="s3,azure")
    parser.add_argument("--tiny", action="store_true",
                        help="a 2 MB pair, one round: checks the benchmark runs")
    args = parser.parse_args()

    from seqcore.testing.objectstores import StoreUnavailable

    data = ROOT / "var" / "bench" / "upload"
    reads = READS_PER_BLOCK
    if args.tiny:
        args.gb, args.small_mb, args.rounds = 0.002, 0.5, 1
        data = Path(tempfile.mkdtemp(prefix="seqcore-bench-"))
        reads = 2000
    big = [data / f"big_R{i}.fastq.gz" for i in (1, 2)]
    small = [data / f"small_R{i}.fastq.gz" for i in (1, 2)]
    for i, path in enumerate(big, start=1):
        make_gz(path, int(args.gb * 1e9 / 2), seed=i, reads=reads)
    for i, path in enumerate(small, start=1):
        make_gz(path, int(args.small_mb * 1e6 / 2), seed=10 + i, reads=reads)
    total = sum(p.stat().st_size for p in big)
    (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="seqcore-storage-", dir=ROOT / "var" / "bench"))
    try:
        results = []
        for kind in args.stores.split(","):
            try:
                results.append(run_store(kind, work, args, big, small, total))
            except StoreUnavailable as err:
                print(f"{kind}: skipped ({err})", file=sys.stderr)
                results.append({"store": kind, "skipped": str(err)})
        print(json.dumps({"pair_bytes": total, "runs": results}, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.tiny:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
