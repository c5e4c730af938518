"""The analysis page's view of a workflow execution's ``iridanext.output.json.gz``: the files
the run handed back (global, then by sample) with their download links, and the metadata it
reports for each sample, as IRIDA Next shows them.

Every pipeline descriptor is an analysis type made at start-up, and all declare the same
rel, so the view is declared for any type (``ANY_TYPE``). The manifest names files by path
(their output keys follow :func:`seqcore_wes.outputs.output_key`) and samples by the
samplesheet's ``sample`` column (the PUID).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from seqcore.plugin import ANY_TYPE, OutputView, ViewAssets, ViewInput
from seqcore_wes import outputs

HERE = Path(__file__).resolve().parent


def _file(view: ViewInput, key: str, path: str) -> dict[str, Any]:
    """One file of the manifest: its path and the stored output (``None``: not kept)."""
    return {"path": path, "output": view.outputs.get(key)}


def manifest_context(view: ViewInput) -> dict[str, Any]:
    manifest = outputs.read_manifest(view.path)
    files = manifest.get("files") or {}
    rows = [{"sample": None, **_file(view, outputs.output_key("global", entry["path"]),
                                     entry["path"])}
            for entry in files.get("global") or []]
    for sample, entries in sorted((files.get("samples") or {}).items()):
        rows.extend({"sample": str(sample), **_file(
            view, outputs.output_key("sample", str(sample), entry["path"]), entry["path"])}
            for entry in entries or [])
    reported = (manifest.get("metadata") or {}).get("samples") or {}
    metadata = {str(sample): outputs.flatten(values)
                for sample, values in sorted(reported.items()) if isinstance(values, dict)}
    fields = sorted({field for values in metadata.values() for field in values})
    return {"files": rows, "metadata": metadata, "fields": fields,
            "samplesheet": view.outputs.get(outputs.SAMPLESHEET_KEY)}


def register() -> list[Any]:
    return [
        ViewAssets("wes", HERE / "templates", translations=HERE / "locale"),
        OutputView(ANY_TYPE, f"outputFile/{outputs.OUTPUT_KEY}", "wes/outputs.mako",
                   context=manifest_context),
    ]
