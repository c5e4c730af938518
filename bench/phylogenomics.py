"""Phylogenomics: seqcore's pipeline beside SNVPhyl's own tool chain, on the same reads.

Generated data (no download): a random reference with repeat families, isolates on a
balanced tree with known SNVs, one isolate missing a region, 2x150 bp reads from a numpy
simulator. In the same run:

* seqcore: reference uploaded, launched over REST, driven by an ``AnalysisWorker`` to
  ``COMPLETED`` with the defaults (minimap2, pileup evidence, PhyML), ``threads`` cores;
* SNVPhyl's chain by hand with its tools and options: ``smalt`` (k 13, s 6; pairs, insert
  20-1000, min identity 0.5), ``samtools sort``, ``freebayes -p 1``, ``bcftools mpileup
  -I -Q 0 -q 0 -d 1024 | call -c``, ``nucmer`` self-alignment, consolidation with the same
  filters, PhyML (GTR, 4 gamma categories, estimated alpha and p-inv, NNI, aLRT), isolates
  run side by side on the same cores as a Galaxy with that many job slots would.

It prints both wall times, their ratio (goal: at most 0.6), whether the valid SNV sets and
their bases are identical, and how both compare to the known SNVs.

    .venv/bin/python bench/phylogenomics.py [--size 24x1mb] [--size 6x5mb]
        [--coverage 30] [--threads 2] [--tiny]
    .venv/bin/python bench/phylogenomics.py --isolates 8 --length 2000000

``--size`` picks sizes that finish within two hours each on an idle 2-core machine, both
chains included (``24x1mb``, the default: 24 isolates of a 1 Mb genome, about 3 GB of
reads; ``6x5mb``: 6 isolates of 5 Mb, about 4 GB), or ``tiny`` (4 x 200 kb, a few minutes:
checks the bench itself; ``--tiny``, 4 x 100 kb at 15x, does so in well under one).
Several ``--size`` run one after the other; ``--isolates`` and ``--length`` give any other
size (24 x 5 Mb, what labs run, needs 15 GB and most of a day here). Both sides share
seqcore's consolidation (SNVPhyl's rules: density filter, statuses), so "identical valid
SNVs" compares the mappers and callers.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from seqcore.services import ISessionFactory, registry_service

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "plugins" / "seqcore-phylogenomics" / "tests"))


def generate(tmp: Path, length: int, isolates: int, coverage: float) -> tuple:
    import simulate

    per_branch = max(3, length // 200_000)
    truth = simulate.make_truth(length=length, seed=11, tree=simulate.balanced_tree(
        isolates, per_branch), families=((1500, 4), (5000, 2), (900, 3)), deletion=6000,
        snvs_in_repeats=6)
    reference = tmp / "reference.fasta"
    simulate.write_fasta(truth.reference, reference)
    reads = {}
    for i, name in enumerate(truth.names):
        r1, r2 = tmp / f"{name}_R1.fastq", tmp / f"{name}_R2.fastq"
        simulate.simulate_reads(truth.genomes[name], coverage, r1, r2, seed=500 + i)
        reads[name] = (r1, r2)
    return truth, reference, reads


def valid_calls(table: str) -> dict[tuple[str, int], tuple[str, ...]]:
    rows = [line.split("\t") for line in table.splitlines()[1:]]
    return {(r[0], int(r[1])): tuple(r[3:]) for r in rows if r[2] == "valid"}


def run_seqcore(tmp: Path, reference: Path, reads: dict, threads: int) -> tuple[float, str]:
    import webtest

    from bench.deployed import served, setup
    from seqcore.analysis.worker import AnalysisWorker
    from seqcore.db.migrations import upgrade
    from seqcore.testing.factories import Factories
    from seqcore.testing.uploads import multipart

    settings = {"sqlalchemy.url": f"sqlite:///{tmp / 'bench.sqlite'}",
                "seqcore.storage.path": str(tmp / "storage"),
                "seqcore.analysis.work_path": str(tmp / "work"),
                "seqcore.analysis.threads": threads, "seqcore.analysis.max_running": 1,
                "seqcore.password_hash.time_cost": 1, "seqcore.password_hash.memory_cost": 64}
    config = setup(settings)
    upgrade(config.get_settings(), config.registry.pm)
    factories = Factories(registry_service(config.registry, ISessionFactory), config.get_settings())
    owner = factories.user()
    project = factories.project(owner=owner)
    headers = factories.headers(owner)
    samples = []
    for name, (r1, r2) in reads.items():
        sample = factories.sample(project, name=name)
        factories.sequencing_object(sample, "pairs", files=[(r1.name, r1.read_bytes()),
                                                            (r2.name, r2.read_bytes())])
        samples.append(sample.id)
    app = webtest.TestApp(served(config))
    body, content_type = multipart([("file", "reference.fasta", reference.read_bytes(), None)])
    ref = app.post(f"/api/projects/{project.id}/referenceFiles", body,
                   headers={**headers, "Content-Type": content_type}).json["resource"]
    started = time.perf_counter()
    res = app.post_json("/api/analysisSubmissions/phylogenomics",
                        {"parameters": {"reference": ref["reference"]}, "samples": samples},
                        headers=headers)
    AnalysisWorker(config.registry).run_until_idle(timeout=7200, interval=0.5)
    elapsed = time.perf_counter() - started
    sub = app.get(res.headers["Location"], headers=headers).json["resource"]
    if sub["analysisState"] != "COMPLETED":
        raise SystemExit(f"seqcore failed: {sub.get('analysisError')}")
    analysis = app.get(f"{res.headers['Location']}/analysis", headers=headers).json["resource"]
    href = {link["rel"]: link["href"] for link in analysis["links"]}["outputFile/table"]
    table = app.get(href, headers={**headers, "Accept": "text/plain"}).text
    return elapsed, table


def run_snvphyl(tmp: Path, reference: Path, reads: dict, threads: int) -> tuple[float, str]:
    """SNVPhyl's tools with its options, step by step; consolidation and tables with the
    same code as seqcore (SNVPhyl's Perl scripts are not packaged)."""
    from seqcore_phylogenomics import pipeline, snv

    work = tmp / "snvphyl"
    work.mkdir()
    started = time.perf_counter()
    ref = snv.read_fasta(reference)
    fasta = work / "reference.fasta"
    shutil.copy(reference, fasta)
    log = work / "tools.log"
    pipeline.run_tool(["samtools", "faidx", str(fasta)], log)
    repeats_job = snv.start_repeat_search(fasta, work / "self")
    index = pipeline.index_reference("smalt", fasta, log)
    t = snv.Thresholds()

    def isolate(item: tuple[str, tuple[Path, Path]]) -> snv.Evidence:
        name, (r1, r2) = item
        here = work / name
        here.mkdir()
        bam = here / "alignment.bam"
        pipeline.map_reads("smalt", index, [str(r1), str(r2)], 1, name, bam,
                           here / "tools.log")
        return pipeline.caller_evidence(bam, fasta, ref, t, here, here / "tools.log")

    with ThreadPoolExecutor(max_workers=threads) as pool:
        evidence = list(pool.map(isolate, reads.items()))
    repeats = snv.finish_repeat_search(repeats_job, work / "self", ref, 150, 90.0)
    names = list(reads)
    result = snv.consolidate(ref, evidence, repeats, (500, 2), names)
    snv.write_table(result, ref, names, work / "snvTable.tsv")
    snv.write_matrix(result, ref, names, work / "snvMatrix.tsv")
    labels, rows = snv.alignment(result, ref)
    pipeline.build_tree("phyml", [*labels, *names], rows, work / "tree",
                        work / "phylogeneticTree.newick", work / "stats.txt")
    return time.perf_counter() - started, (work / "snvTable.tsv").read_text()


# Named sizes: (isolates, reference length). The first two finish within two hours each on
# an idle 2-core machine (docs/analyses/phylogenomics.md has the figures).
SIZES = {"24x1mb": (24, 1_000_000), "6x5mb": (6, 5_000_000), "tiny": (4, 200_000)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", choices=sorted(SIZES), action="append",
                        help="a named size (repeatable; default 24x1mb)")
    parser.add_argument("--length", type=int, help="reference length (with --isolates)")
    parser.add_argument("--isolates", type=int, help="number of isolates (with --length)")
    parser.add_argument("--coverage", type=float, default=30)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument("--tiny", action="store_true",
                        help="4 isolates of 100 kb at 15x: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.isolates, args.length, args.coverage = 4, 100_000, 15.0
    if (args.length is None) != (args.isolates is None):
        parser.error("--length and --isolates go together")
    sizes = [SIZES[name] for name in args.size or []]
    if args.length is not None:
        sizes.append((args.isolates, args.length))
    for isolates, length in sizes or [SIZES["24x1mb"]]:
        run_size(isolates, length, args.coverage, args.threads, args.keep)


def run_size(isolates: int, length: int, coverage: float, threads: int, keep: bool) -> None:
    """Both chains on one generated data set, and how their valid SNVs compare."""
    tmp = Path(tempfile.mkdtemp(prefix="bench-phylo-"))
    try:
        t0 = time.perf_counter()
        truth, reference, reads = generate(tmp, length, isolates, coverage)
        print(f"data: {isolates} isolates, {length:,} bp reference, "
              f"{coverage:g}x 2x150 bp, {len(truth.snvs)} SNVs "
              f"({len(truth.expected_valid())} outside repeats and the deletion); "
              f"generated in {time.perf_counter() - t0:.1f} s", flush=True)
        ours, our_table = run_seqcore(tmp, reference, reads, threads)
        theirs, their_table = run_snvphyl(tmp, reference, reads, threads)
        our_valid, their_valid = valid_calls(our_table), valid_calls(their_table)
        expected = {("chromosome", pos): cells for pos, cells in
                    ((p, tuple(["ACGT"[truth.reference[p - 1]], *c.values()]))
                     for p, c in truth.expected_valid().items())}
        print(f"seqcore (minimap2, pileup, PhyML):            {ours:8.1f} s")
        print(f"SNVPhyl tools (smalt, freebayes, mpileup, PhyML): {theirs:8.1f} s")
        print(f"ratio seqcore / SNVPhyl: {ours / theirs:.2f} (goal <= 0.60)")
        print(f"valid SNVs: seqcore {len(our_valid)}, SNVPhyl {len(their_valid)}; identical "
              f"sites and bases: {our_valid == their_valid}")
        for label, calls in (("seqcore", our_valid), ("SNVPhyl", their_valid)):
            hits = sum(1 for k, v in calls.items() if expected.get(k) == v)
            print(f"  {label} vs truth: precision {hits / max(1, len(calls)):.3f}, "
                  f"recall {hits / max(1, len(expected)):.3f}")
        print(f"whole run with the data: {time.perf_counter() - t0:.1f} s", flush=True)
    finally:
        if keep:
            print(f"kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
