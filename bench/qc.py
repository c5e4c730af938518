"""Benchmark seqcore's QC engine against seqkit, FastQC and plain ISA-L decompression.

Generates a FASTQ file of ``--size-mb`` MB (default 1000, i.e. ~1 GB uncompressed),
gzips it with ISA-L and caches both under ``var/bench/`` so reruns start at once. Then,
in the same run, times

* seqcore: ``FastQCCompatibleEngine().run()`` in a fresh Python process (start-up and
  imports included, like the other tools), with the peak RSS of its process tree;
* ``seqkit stats -a -j 2``;
* ``fastqc -t 2`` (once: it is slow);
* decompression alone: reading the whole .gz through ``isal.igzip``.

and prints the ratios seqcore/seqkit (goal <= 1.0), FastQC/seqcore (goal >= 5) and
seqcore/decompression (goal <= 3). Run it as ``python bench/qc.py`` (``--size-mb 50`` for
a quick look; ``--tiny``, 2 MB in a temporary directory, one run, no FastQC, checks the
benchmark runs). It builds no application: it times the engine alone.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
ADAPTER = b"AGATCGGAAGAGCACACGTCTGAACTCCAGTCACATCTCGTATGCCGTCTTCTGCTTGAAAAAAAAAA"


# -- data ---------------------------------------------------------------------------


def _batch(rng: np.random.Generator, count: int, length: int = 150) -> bytes:
    """``count`` Illumina-like records: 150 bp, 10 % trimmed, 0.5 % adapter, duplicates."""
    bases = np.frombuffer(b"ACGT", dtype=np.uint8)
    seqs = bases[rng.integers(0, 4, (count, length), dtype=np.uint8)]
    seqs[rng.random((count, length)) < 0.001] = ord("N")
    adapter = rng.random(count) < 0.005
    seqs[adapter, : len(ADAPTER)] = np.frombuffer(ADAPTER, dtype=np.uint8)
    duplicates = rng.random(count) < 0.01
    pool = bases[np.random.default_rng(0).integers(0, 4, (5, length), dtype=np.uint8)]
    seqs[duplicates] = pool[rng.integers(0, 5, int(duplicates.sum()))]
    drift = np.linspace(0, 10, length)
    quals = (rng.normal(37, 4, (count, length)) - drift).clip(2, 41).astype(np.uint8) + 33
    lengths = np.where(rng.random(count) < 0.1, rng.integers(50, length, count), length)
    tiles = rng.integers(1101, 2228, count)
    xs = rng.integers(1000, 32000, count)
    ys = rng.integers(1000, 40000, count)
    seq_rows = seqs.tobytes()
    qual_rows = quals.tobytes()
    parts = []
    for i in range(count):
        n = int(lengths[i])
        start = i * length
        parts.append(
            b"@SEQCORE:42:HBENCHXX:1:%d:%d:%d 1:N:0:ACGTACGT\n%s\n+\n%s\n"
            % (tiles[i], xs[i], ys[i], seq_rows[start : start + n], qual_rows[start : start + n])
        )
    return b"".join(parts)


def generate(directory: pathlib.Path, size_mb: int, level: int) -> tuple[pathlib.Path, int]:
    """Write (once) a ~size_mb MB FASTQ, gzip it with ISA-L and return the .gz path."""
    from isal import igzip_threaded

    directory.mkdir(parents=True, exist_ok=True)
    gz = directory / f"bench_{size_mb}mb_l{level}.fastq.gz"
    meta = gz.with_suffix(".json")
    if gz.exists() and meta.exists():
        return gz, json.loads(meta.read_text())["uncompressed_bytes"]
    print(f"generating {gz} ...", flush=True)
    rng = np.random.default_rng(2026)
    target = size_mb * 1_000_000
    written = 0
    partial = gz.with_name(gz.name + ".part")
    with igzip_threaded.open(partial, "wb", compresslevel=level, threads=2) as out:
        while written < target:
            data = _batch(rng, 50_000)
            out.write(data)
            written += len(data)
    partial.rename(gz)
    meta.write_text(json.dumps({"uncompressed_bytes": written}))
    return gz, written


# -- measurement --------------------------------------------------------------------


def _tree_rss(root: int) -> int:
    """Sum of the RSS (bytes) of ``root`` and all its descendants, from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry), int(fields[1])
        children.setdefault(ppid, []).append(pid)
        rss[pid] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        total += rss.get(pid, 0)
        stack.extend(children.get(pid, []))
    return total


def _children_cpu() -> float:
    """CPU seconds (user + system) of the children waited for so far (and of theirs)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str], sample_memory: bool = False) -> tuple[float, int, str, float]:
    """Wall time, peak process-tree RSS (sampled every 20 ms), stdout and CPU time (user +
    system of the command's process tree) of a command. On a shared machine the wall time
    follows the load; the CPU time much less."""
    peak = 0
    cpu_before = _children_cpu()
    start = time.perf_counter()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    stop = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not stop.is_set():
            peak = max(peak, _tree_rss(process.pid))
            stop.wait(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    if sample_memory:
        sampler.start()
    out, err = process.communicate()
    elapsed = time.perf_counter() - start
    stop.set()
    if sample_memory:
        sampler.join()
    if process.returncode != 0:
        raise RuntimeError(f"{command[0]} failed: {err.decode(errors='replace')[-2000:]}")
    return elapsed, peak, out.decode(), _children_cpu() - cpu_before


SEQCORE_CHILD = """
import pathlib, sys, time, json
from seqcore.qc import FastQCCompatibleEngine
if __name__ == "__main__":
    start = time.perf_counter()
    report = FastQCCompatibleEngine().run(pathlib.Path(sys.argv[1]))
    print(json.dumps({"seconds": time.perf_counter() - start,
                      "reads": report.total_sequences, "bases": report.total_bases,
                      "gc": report.gc_content,
                      "overrepresented": len(report.overrepresented_sequences)}))
"""

DECOMPRESS_CHILD = """
import sys
from isal import igzip
total = 0
with igzip.open(sys.argv[1], "rb") as stream:
    while block := stream.read(4 * 1024 * 1024):
        total += len(block)
print(total)
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size-mb", type=int, default=1000, help="uncompressed size (MB)")
    parser.add_argument("--level", type=int, default=2, help="ISA-L gzip level (0-3)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per tool (median)")
    parser.add_argument("--no-fastqc", action="store_true", help="skip FastQC (slow)")
    parser.add_argument("--dir", type=pathlib.Path, default=ROOT / "var" / "bench")
    parser.add_argument("--tiny", action="store_true",
                        help="2 MB, one run, no FastQC: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.size_mb, args.repeat, args.no_fastqc = 2, 1, True
        args.dir = pathlib.Path(tempfile.mkdtemp(prefix="seqcore-bench-"))

    gz, uncompressed = generate(args.dir, args.size_mb, args.level)
    python = sys.executable
    results: dict[str, list[float]] = {"seqcore": [], "seqkit": [], "decompression": []}
    cpu: dict[str, list[float]] = {name: [] for name in results}
    peak_rss = 0
    report: dict = {}
    for _ in range(args.repeat):
        seconds, _, _, cpu_seconds = timed([python, "-c", DECOMPRESS_CHILD, str(gz)])
        results["decompression"].append(seconds)
        cpu["decompression"].append(cpu_seconds)
        seconds, peak, out, cpu_seconds = timed([python, "-c", SEQCORE_CHILD, str(gz)],
                                                sample_memory=True)
        results["seqcore"].append(seconds)
        cpu["seqcore"].append(cpu_seconds)
        peak_rss = max(peak_rss, peak)
        report = json.loads(out)
        if shutil.which("seqkit"):
            seconds, _, seqkit_out, cpu_seconds = timed(
                ["seqkit", "stats", "-a", "-T", "-j", "2", str(gz)])
            results["seqkit"].append(seconds)
            cpu["seqkit"].append(cpu_seconds)
    fastqc_seconds = fastqc_cpu = None
    if not args.no_fastqc and shutil.which("fastqc"):
        with tempfile.TemporaryDirectory() as out_dir:
            fastqc_seconds, _, _, fastqc_cpu = timed(
                ["fastqc", "-q", "-t", "2", "-o", out_dir, str(gz)])

    median = {name: statistics.median(times) for name, times in results.items() if times}
    median_cpu = {name: statistics.median(times) for name, times in cpu.items() if times}
    print()
    print(
        f"file: {gz} ({gz.stat().st_size / 1e6:.0f} MB gzipped, {uncompressed / 1e6:.0f} MB FASTQ)"
    )
    print(
        f"reads: {report['reads']:,}  bases: {report['bases']:,}  GC: {report['gc']}%  "
        f"overrepresented: {report['overrepresented']}"
    )
    if results["seqkit"]:
        print(
            "seqkit:", " ".join(seqkit_out.splitlines()[1].split("\t")[3:5]), "(num_seqs, sum_len)"
        )
    print(f"runs per tool: {args.repeat} (median shown), CPUs: {os.cpu_count()}, "
          f"load average at the end: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    for name, seconds in median.items():
        runs = ", ".join(f"{t:.2f}" for t in results[name])
        print(f"  {name:14s} {seconds:7.2f} s   (runs: {runs}; CPU time "
              f"{median_cpu[name]:.2f} s)")
    engine = report["seconds"]
    print(f"  {'seqcore engine':14s} {engine:7.2f} s   (last run, timed inside the process)")
    if fastqc_seconds is not None:
        print(f"  {'fastqc':14s} {fastqc_seconds:7.2f} s   (CPU time {fastqc_cpu:.2f} s)")
    print(f"seqcore peak RSS (process tree): {peak_rss / 2**20:.0f} MiB")
    print()
    if "seqkit" in median:
        ratio = median["seqcore"] / median["seqkit"]
        print(f"seqcore / seqkit        = {ratio:.2f}  (goal <= 1.0, aim 0.8)")
    if fastqc_seconds is not None:
        print(f"FastQC / seqcore        = {fastqc_seconds / median['seqcore']:.1f}   (goal >= 5)")
    print(
        f"seqcore / decompression = {median['seqcore'] / median['decompression']:.2f}  (goal <= 3)"
    )
    # The same ratios in CPU time: what each tool costs the machine, which a shared
    # machine's load disturbs far less than wall time.
    print("in CPU time (user + system):")
    if "seqkit" in median_cpu:
        print(f"  seqcore / seqkit        = {median_cpu['seqcore'] / median_cpu['seqkit']:.2f}")
    if fastqc_cpu is not None:
        print(f"  FastQC / seqcore        = {fastqc_cpu / median_cpu['seqcore']:.1f}")
    print("  seqcore / decompression = "
          f"{median_cpu['seqcore'] / median_cpu['decompression']:.2f}")


if __name__ == "__main__":
    main()
