"""The phylogenomics pipeline (runs in the executor's process, never touches the database).

Steps, as SNVPhyl's: the reference aligned to itself with ``nucmer`` (repeats; it runs in the
background while reads are mapped), reads of each isolate mapped (``bwa mem``, ``minimap2``
or ``smalt``) and sorted, per-position evidence (a pileup of the alignments, or freebayes
confirmed by ``bcftools mpileup | call -c``), consolidation with SNVPhyl's filters, the
tables, and a maximum-likelihood tree (PhyML with SNVPhyl's options, or FastTree).
Isolates are mapped in parallel within ``ctx.threads``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import numpy as np

from seqcore.plugin import PipelineContext, PipelineError
from seqcore_phylogenomics import snv

REFERENCE_JOB_FILE = "reference.json"
OUTPUT_FILES = {
    "tree": "phylogeneticTree.newick",
    "matrix": "snvMatrix.tsv",
    "table": "snvTable.tsv",
    "filter-stats": "filterStats.txt",
    "mapping-quality": "mappingQuality.txt",
    "tree-stats": "phylogeneticTreeStats.txt",
    "alignment": "snvAlignment.phy",
    "core": "vcf2core.tsv",
}
# Debian's ``phyml`` wraps an OpenMPI build in ``mpirun`` on machines with several cores;
# MPI only parallelises bootstraps, which aLRT supports do not need: run the serial binary
# (PHYMLMPI=no), and should mpirun still start, let it run as root.
PHYML_ENV = {"PHYMLMPI": "no", "OMPI_ALLOW_RUN_AS_ROOT": "1",
             "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


class ToolFailed(PipelineError):
    """An external program failed; the message names it and ends with its error output."""


def run_tool(args: list[str], log: Path, **kwargs: Any) -> None:
    """Run a program with its output in ``log``; a failure becomes a user-facing error."""
    with open(log, "ab") as handle:
        done = subprocess.run(args, stdout=kwargs.pop("stdout", handle), stderr=handle,
                              **kwargs)
    if done.returncode != 0:
        raise ToolFailed(f"{Path(args[0]).name} failed (exit {done.returncode}): "
                         f"{_tail(log)}")


def _tail(path: Path, size: int = 1500) -> str:
    try:
        return path.read_text(errors="replace")[-size:].strip()
    except OSError:
        return ""


# -- one isolate (runs in a worker process) -------------------------------------------------

def index_reference(mapper: str, fasta: Path, log: Path) -> str:
    """Build the mapper's index once for every isolate; returns what ``map`` is given."""
    if mapper == "bwa":
        run_tool(["bwa", "index", str(fasta)], log)
        return str(fasta)
    if mapper == "smalt":
        prefix = fasta.with_suffix(".smalt")
        run_tool(["smalt", "index", "-k", "13", "-s", "6", str(prefix), str(fasta)], log)
        return str(prefix)
    index = fasta.with_suffix(".mmi")
    run_tool(["minimap2", "-x", "sr", "-d", str(index), str(fasta)], log)
    return str(index)


def mapping_command(mapper: str, index: str, reads: list[str], threads: int,
                    name: str) -> list[str]:
    group = f"@RG\\tID:{name}\\tSM:{name}"
    if mapper == "bwa":
        return ["bwa", "mem", "-t", str(threads), "-R", group, index, *reads]
    if mapper == "smalt":  # SNVPhyl's options: pairs, insert 20-1000, min identity 0.5
        return ["smalt", "map", "-n", str(threads), "-f", "sam", "-l", "pe", "-i", "1000",
                "-j", "20", "-r", "1", "-y", "0.5", index, *reads]
    return ["minimap2", "-ax", "sr", "-t", str(threads), "-R", group, index, *reads]


def map_reads(mapper: str, index: str, reads: list[str], threads: int, name: str,
              bam: Path, log: Path) -> None:
    """Map and coordinate-sort in one pipe, then index the BAM."""
    with open(log, "ab") as handle:
        mapping = subprocess.Popen(mapping_command(mapper, index, reads, threads, name),
                                   stdout=subprocess.PIPE, stderr=handle)
        sort = subprocess.Popen(["samtools", "sort", "-@", str(max(0, threads - 1)),
                                 "-m", "512M", "-T", str(bam.with_suffix(".tmp")),
                                 "-o", str(bam), "-"], stdin=mapping.stdout, stderr=handle)
        assert mapping.stdout is not None
        mapping.stdout.close()
        sort_code, map_code = sort.wait(), mapping.wait()
    if map_code != 0:
        raise ToolFailed(f"{mapper} failed mapping {name} (exit {map_code}): {_tail(log)}")
    if sort_code != 0:
        raise ToolFailed(f"samtools sort failed for {name} (exit {sort_code}): {_tail(log)}")
    run_tool(["samtools", "index", str(bam)], log)


def caller_evidence(bam: Path, reference_fasta: Path, reference: snv.Reference,
                    t: snv.Thresholds, work: Path, log: Path) -> snv.Evidence:
    """SNVPhyl's callers: freebayes (haploid, SNVs kept) confirmed by bcftools' consensus."""
    vcf = work / "freebayes.vcf"
    run_tool(["freebayes", "-p", "1", "--theta", "0.001", "-f", str(reference_fasta),
              str(bam), "-v", str(vcf)], log)
    query = subprocess.run(
        ["bcftools", "query", "-f", "%CHROM\t%POS\t%REF\t%ALT\t%DP\t%AO\t%MQM\n", str(vcf)],
        capture_output=True, text=True, check=True).stdout
    variants = snv.read_freebayes(query, reference, t)
    calls = work / "mpileup.bcf"
    with open(log, "ab") as handle:
        pile = subprocess.Popen(
            ["bcftools", "mpileup", "-I", "-Q", "0", "-q", "0", "-d", "1024", "-a", "DP",
             "-f", str(reference_fasta), str(bam)], stdout=subprocess.PIPE, stderr=handle)
        call = subprocess.Popen(["bcftools", "call", "-c", "--ploidy", "1", "-Ob", "-o",
                                 str(calls)], stdin=pile.stdout, stderr=handle)
        assert pile.stdout is not None
        pile.stdout.close()
        if call.wait() != 0 or pile.wait() != 0:
            raise ToolFailed(f"bcftools mpileup/call failed: {_tail(log)}")
    query = subprocess.run(["bcftools", "query", "-f", "%CHROM\t%POS\t%REF\t%ALT\t%DP\t[%GT]\n",
                            str(calls)], capture_output=True, text=True, check=True).stdout
    depth, base = snv.read_mpileup(query, reference)
    return snv.evidence_from_callers(variants, depth, base, reference.codes, t)


def _run_isolate(job: dict[str, Any]) -> dict[str, Any]:
    """Run :func:`process_isolate` in a child interpreter; its error becomes ours."""
    work = Path(job["work"])
    work.mkdir(parents=True, exist_ok=True)
    (work / "job.json").write_text(json.dumps(job))
    done = subprocess.run([sys.executable, "-m", "seqcore_phylogenomics.pipeline",
                           str(work / "job.json")], capture_output=True, text=True)
    result_file = work / "result.json"
    result = json.loads(result_file.read_text()) if result_file.is_file() else {}
    if done.returncode != 0 or "error" in result or "evidence" not in result:
        raise PipelineError(result.get("error") or f"failed: {done.stderr[-1500:].strip()}")
    return result


def process_isolate(job: dict[str, Any]) -> dict[str, Any]:
    """Map one isolate and compute its evidence; saved as ``evidence.npz`` in its directory."""
    work = Path(job["work"])
    work.mkdir(parents=True, exist_ok=True)
    log = work / "tools.log"
    bam = work / "alignment.bam"
    map_reads(job["mapper"], job["index"], job["reads"], job["threads"], job["safe_name"],
              bam, log)
    reference = snv.read_fasta(Path(job["reference"]))
    t = snv.Thresholds(**job["thresholds"])
    if job["caller"] == "freebayes":
        evidence = caller_evidence(bam, Path(job["reference"]), reference, t, work, log)
    else:
        counts, mean_mq = snv.pileup_counts(bam, reference)
        evidence = snv.evidence_from_counts(counts, mean_mq, reference.codes, t)
    evidence.save(work / "evidence.npz")
    return {"evidence": str(work / "evidence.npz")}


# -- trees -----------------------------------------------------------------------------------

def build_tree(method: str, labels: list[str], rows: np.ndarray, work: Path,
               tree_path: Path, stats_path: Path) -> None:
    """A maximum-likelihood tree of the SNV alignment. Tools get short internal names (PhyML
    truncates, both choke on some characters); the real names go back into the newick."""
    work.mkdir(exist_ok=True)
    internal = [f"T{i:05d}" for i in range(len(labels))]
    log = work / "tree.log"
    if rows.shape[1] == 0:
        # No valid site: every isolate is the reference; a star with zero branches.
        tree_path.write_text("(" + ",".join(f"{label}:0.0" for label in labels) + ");\n")
        stats_path.write_text("No valid SNV sites: no tree was estimated; every isolate is "
                              "identical to the reference at the valid positions.\n")
        return
    if method == "fasttree":
        fasta = work / "alignment.fasta"
        fasta.write_text("".join(f">{n}\n{r.tobytes().decode()}\n"
                                 for n, r in zip(internal, rows, strict=True)))
        program = shutil.which("fasttree") or shutil.which("FastTree") or "fasttree"
        with open(work / "fasttree.newick", "wb") as out:
            run_tool([program, "-nt", "-gtr", str(fasta)], log, stdout=out)
        newick = (work / "fasttree.newick").read_text().strip()
        stats_path.write_text(_tail(log, 20000) + "\n")
    else:
        phylip = work / "alignment.phy"
        phylip.write_text(f"{len(internal)} {rows.shape[1]}\n" + "".join(
            f"{n} {r.tobytes().decode()}\n" for n, r in zip(internal, rows, strict=True)))
        env = {**os.environ, **PHYML_ENV}
        run_tool(["phyml", "-i", str(phylip), "-d", "nt", "-m", "GTR", "-t", "e", "-v", "e",
                  "-c", "4", "-a", "e", "-s", "NNI", "-b", "-4", "-o", "tlr",
                  "--no_memory_check"], log, env=env, stdin=subprocess.DEVNULL)
        newick = Path(f"{phylip}_phyml_tree.txt").read_text().strip()
        if not newick:  # pragma: no cover - PhyML writes both or fails
            raise ToolFailed("PhyML wrote no tree.")
        stats = Path(f"{phylip}_phyml_stats.txt").read_text()
        for n, label in zip(internal, labels, strict=True):
            stats = stats.replace(n, label)
        stats_path.write_text(stats)
    mapping = dict(zip(internal, labels, strict=True))
    newick = re.sub(r"T\d{5}", lambda m: mapping[m.group(0)], newick)
    tree_path.write_text(newick + "\n")


def newick_label(name: str) -> str:
    """A newick-safe name: no spaces, parentheses, commas, colons, semicolons or quotes."""
    return re.sub(r"[\s(),:;\[\]'\"]", "_", name) or "isolate"


# -- the pipeline ------------------------------------------------------------------------------

def isolate_names(ctx: PipelineContext) -> list[str]:
    """Sample names as column headers, made unique (a sample analysed twice, or two samples
    of one name in different projects, get their object id appended)."""
    raw = [newick_label(i.sample_name) for i in ctx.inputs]
    seen: dict[str, int] = {}
    for name in raw:
        seen[name] = seen.get(name, 0) + 1
    names = [f"{n}_{i.object_id}" if seen[n] > 1 else n
             for n, i in zip(raw, ctx.inputs, strict=True)]
    if "reference" in names:
        names = [f"{n}_{i.object_id}" if n == "reference" else n
                 for n, i in zip(names, ctx.inputs, strict=True)]
    return names


def reference_path(ctx: PipelineContext) -> Path:
    """The reference resolved at launch: the type's ``job_data`` puts it in ``ctx.data`` (a
    job written by an earlier version has it in ``reference.json`` beside ``job.json``)."""
    resolved = dict(ctx.data)
    job_file = ctx.work_dir / REFERENCE_JOB_FILE
    if not resolved.get("path") and job_file.is_file():
        resolved = json.loads(job_file.read_text())
    if resolved.get("error"):
        raise PipelineError(resolved["error"])
    if not resolved.get("path"):
        raise PipelineError(
            "No reference was resolved for this submission: launch phylogenomics with POST "
            "/api/analysisSubmissions/analysisType/phylogenomics, which checks the reference "
            "(automated launches cannot choose one).")
    path = Path(resolved["path"])
    if not path.is_file():
        raise PipelineError(f"The reference {resolved.get('reference')} is no longer stored.")
    return path


def run(ctx: PipelineContext) -> dict[str, Path]:
    p = ctx.parameters
    if len(ctx.inputs) < 2:
        raise PipelineError("Phylogenomics needs the reads of at least two isolates.")
    for item in ctx.inputs:
        if len(item.files) != 2:
            raise PipelineError(f"Sample {item.sample_name} has no paired reads.")
    work = ctx.work_dir / "work"
    work.mkdir(exist_ok=True)
    try:
        reference = snv.read_fasta(reference_path(ctx))
    except snv.ReferenceError as err:
        raise PipelineError(f"The reference is not usable: {err}") from err
    fasta = work / "reference.fasta"
    snv.write_fasta(reference, fasta)
    names = isolate_names(ctx)
    t = snv.Thresholds(int(p["minimum-read-coverage"]), int(p["minimum-mean-mapping-quality"]),
                       float(p["snv-abundance-ratio"]))
    log = work / "tools.log"
    ctx.log(f"reference: {len(reference.names)} contig(s), {reference.size} bp; "
            f"{len(names)} isolates; mapper {p['mapper']}, caller {p['caller']}, "
            f"tree {p['tree']}")
    ctx.progress(0.02, "finding repeats, indexing the reference")
    repeats_job = snv.start_repeat_search(fasta, work / "self")
    try:
        run_tool(["samtools", "faidx", str(fasta)], log)
        index = index_reference(p["mapper"], fasta, log)
        evidence = _map_all(ctx, names, index, fasta, t, work)
        ctx.progress(0.8, "consolidating")
        try:
            repeats = snv.finish_repeat_search(repeats_job, work / "self", reference,
                                               int(p["repeat-minimum-length"]),
                                               float(p["repeat-minimum-pid"]))
        except RuntimeError as err:
            raise ToolFailed(str(err)) from err
    finally:
        if repeats_job.poll() is None:
            repeats_job.kill()
            repeats_job.wait()
    snv.write_bed(repeats, reference, work / "invalid_positions.bed")
    density = ((int(p["filter-density-window-size"]), int(p["filter-density-threshold"]))
               if p["run-density-filter"] else None)
    result = snv.consolidate(reference, evidence, repeats, density, names)
    out = {key: ctx.output_path(file_name) for key, file_name in OUTPUT_FILES.items()}
    percentages = snv.mapped_percentages(evidence, t.min_coverage)
    low = snv.write_mapping_quality(reference, names, percentages, t.min_coverage,
                                    float(p["minimum-percent-coverage"]), out["mapping-quality"])
    for name in low:
        ctx.log(f"{name} covers less than {p['minimum-percent-coverage']}% of the reference at "
                f"depth {t.min_coverage}; kept, as SNVPhyl does (see mappingQuality.txt)")
    snv.write_table(result, reference, names, out["table"])
    snv.write_matrix(result, reference, names, out["matrix"])
    snv.write_phylip(result, reference, names, out["alignment"])
    snv.write_core(result, reference, out["core"])
    snv.write_filter_stats(out["table"], out["filter-stats"])
    ctx.progress(0.9, f"building the tree ({int(result.valid.sum())} valid sites)")
    labels, rows = snv.alignment(result, reference)
    build_tree(p["tree"], [*labels, *names], rows, work / "tree", out["tree"],
               out["tree-stats"])
    ctx.progress(1.0, "done")
    return out


def _map_all(ctx: PipelineContext, names: list[str], index: str, fasta: Path,
             t: snv.Thresholds, work: Path) -> list[snv.Evidence]:
    """Every isolate in a pool of processes: as many at once as there are threads (each
    mapper then gets its share), so two cores run two isolates side by side."""
    threads = max(1, int(ctx.threads))
    parallel = min(len(names), threads)
    jobs = [{"work": str(work / f"isolate{i}"), "mapper": ctx.parameters["mapper"],
             "caller": ctx.parameters["caller"], "index": index,
             "reads": [str(f) for f in item.files], "threads": max(1, threads // parallel),
             "safe_name": f"isolate{i}", "reference": str(fasta),
             "thresholds": t.__dict__} for i, item in enumerate(ctx.inputs)]
    ctx.progress(0.05, f"mapping {len(jobs)} isolates, {parallel} at a time")
    results: list[dict[str, Any]] = [{} for _ in jobs]
    # Each isolate runs in a child interpreter of its own: the pileup is CPU-bound Python,
    # and a child process works under every executor (Celery's daemonic workers may not
    # fork process pools).
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        futures = {pool.submit(_run_isolate, job): i for i, job in enumerate(jobs)}
        for done, future in enumerate(as_completed(futures), 1):
            i = futures[future]
            try:
                results[i] = future.result()
            except PipelineError as err:
                for other in futures:
                    other.cancel()
                raise PipelineError(f"isolate {names[i]}: {err}") from None
            ctx.log(f"mapped {names[i]}")
            ctx.progress(0.05 + 0.75 * done / len(jobs), f"mapped {done} of {len(jobs)}")
    return [snv.Evidence.load(Path(r["evidence"])) for r in results]


def _main(job_file: str) -> int:
    """``python -m seqcore_phylogenomics.pipeline job.json``: one isolate, result beside it."""
    job = json.loads(Path(job_file).read_text())
    result_file = Path(job["work"]) / "result.json"
    try:
        result: dict[str, Any] = process_isolate(job)
    except PipelineError as err:
        result = {"error": str(err)}
    except Exception as err:  # anything else is reported the same way, with its type
        result = {"error": f"{type(err).__name__}: {err}"}
    result_file.write_text(json.dumps(result))
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
