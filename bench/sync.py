"""Import throughput: ``seqcore import irida`` of a project of many samples with small files
and metadata, against downloading the same files with plain HTTP requests in the same run.

Starts a seqcore on loopback (``seqcore serve``) playing the IRIDA install, fills a project
with ``--samples`` samples, each with three metadata fields and a pair of small FASTQ files
(``2 x --samples`` files of ``--file-kb`` KB), then, taking turns for ``--rounds`` rounds,
best of each:

* the anchor: a plain HTTP ``GET`` of each file (``urllib``, one request after the other,
  ``Accept: application/fastq``), written to a temporary directory, the URLs known in
  advance;
* the import: ``seqcore import irida URL --project ID`` into an empty install of its own
  (migrated with ``seqcore db upgrade`` beforehand), a process of its own as an operator
  runs it: it reads the project, its members, the samples' metadata (one request), and each
  sample's files and assemblies (two requests a sample), then writes the samples 25 to a
  transaction while it downloads, checks (size, SHA-256, FASTQ content) and stores each
  file, over kept-alive connections.

Prints samples/s and MB/s of both and the ratio (anchor time / import time); the goal is at
least 0.5. On a shared machine the times depend on what else runs, so it also prints the
one-minute load average around each part and the CPU seconds each part cost the source
server and the client (the importing process, process start included; the anchor's own
process): these move much less with the load than the times do.

    .venv/bin/python bench/sync.py [--samples 2000] [--file-kb 8] [--rounds 1] [--tiny]

``--tiny`` (20 samples, one round) checks the benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path, and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from seqcore.testing.server import SEQCORE, live_server  # noqa: E402
from seqcore.testing.uploads import fastq, multipart  # noqa: E402

PASSWORD = "Bench-sync-pass1!"


def call(srv, token: str, method: str, path: str, body: bytes | None = None,
         content_type: str = "application/json") -> dict:
    req = urllib.request.Request(srv.url + path, data=body, method=method, headers={
        "Authorization": f"Bearer {token}", "Content-Type": content_type,
        "Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=120) as res:
        return json.loads(res.read())


def seed(srv, token: str, samples: int, file_kb: int) -> tuple[str, list[str]]:
    """The project's id and the download URL of every file."""
    project = call(srv, token, "POST", "/api/projects", json.dumps(
        {"name": "Sync bench", "organism": "Salmonella enterica"}).encode())
    pid = project["resource"]["identifier"]
    reads = max(1, file_kb * 1024 // 150)

    def one(n: int) -> list[str]:
        sample = call(srv, token, "POST", f"/api/projects/{pid}/samples", json.dumps(
            {"sampleName": f"s{n:05d}", "strain": f"ST{n % 13}"}).encode())
        sid = sample["resource"]["identifier"]
        call(srv, token, "PUT", f"/api/samples/{sid}/metadata", json.dumps({
            "serovar": {"value": "Enteritidis"}, "source": {"value": "poultry"},
            "n": {"value": str(n)}}).encode())
        body, content_type = multipart([
            ("file1", f"s{n:05d}_R1.fastq", fastq(reads=reads, seed=2 * n + 1), None),
            ("file2", f"s{n:05d}_R2.fastq", fastq(reads=reads, seed=2 * n + 2), None)])
        pair = call(srv, token, "POST", f"/api/samples/{sid}/pairs", body, content_type)
        return [next(link["href"] for link in f["links"] if link["rel"] == "self")
                for f in pair["resource"]["files"]]

    with ThreadPoolExecutor(4) as pool:
        urls = [url for found in pool.map(one, range(samples)) for url in found]
    return pid, urls


def download_all(urls: list[str], token: str, into: Path) -> int:
    """The anchor: each file by a plain GET, one after the other; bytes received."""
    into.mkdir(parents=True, exist_ok=True)
    total = 0
    for number, url in enumerate(urls):
        req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}",
                                                   "Accept": "application/fastq"})
        with urllib.request.urlopen(req, timeout=120) as res, \
                open(into / f"{number}.fastq", "wb") as out:
            while block := res.read(1 << 20):
                out.write(block)
                total += len(block)
    return total


def cpu_seconds(pid: int) -> float:
    """The user and system CPU seconds process ``pid`` has used (Linux's ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def own_cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def empty_install(root: Path) -> Path:
    """A migrated install nothing serves, with the account that will own the import: what
    the import writes into."""
    if root.exists():
        shutil.rmtree(root)
    install = live_server(root)
    install.create_user("admin", PASSWORD, "ROLE_ADMIN")
    return install.ini


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=2000)
    parser.add_argument("--file-kb", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--tiny", action="store_true")
    args = parser.parse_args()
    if args.tiny:
        args.samples, args.rounds = 20, 1
    work = Path(tempfile.mkdtemp(prefix="seqcore-bench-sync-"))
    source = live_server(work / "source")
    source.create_user("admin", PASSWORD, "ROLE_ADMIN")
    secret = source.create_client("client")
    source.start()
    try:
        token = source.token("client", secret, "admin", PASSWORD)
        began = time.monotonic()
        pid, urls = seed(source, token, args.samples, args.file_kb)
        print(f"seeded {args.samples} samples, {len(urls)} files in "
              f"{time.monotonic() - began:.1f} s", file=sys.stderr)
        from pyramid.paster import get_app

        from bench.deployed import loaded_plugins

        print("plugins loaded: " + ", ".join(loaded_plugins(get_app(str(source.ini),
                                                                     "main").registry)),
              file=sys.stderr)
        anchor, imported, size = [], [], 0
        server = source.process.pid if source.process else os.getpid()
        for round_number in range(args.rounds):
            target = work / f"target{round_number}"
            load, server_cpu, client_cpu = os.getloadavg()[0], cpu_seconds(server), own_cpu(
                resource.RUSAGE_SELF)
            began = time.monotonic()
            size = download_all(urls, token, work / f"plain{round_number}")
            anchor.append(time.monotonic() - began)
            print(f"round {round_number + 1}: downloads {anchor[-1]:.1f} s, load "
                  f"{load:.1f}-{os.getloadavg()[0]:.1f}, CPU s: server "
                  f"{cpu_seconds(server) - server_cpu:.1f}, client "
                  f"{own_cpu(resource.RUSAGE_SELF) - client_cpu:.1f}", file=sys.stderr)
            ini = empty_install(target)
            load, server_cpu, client_cpu = os.getloadavg()[0], cpu_seconds(server), own_cpu(
                resource.RUSAGE_CHILDREN)
            began = time.monotonic()
            done = subprocess.run([*SEQCORE, "-c", str(ini), "import", "irida", source.url,
                                   "--project", pid, "--owner", "admin", "--token", token],
                                  capture_output=True, text=True, check=False)
            imported.append(time.monotonic() - began)
            print(f"round {round_number + 1}: import {imported[-1]:.1f} s, load "
                  f"{load:.1f}-{os.getloadavg()[0]:.1f}, CPU s: server "
                  f"{cpu_seconds(server) - server_cpu:.1f}, importer "
                  f"{own_cpu(resource.RUSAGE_CHILDREN) - client_cpu:.1f}", file=sys.stderr)
            if done.returncode != 0 or f"{args.samples} sample" not in done.stdout:
                sys.exit(f"the import failed: {done.stdout}{done.stderr}")
            shutil.rmtree(work / f"plain{round_number}")
    finally:
        source.stop()
    best_anchor, best_import = min(anchor), min(imported)
    mb = size / 1e6
    print(f"samples: {args.samples}, files: {len(urls)}, {mb:.1f} MB")
    print(f"plain HTTP downloads: {best_anchor:.2f} s, {args.samples / best_anchor:.0f} "
          f"samples/s, {mb / best_anchor:.1f} MB/s")
    print(f"seqcore import irida: {best_import:.2f} s, {args.samples / best_import:.0f} "
          f"samples/s, {mb / best_import:.1f} MB/s (process start included)")
    print(f"ratio (downloads time / import time): {best_anchor / best_import:.2f}x "
          "(goal >= 0.5x)")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
