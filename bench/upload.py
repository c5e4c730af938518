"""Upload throughput and server memory: a gzipped read pair through a real server.

Generates (once, cached under ``var/bench``) a gzipped FASTQ pair of ``--gb`` GB in total,
starts seqcore on loopback (gunicorn, as production.ini), uploads the pair as the IRIDA
uploader does (one multipart POST to ``/api/samples/{id}/pairs``), and times it beside ``cp``
of the same two files on the same disk in the same run (both followed by ``sync``). It also
uploads a small pair first and reads the server's peak RSS after each upload: flat memory
means the two peaks are close.

``cp`` and upload take turns, three rounds, best of each. ``cp`` is measured at its best:
each timed copy comes right after an untimed one was deleted, so it writes into page-cache
memory the kernel has just freed (on a virtual machine, pages the guest has not touched for
a while cost the host a fault each, which makes writing 2 GB into them several times slower
and its time unpredictable). seqcore writes large uploads past the page cache
(``O_DIRECT``), so its time does not depend on that; each upload is deleted (``DELETE`` of
the pair) before the next round.

Two gzip verifications are measured: ``default`` (the shipped settings: an upload above
``seqcore.upload.verify_gzip_max_bytes`` has its first block inflated on arrival, the
worker reads the rest) and ``full`` (the limit set to 0: every byte inflated on arrival).

    .venv/bin/python bench/upload.py [--gb 2] [--small-mb 50] [--rounds 3]
        [--verify default|full|both] [--tiny]

``--tiny`` (a 2 MB pair of small read blocks in a temporary directory, one round, the shipped
verification) checks the benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path, and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

BOUNDARY = "B0undary"
READS_PER_BLOCK = 200_000


def fastq_block(seed: int, length: int = 150, reads: int = READS_PER_BLOCK) -> bytes:
    """A block of random reads as FASTQ text (numpy, so generating gigabytes is quick)."""
    rng = np.random.default_rng(seed)
    bases = np.frombuffer(b"ACGT", dtype=np.uint8)[rng.integers(0, 4, (reads, length))]
    quals = rng.integers(35, 74, (reads, length), dtype=np.uint8)
    lines = []
    for i in range(reads):
        lines.append(b"@read%d_%d\n%s\n+\n%s\n" % (seed, i, bases[i].tobytes(),
                                                   quals[i].tobytes()))
    return b"".join(lines)


def make_gz(path: Path, size: int, seed: int, reads: int = READS_PER_BLOCK) -> None:
    """A gzip file of about ``size`` bytes: compressed blocks of different reads, written as
    successive gzip members (valid gzip, as bgzip and concatenated files are)."""
    if path.exists() and abs(path.stat().st_size - size) < size * 0.1:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    members = [gzip.compress(fastq_block(seed * 100 + k, reads=reads), compresslevel=1,
                             mtime=0)
               for k in range(4)]
    written = 0
    with open(path, "wb") as out:
        k = 0
        while written < size:
            member = members[k % len(members)]
            out.write(member)
            written += len(member)
            k += 1


def _children(pid: int) -> list[int]:
    kids = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        text = (task / "children").read_text().split()
        kids.extend(int(k) for k in text)
    return kids


def peak_rss_mb(pid: int) -> float:
    """The largest peak RSS among the server process and its workers (gunicorn forks the
    workers that handle requests)."""
    peaks = []
    for proc in [pid, *_children(pid)]:
        for line in Path(f"/proc/{proc}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                peaks.append(int(line.split()[1]) / 1024)
    return max(peaks)


def bench_sample(server: Any, secret: str, project_name: str) -> tuple[str, int]:
    """The administrator's token on a started bench server (made with the ``admin`` account
    and the ``bench`` client) and a new sample, in a new project, to upload into."""
    token = server.token("bench", secret, "admin", "Admin-pass1!")
    _, body, _ = server.request("POST", "/api/projects", token, {"name": project_name})
    project = json.loads(body)["resource"]["identifier"]
    _, body, _ = server.request("POST", f"/api/projects/{project}/samples", token,
                                {"sampleName": "bench-sample"})
    return token, json.loads(body)["resource"]["identifier"]


def upload(port: int, sample_id: int, token: str, files: list[Path]) -> tuple[float, str]:
    """POST the pair as multipart/form-data, streaming from disk; returns the seconds taken
    and the new pair's address."""
    heads, tails = [], []
    for i, path in enumerate(files, start=1):
        heads.append((f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"file{i}\"; "
                      f"filename=\"/data/{path.name}\"\r\n\r\n").encode())
        tails.append(b"\r\n")
    params = b"".join(
        (f"--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"parameters{i}\"\r\n"
         "Content-Type: application/json\r\n\r\n{}\r\n").encode() for i in (1, 2))
    end = f"--{BOUNDARY}--\r\n".encode()
    length = sum(len(h) + p.stat().st_size + len(t) for h, p, t in zip(heads, files, tails,
                                                                       strict=True))
    length += len(params) + len(end)

    # The file parts go with sendfile(2), as an efficient client does: on this shared 2-core
    # machine the client's own copying would otherwise take CPU from the server measured.
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=3600)
    start = time.perf_counter()
    conn.putrequest("POST", f"/api/samples/{sample_id}/pairs")
    for key, value in (("Authorization", f"Bearer {token}"), ("Content-Length", str(length)),
                       ("Content-Type", f"multipart/form-data; boundary={BOUNDARY}")):
        conn.putheader(key, value)
    conn.endheaders()
    assert conn.sock is not None
    for head, path, tail in zip(heads, files, tails, strict=True):
        conn.sock.sendall(head)
        with open(path, "rb") as fh:
            conn.sock.sendfile(fh)
        conn.sock.sendall(tail)
    conn.sock.sendall(params + end)
    res = conn.getresponse()
    data = res.read()
    elapsed = time.perf_counter() - start
    assert res.status == 201, (res.status, data[:500])
    return elapsed, res.headers["Location"]


def time_cp(files: list[Path], dest: Path) -> float:
    """Seconds to copy ``files`` into ``dest`` and sync, right after an untimed copy was
    deleted (page-cache memory just freed: cp at its best); the copy is deleted afterwards."""
    dest.mkdir()
    subprocess.run(["cp", *map(str, files), str(dest)], check=True)
    os.sync()
    shutil.rmtree(dest)
    dest.mkdir()
    start = time.perf_counter()
    subprocess.run(["cp", *map(str, files), str(dest)], check=True)
    os.sync()
    elapsed = time.perf_counter() - start
    shutil.rmtree(dest)
    return elapsed


def run_server(root: Path, args: argparse.Namespace, big: list[Path], small: list[Path],
               total: int, verify: str) -> dict:
    from bench.deployed import announce_server_plugins
    from seqcore.testing.server import live_server

    settings = {"seqcore.upload.max_bytes": str(10 ** 11)}
    if verify == "full":
        settings["seqcore.upload.verify_gzip_max_bytes"] = "0"
    server = live_server(root, **settings)
    server.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
    secret = server.create_client("bench")
    server.start(args.server)
    announce_server_plugins(server.ini)
    try:
        token, sample_id = bench_sample(server, secret, "Upload bench")
        pid = server.process.pid
        small_seconds, location = upload(server.port, sample_id, token, small)
        small_rss = peak_rss_mb(pid)
        server.request("DELETE", location, token)
        cp_times, upload_times = [], []
        for _ in range(args.rounds):
            cp_times.append(time_cp(big, root / "cp"))
            start = time.perf_counter()
            _, location = upload(server.port, sample_id, token, big)
            os.sync()
            upload_times.append(time.perf_counter() - start)
            status, _, _ = server.request("DELETE", location, token)
            assert status == 200, status
        big_rss = peak_rss_mb(pid)
    finally:
        server.stop()
    cp_seconds, big_seconds = min(cp_times), min(upload_times)
    return {
        "verify_gzip": verify,
        "cp_seconds": [round(t, 2) for t in cp_times],
        "upload_seconds": [round(t, 2) for t in upload_times],
        "upload_mb_per_s": round(total / big_seconds / 1e6, 1),
        "upload_vs_cp": round(cp_seconds / big_seconds, 3),
        "small_pair_bytes": sum(p.stat().st_size for p in small),
        "small_upload_seconds": round(small_seconds, 2),
        "server_peak_rss_mb_after_small": round(small_rss, 1),
        "server_peak_rss_mb_after_big": round(big_rss, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=2.0)
    parser.add_argument("--small-mb", type=float, default=50.0)
    parser.add_argument("--server", choices=["gunicorn", "waitress"], default="gunicorn",
                        help="gunicorn is the production server (production.ini); waitress "
                             "the development one")
    parser.add_argument("--rounds", type=int, default=3,
                        help="cp and upload runs, taken in turns; the best of each counts")
    parser.add_argument("--verify", choices=["default", "full", "both"], default="both",
                        help="default: the shipped settings (a large upload's gzip is "
                             "inflated at its start on arrival, whole by the worker); full: "
                             "every byte inflated on arrival")
    parser.add_argument("--tiny", action="store_true",
                        help="a 2 MB pair, one round: checks the benchmark runs")
    args = parser.parse_args()

    data = ROOT / "var" / "bench" / "upload"
    reads = READS_PER_BLOCK
    if args.tiny:
        args.gb, args.small_mb, args.rounds, args.verify = 0.002, 0.5, 1, "default"
        data = Path(tempfile.mkdtemp(prefix="seqcore-bench-"))
        reads = 2000
    big = [data / f"big_R{i}.fastq.gz" for i in (1, 2)]
    small = [data / f"small_R{i}.fastq.gz" for i in (1, 2)]
    t0 = time.perf_counter()
    for i, path in enumerate(big, start=1):
        make_gz(path, int(args.gb * 1e9 / 2), seed=i, reads=reads)
    for i, path in enumerate(small, start=1):
        make_gz(path, int(args.small_mb * 1e6 / 2), seed=10 + i, reads=reads)
    total = sum(p.stat().st_size for p in big)
    print(f"data ready in {time.perf_counter() - t0:.0f} s: {total / 1e9:.2f} GB", file=sys.stderr)

    (ROOT / "var" / "bench").mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="seqcore-upload-", dir=ROOT / "var" / "bench"))
    try:
        results = []
        modes = ["default", "full"] if args.verify == "both" else [args.verify]
        for mode in modes:
            results.append(run_server(work / f"server-{mode}", args, big, small, total, mode))
        print(json.dumps({"server": args.server, "pair_bytes": total, "runs": results},
                         indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)
        if args.tiny:
            shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()
