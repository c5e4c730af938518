"""The assembly analysis against its own tools run by hand, on the same reads, in one run.

A random genome (``--genome-mb``, with repeat families) and paired 2x150 bp reads simulated
from it at ``--coverage``; then for each engine (SPAdes, MEGAHIT):

* by hand: ``flash`` then the assembler, with the arguments the pipeline uses;
* seqcore: an ``assembly`` submission driven from NEW to COMPLETED by a worker (FLASH,
  assembler, filter, statistics, pyrodigal annotation, outputs copied into storage).

It prints wall times, the genome fraction and NGA50 of both assemblies (contigs aligned
back with mappy), seqcore's overhead over the tools by hand (in total, and without the
annotation, a step the by-hand run does not do, timed on its own), and the repeat copy
numbers the filter reported beside the truth: the genome carries a 3-copy (5 kb) and a
5-copy (1.5 kb) repeat family, and each flagged contig is aligned back to find its family.
The copy numbers are given for IRIDA's rule (the default) and for the ``nearest``,
``weighted`` and ``median`` + ``nearest`` options, all from the same contigs.

    .venv/bin/python bench/assembly.py [--genome-mb 5] [--coverage 40] [--engines megahit]

SPAdes on 5 Mb at 40x takes 10-20 minutes on 2 cores; ``--genome-mb 1`` is a quick look;
``--tiny`` (30 kb at 10x, MEGAHIT only, the worker polling every 0.2 s) checks the benchmark
runs, its figures meaning little.
"""

from __future__ import annotations

import argparse
import json
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from seqcore.services import ISessionFactory, registry_service

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this directory would come first on sys.path and bench/graphql.py would
# hide the graphql package: look modules up from the project root instead.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "plugins" / "seqcore-assembly" / "tests"))  # simulate.py

THREADS = 2
MEMORY_GB = 8


def build(tmp: Path) -> tuple:
    from bench.deployed import setup
    from seqcore.db.migrations import upgrade

    settings = {"sqlalchemy.url": f"sqlite:///{tmp / 'bench.sqlite'}",
                "seqcore.storage.path": str(tmp / "storage"),
                "seqcore.analysis.work_path": str(tmp / "work"),
                "seqcore.analysis.threads": THREADS,
                "seqcore.assembly.memory_gb": MEMORY_GB,
                "seqcore.password_hash.time_cost": 1, "seqcore.password_hash.memory_cost": 64}
    config = setup(settings)
    upgrade(config.get_settings(), config.registry.pm)
    return config


def seqcore_run(config, pair_id: int, owner_id: int, parameters: dict, poll: float
                ) -> tuple[float, dict]:
    """Launch to COMPLETED; returns the wall time and the submission's work directory."""
    import transaction

    from seqcore.analysis.parameters import check_parameters
    from seqcore.analysis.registry import analysis_registry
    from seqcore.analysis.service import create_submission
    from seqcore.analysis.worker import AnalysisWorker
    from seqcore.db import session_for
    from seqcore.models.analysis import AnalysisSubmission
    from seqcore.models.sequencing import SequencingObject

    assembly = analysis_registry(config.registry).type("assembly")
    typed, problems = check_parameters(assembly, parameters)
    assert not problems, problems
    start = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_SELF)
    manager = transaction.TransactionManager(explicit=True)
    with manager:
        db = session_for(registry_service(config.registry, ISessionFactory), manager)
        sub = create_submission(db, assembly, name="bench", inputs=[
            db.get(SequencingObject, pair_id)], parameters=typed, project_ids=[],
            update_samples=False, priority="HIGH", submitter_id=owner_id)
        sid = sub.id
    AnalysisWorker(config.registry).run_until_idle(timeout=7200, interval=poll)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    worker_cpu = (after.ru_utime - cpu.ru_utime) + (after.ru_stime - cpu.ru_stime)
    session = registry_service(config.registry, ISessionFactory)()
    sub = session.get(AnalysisSubmission, sid)
    assert sub.state == "COMPLETED", sub.error
    info = {"work_dir": Path(sub.work_dir), "worker_cpu_s": round(worker_cpu, 1)}
    session.close()
    return elapsed, info


def by_hand(r1: Path, r2: Path, out: Path, engine: str, kmers: str) -> tuple[dict, Path]:
    """FLASH and the assembler as a person would run them (same arguments as the
    pipeline)."""
    from seqcore_assembly.tools import tool_environment

    out.mkdir(parents=True)
    env = tool_environment()
    times = {}

    def timed(name: str, argv: list) -> None:
        start = time.perf_counter()
        subprocess.run([str(a) for a in argv], cwd=out, check=True, env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        times[name] = time.perf_counter() - start

    timed("flash", ["flash", "-m", 20, "-M", 300, "-t", THREADS, "-d", out / "flash",
                    "-o", "flash", r1, r2])
    merged = out / "flash" / "flash.extendedFrags.fastq"
    n1 = out / "flash" / "flash.notCombined_1.fastq"
    n2 = out / "flash" / "flash.notCombined_2.fastq"
    if engine == "megahit":
        timed("megahit", ["megahit", "-1", n1, "-2", n2, "-r", merged, "-o", out / "megahit",
                          "-t", THREADS, "-m", MEMORY_GB * 1_000_000_000])
        contigs = out / "megahit" / "final.contigs.fa"
    else:
        timed("spades", ["spades.py", "-o", out / "spades", "-1", n1, "-2", n2,
                         "--merged", merged, "-k", kmers, "-t", THREADS, "-m", MEMORY_GB])
        contigs = out / "spades" / "contigs.fasta"
    return times, contigs


def tool_times(work_dir: Path) -> dict[str, float]:
    """Seconds each tool took inside the pipeline (from the job's log)."""
    found = {}
    for line in (work_dir / "pipeline.log").read_text().splitlines():
        hit = re.search(r"(\w+): exit code 0 after ([0-9.]+) s", line)
        if hit:
            found[hit.group(1)] = float(hit.group(2))
    return found


def annotation_time(contigs_path: Path, tmp: Path) -> float:
    from seqcore_assembly.annotate import AnnotationOptions, annotate
    from seqcore_assembly.contigs import read_fasta
    from seqcore_assembly.tools import ToolRunner

    contigs = list(read_fasta(contigs_path))
    start = time.perf_counter()
    annotate(contigs, tmp, AnnotationOptions(), ToolRunner(lambda message: None))
    return time.perf_counter() - start


def copy_numbers(genome, contigs_all: Path) -> dict:
    """The filter's copy numbers beside the truth: for each rule, the mean coverage and each
    flagged contig as ``"<true copies> -> <reported copies>"``, plus the repeat families no
    contig was flagged for."""
    import mappy
    from simulate import repeat_family_of

    from seqcore_assembly.contigs import filter_contigs, read_fasta

    contigs = list(read_fasta(contigs_all))
    aligner = mappy.Aligner(seq=genome.sequence, preset="asm5")
    report = {}
    for label, options in (("irida", {}), ("nearest", {"copy_numbers": "nearest"}),
                           ("weighted", {"mean": "weighted"}),
                           ("median+nearest", {"mean": "median",
                                               "copy_numbers": "nearest"})):
        result = filter_contigs(contigs, **options)
        calls, flagged = [], set()
        for contig in result.repeats:
            truth = repeat_family_of(genome, contig.sequence, aligner)
            reported = int(re.search(r"\((\d+) copies\)$", contig.header).group(1))
            calls.append(f"{truth or 1} -> {reported} ({len(contig)} bp, cov "
                         f"{contig.coverage})")
            flagged.add(truth)
        unflagged = []
        for length, starts in genome.repeats:
            if len(starts) not in flagged:
                # Where did that family go? Its best contig and that contig's coverage.
                best = [c for c in contigs if repeat_family_of(genome, c.sequence, aligner)
                        == len(starts) and len(c) >= 0.5 * length]
                unflagged.append(f"{len(starts)} copies x {length} bp: " + (", ".join(
                    f"{c.header} ({c.coverage / result.average:.2f} x mean)" for c in best)
                    or "no contig"))
        report[label] = {"mean": round(result.average, 3), "repeats": calls,
                         "not_flagged": unflagged}
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--genome-mb", type=float, default=5.0)
    parser.add_argument("--coverage", type=float, default=40.0)
    parser.add_argument("--engines", default="megahit,spades")
    parser.add_argument("--kmers", default="21,33,55,77",
                        help="SPAdes k-mers (the pipeline's default is IRIDA's 21..127)")
    parser.add_argument("--poll", type=float, default=1.0,
                        help="seconds between the worker's rounds (each costs CPU the "
                             "assembler could use on a small machine)")
    parser.add_argument("--tiny", action="store_true",
                        help="30 kb at 10x, MEGAHIT: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.genome_mb, args.coverage, args.engines, args.poll = 0.03, 10.0, "megahit", 0.2

    from simulate import genome_fraction, nga50, random_genome, simulate_reads

    from seqcore.testing.factories import Factories
    from seqcore_assembly.contigs import read_fasta

    (ROOT / "var").mkdir(exist_ok=True)
    results: dict = {"genome_mb": args.genome_mb, "coverage": args.coverage,
                     "threads": THREADS, "poll_s": args.poll}
    with tempfile.TemporaryDirectory(dir=ROOT / "var") as tmp_name:
        tmp = Path(tmp_name)
        start = time.perf_counter()
        genome = random_genome(int(args.genome_mb * 1_000_000), seed=1)
        r1, r2 = tmp / "bench_R1.fastq", tmp / "bench_R2.fastq"
        pairs = simulate_reads(genome.sequence, args.coverage, r1, r2, seed=2)
        results["simulate_s"] = round(time.perf_counter() - start, 1)
        results["pairs"] = pairs

        config = build(tmp)
        factories = Factories(registry_service(config.registry, ISessionFactory),
                              config.get_settings())
        owner = factories.user()
        sample = factories.sample(factories.project(owner=owner))
        pair = factories.sequencing_object(sample, "pairs", files=[
            ("bench_R1.fastq", r1.read_bytes()), ("bench_R2.fastq", r2.read_bytes())])

        for engine in args.engines.split(","):
            hand_times, hand_contigs = by_hand(r1, r2, tmp / f"hand-{engine}", engine,
                                               args.kmers)
            hand_total = sum(hand_times.values())
            parameters = {"assembler": engine, "spades_kmers": args.kmers}
            total, info = seqcore_run(config, pair.id, owner.id, parameters, args.poll)
            outputs = info["work_dir"] / "sample" / "outputs"
            # Kept for a second look at the filter (a few MB).
            shutil.copy(outputs / "contigs-all.fasta",
                        ROOT / "var" / f"bench-assembly-{engine}-contigs-all.fasta")
            annotate_s = annotation_time(outputs / "contigs-with-repeats.fasta",
                                         tmp / f"annotate-{engine}")
            ours = [c.sequence for c in read_fasta(outputs / "contigs-with-repeats.fasta")]
            theirs = [c.sequence for c in read_fasta(hand_contigs)]
            results[engine] = {
                "by_hand_s": {k: round(v, 1) for k, v in hand_times.items()},
                "by_hand_total_s": round(hand_total, 1),
                "seqcore_total_s": round(total, 1),
                "seqcore_tools_s": tool_times(info["work_dir"]),
                "annotation_s": round(annotate_s, 1),
                "worker_cpu_s": info["worker_cpu_s"],
                "overhead_pct": round(100 * (total - hand_total) / hand_total, 1),
                # The steadier figure: everything seqcore did besides running the tools
                # (filter, statistics, annotation, storage, the worker's polling), against
                # the tools' own time in the same submission.
                "outside_tools_s": round(total - sum(tool_times(info["work_dir"]).values()), 1),
                "outside_tools_pct": round(100 * (total - sum(tool_times(
                    info["work_dir"]).values())) / sum(tool_times(info["work_dir"]).values()),
                    1),
                "overhead_without_annotation_pct": round(
                    100 * (total - annotate_s - hand_total) / hand_total, 1),
                "genome_fraction_seqcore": round(genome_fraction(genome.sequence, ours), 4),
                "genome_fraction_by_hand": round(genome_fraction(genome.sequence, theirs), 4),
                "nga50_seqcore": nga50(genome.sequence, ours),
                "nga50_by_hand": nga50(genome.sequence, theirs),
                "contigs_seqcore": len(ours), "contigs_by_hand": len(theirs),
                "copy_numbers": copy_numbers(genome, outputs / "contigs-all.fasta"),
            }
            print(json.dumps({engine: results[engine]}), flush=True)
            shutil.rmtree(tmp / f"hand-{engine}", ignore_errors=True)
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
