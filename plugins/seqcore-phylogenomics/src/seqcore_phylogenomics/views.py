"""The analysis page's view of a phylogenomic tree: the Newick tree (parsed with Bio.Phylo)
drawn as a rectangular cladogram whose tips are coloured by a metadata field chosen with
``?colour=<field>``, beside the SNV distance matrix and SNVPhyl's filter statistics.

Tips are the samples' Newick-safe names (:func:`seqcore_phylogenomics.pipeline.newick_label`,
with the object id appended when two inputs share a name), so each tip finds its sample
through the submission's inputs; the colours come only from metadata the signed-in account
may read, as everywhere else.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from Bio import Phylo
from sqlalchemy import select

from seqcore.plugin import (
    Invalid,
    OutputView,
    Sample,
    SequencingObject,
    SubmissionInput,
    TreeNode,
    ViewAssets,
    ViewInput,
    readable_metadata,
    tree_svg,
)

from .pipeline import newick_label

HERE = Path(__file__).resolve().parent
MAX_MATRIX = 60  # isolates; a larger matrix is offered as the download only


def parse_newick(text: str) -> TreeNode:
    """The tree of a Newick text, as the core's :class:`TreeNode`."""
    tree = Phylo.read(io.StringIO(text.strip()), "newick")

    def convert(clade: Any) -> TreeNode:
        return TreeNode(name=clade.name or "", length=clade.branch_length or 0.0,
                        children=[convert(child) for child in clade.clades])

    return convert(tree.root)


def tip_samples(db: Any, submission_id: int) -> dict[str, int]:
    """Each tip name the pipeline may have written for an input, to its sample's id: the
    sample's Newick-safe name, or that name with the object id appended (duplicates)."""
    rows = db.execute(
        select(SequencingObject.id, Sample.id, Sample.name)
        .join(SubmissionInput, SubmissionInput.object_id == SequencingObject.id)
        .join(Sample, Sample.id == SequencingObject.sample_id)
        .where(SubmissionInput.submission_id == submission_id)).all()
    counts: dict[str, int] = {}
    for _object_id, _sample_id, name in rows:
        counts[newick_label(name)] = counts.get(newick_label(name), 0) + 1
    tips: dict[str, int] = {}
    for object_id, sample_id, name in rows:
        label = newick_label(name)
        tips[f"{label}_{object_id}"] = sample_id
        if counts[label] == 1 and label != "reference":
            tips[label] = sample_id
    return tips


def _read_tsv(path: Path) -> list[list[str]]:
    return [line.split("\t") for line in path.read_text().splitlines() if line.strip()]


def tree_context(view: ViewInput) -> dict[str, Any]:
    request = view.request
    submission = view.subject
    root = parse_newick(view.path.read_text())
    samples = tip_samples(request.db, submission.id)
    metadata = readable_metadata(request, set(samples.values()))
    fields = sorted({name for values in metadata.values() for name in values})
    chosen = request.GET.get("colour", "")
    if chosen and chosen not in fields:
        # Worded like a field that does not exist, whether hidden or absent.
        raise Invalid.field("colour", view.translate(
            "No metadata field ${field} to colour the tree by.", field=repr(chosen)))
    categories = None
    if chosen:
        categories = {tip: metadata.get(sample_id, {}).get(chosen, "")
                      for tip, sample_id in samples.items()}
    translate = view.translate
    drawing = tree_svg(
        f"tree-{view.item.id}", translate("Phylogenetic tree"),
        translate("A rectangular cladogram of the isolates; tips are coloured by the "
                  "metadata field chosen above, with the legend on the right.") if chosen else
        translate("A rectangular cladogram of the isolates."),
        root, categories=categories, legend_title=chosen, missing=translate("no value"),
        clade_title=translate("Clade of ${count} tips"))
    matrix = filter_stats = None
    # Read through local copies: the files themselves, or copies staged from an object store.
    if "matrix" in view.outputs:
        with request.storage.local_copy(view.outputs["matrix"].file.path) as path:
            rows = _read_tsv(path)
        matrix = rows if len(rows) <= MAX_MATRIX + 1 else None
    if "filter-stats" in view.outputs:
        with request.storage.local_copy(view.outputs["filter-stats"].file.path) as path:
            filter_stats = path.read_text()
    return {"drawing": drawing, "fields": fields, "chosen": chosen, "matrix": matrix,
            "filter_stats": filter_stats, "tips": len(root.tips())}


def register() -> list[Any]:
    return [
        ViewAssets("phylogenomics", HERE / "templates", translations=HERE / "locale"),
        OutputView("phylogenomics", "outputFile/tree", "phylogenomics/tree.mako",
                   context=tree_context),
    ]
