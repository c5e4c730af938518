"""Data export throughput and the worker's memory: a bundle of gigabytes of gzipped FASTQ.

Generates ``--gb`` GB of gzipped FASTQ (random reads, gzip level 1, from
``bench/upload.py``'s read blocks) in ``--files`` files in a temporary directory, prepares a
seqcore deployment (``seqcore db upgrade``, gunicorn on loopback) whose storage holds those
files as processed single-end objects of ``--files`` samples (hard links: no copy), asks for
an export of every sample through ``POST /api/projects/{id}/exports``, and times the export
worker (a process of its own, as ``seqcore worker`` in production) building the bundle,
beside ``zip -0`` of the same files in the same run: the anchor, both writing a stored zip of
the same bytes, both followed by ``sync``, both reading the files from the page cache (read
once before each run), taking turns. The worker's time is its build, the application
already loaded. The worker also hashes every entry (SHA-256, for the manifest) and writes
the line list; ``zip`` computes only its CRC-32.

The worker's peak RSS during the build (``VmHWM`` reset once the application is loaded) is
read for three runs: one with nothing to build, one exporting the first file only, one
exporting everything: flat memory means the three are close.

The bundle is checked afterwards: its size is the one reported, and it holds every file
with its size on disk.

    .venv/bin/python bench/export.py [--gb 4] [--files 8] [--rounds 1] [--keep] [--tiny]

``--tiny`` (2 files of 1 MB made of small read blocks, one round) checks the benchmark runs;
its figures mean little.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path, and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))

from bench.upload import READS_PER_BLOCK, fastq_block  # noqa: E402 - after the path is set

# Run in a process of its own: build what waits, as ``seqcore worker`` does, and say how
# long the build took, the process's resident memory before it (the application loaded) and
# its peak during it (Linux: writing 5 to /proc/self/clear_refs resets the peak, VmHWM, to
# the current RSS, so loading the application does not hide what the build takes).
BUILD = """
import os, sys, time
from seqcore.cli import Env
from seqcore.config import configure
from seqcore.exports.worker import ExportWorker

def status(key):
    for line in open("/proc/self/status"):
        if line.startswith(key):
            return int(line.split()[1]) / 1024

env = Env(sys.argv[1])
config = configure(env.settings)
config.commit()
worker = ExportWorker(config.registry, "bench")
loaded_peak = status("VmHWM:")
with open("/proc/self/clear_refs", "w") as reset:
    reset.write("5")
before = status("VmRSS:")
start = time.perf_counter()
built = worker.run_once()
os.sync()
seconds = time.perf_counter() - start
print(seconds, built, loaded_peak, before, status("VmHWM:"))
"""


def make_files(paths: list[Path], size: int, reads: int = READS_PER_BLOCK) -> None:
    """Gzipped FASTQ files of about ``size`` bytes each: gzip members (level 1) of random
    reads, made once and written in a different order into each file (valid gzip, as
    bgzip and concatenated files are)."""
    import gzip

    members = [gzip.compress(fastq_block(seed, reads=reads), compresslevel=1, mtime=0)
               for seed in range(1, 4)]
    for index, path in enumerate(paths):
        path.parent.mkdir(parents=True, exist_ok=True)
        written, k = 0, index
        with open(path, "wb") as out:
            while written < size:
                member = members[k % len(members)]
                out.write(member)
                written += len(member)
                k += 1


def store_files(ini_settings: dict[str, str], sample_ids: list[int], files: list[Path]
                ) -> None:
    """Each file becomes a processed single-end object of one sample, its bytes hard-linked
    into the deployment's storage (a copy where the file system cannot link)."""
    from sqlalchemy import create_engine
    from sqlalchemy.orm import sessionmaker

    from seqcore.models.sequencing import SequenceFile, SequencingObject, SequencingObjectFile

    storage = Path(ini_settings["seqcore.storage.path"])
    engine = create_engine(ini_settings["sqlalchemy.url"])
    with sessionmaker(engine)() as db:
        for index, (sample_id, path) in enumerate(zip(sample_ids, files, strict=True)):
            relative = f"bench/{index}/{path.name}"
            target = storage / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(path, target)
            except OSError:
                shutil.copyfile(path, target)
            stored = SequenceFile(path=relative, file_name=path.name,
                                  size=path.stat().st_size)
            obj = SequencingObject(sample_id=sample_id, kind="unpaired",
                                   processing_state="FINISHED")
            obj.links.append(SequencingObjectFile(position=0, file=stored))
            db.add(obj)
        db.commit()
    engine.dispose()


def run_worker(ini: Path) -> dict[str, float]:
    """One round of the export worker in a process of its own: the build's seconds (with
    ``sync``), exports built, the peak RSS of loading the application, the RSS before the
    build and its peak during the build, in MB."""
    done = subprocess.run([sys.executable, "-c", BUILD, str(ini)], check=True,
                          capture_output=True, text=True)
    seconds, built, loaded_peak, before, peak = done.stdout.split()
    return {"seconds": float(seconds), "built": int(built),
            "loading_peak_mb": round(float(loaded_peak), 1),
            "rss_before_mb": round(float(before), 1), "build_peak_mb": round(float(peak), 1)}


def warm(files: list[Path]) -> None:
    """Read the files once, so both contenders read them from the page cache."""
    for path in files:
        with open(path, "rb") as fh:
            while fh.read(1 << 24):
                pass


def time_zip(files: list[Path], target: Path) -> float:
    """Seconds for ``zip -0`` of ``files`` into ``target`` and ``sync``; removed after."""
    start = time.perf_counter()
    subprocess.run(["zip", "-0", "-q", "-j", str(target), *map(str, files)], check=True)
    os.sync()
    elapsed = time.perf_counter() - start
    target.unlink()
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gb", type=float, default=4.0, help="gzipped FASTQ in all")
    parser.add_argument("--files", type=int, default=8, help="files (one sample each)")
    parser.add_argument("--rounds", type=int, default=2,
                        help="zip -0 and export runs, taken in turns (each first in every "
                             "other round, the files read into the page cache before each); "
                             "the best of each counts")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument("--tiny", action="store_true",
                        help="2 files of 1 MB, one round: checks the benchmark runs")
    args = parser.parse_args()
    reads = READS_PER_BLOCK
    if args.tiny:
        args.gb, args.files, args.rounds, reads = 0.002, 2, 1, 2000
    if not shutil.which("zip"):
        sys.exit("zip is not installed (apt-get install zip): it is the anchor")

    from bench.deployed import announce_server_plugins
    from seqcore.testing.server import live_server

    base = ROOT / "var" / "bench"
    base.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="seqcore-export-", dir=base))
    try:
        t0 = time.perf_counter()
        files = [work / "reads" / f"sample{i}.fastq.gz" for i in range(args.files)]
        make_files(files, int(args.gb * 1e9 / args.files), reads)
        total = sum(p.stat().st_size for p in files)
        print(f"data ready in {time.perf_counter() - t0:.0f} s: {total / 1e9:.2f} GB in "
              f"{len(files)} files", file=sys.stderr)

        server = live_server(work / "server", **{"seqcore.worker.embedded": "false"})
        server.create_user("admin", "Admin-pass1!", "ROLE_ADMIN")
        secret = server.create_client("bench")
        settings = dict(line.split(" = ", 1) for line in
                        server.ini.read_text().split("\n[server:main]")[0].splitlines()[1:])
        server.start("gunicorn")
        announce_server_plugins(server.ini)
        try:
            token = server.token("bench", secret, "admin", "Admin-pass1!")
            _, body, _ = server.request("POST", "/api/projects", token, {"name": "Export"})
            project = json.loads(body)["resource"]["identifier"]
            samples = []
            for i in range(len(files)):
                _, body, _ = server.request("POST", f"/api/projects/{project}/samples", token,
                                            {"sampleName": f"bench-{i}"})
                samples.append(int(json.loads(body)["resource"]["identifier"]))
            store_files(settings, samples, files)

            def export(selected: list[int]) -> dict:
                status, body, _ = server.request("POST", f"/api/projects/{project}/exports",
                                                 token, {"samples": selected,
                                                         "metadataFields": []})
                assert status == 201, body[:500]
                return json.loads(body)["resource"]

            idle = run_worker(server.ini)
            export(samples[:1])
            one = run_worker(server.ini)
            zip_times, export_times, made, every = [], [], None, {}
            for turn in range(args.rounds):
                for step in ("zip", "export") if turn % 2 == 0 else ("export", "zip"):
                    warm(files)
                    if step == "zip":
                        zip_times.append(time_zip(files, work / "anchor.zip"))
                        continue
                    if made is not None:  # the last round's bundle goes first
                        server.request("DELETE", f"/api/exports/{made['identifier']}", token)
                    made = export(samples)
                    every = run_worker(server.ini)
                    assert every["built"] == 1, every
                    export_times.append(every["seconds"])
            assert made is not None
            ready = server.get_json(f"/api/exports/{made['identifier']}", token)["resource"]
            assert ready["state"] == "READY", ready
            bundle = Path(settings["seqcore.storage.path"]) / \
                f"exports/{ready['identifier']}/seqcore-export-{ready['identifier']}.zip"
            assert bundle.stat().st_size == ready["size"]
            with zipfile.ZipFile(bundle) as opened:
                sizes = {info.filename.rsplit("/", 1)[1]: info.file_size
                         for info in opened.infolist()}
            for path in files:
                assert sizes[path.name] == path.stat().st_size, path.name
        finally:
            server.stop()
        best_zip, best_export = min(zip_times), min(export_times)
        print(json.dumps({
            "gzipped_fastq_bytes": total,
            "files": len(files),
            "zip0_seconds": [round(t, 2) for t in zip_times],
            "export_seconds": [round(t, 2) for t in export_times],
            "export_mb_per_s": round(total / best_export / 1e6, 1),
            "zip0_mb_per_s": round(total / best_zip / 1e6, 1),
            "export_vs_zip0": round(best_export / best_zip, 3),
            "bundle_bytes": ready["size"],
            "worker_loading_peak_rss_mb": idle["loading_peak_mb"],
            "worker_rss_mb_before_build": every["rss_before_mb"],
            "worker_peak_rss_mb_nothing_to_build": idle["build_peak_mb"],
            "worker_peak_rss_mb_one_file": one["build_peak_mb"],
            "one_file_export_seconds": round(one["seconds"], 2),
            "worker_peak_rss_mb_all": every["build_peak_mb"],
        }, indent=2))
    finally:
        if args.keep:
            print(f"kept {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
