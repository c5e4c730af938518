"""A finished WES run's outputs, and IRIDA Next's ``iridanext.output.json.gz`` convention.

A pipeline hands its results back in ``iridanext.output.json.gz``::

    {"files": {"global": [{"path": "summary.txt"}],
               "samples": {"<sample>": [{"path": "reads/<sample>.txt"}]}},
     "metadata": {"samples": {"<sample>": {"reads": 12, "qc": {"passed": true}}}}}

Paths are relative to the directory that holds the file (the run's output directory); the
sample keys are the samplesheet's ``sample`` column. Nested metadata is flattened into
``qc.passed`` keys, as IRIDA Next does.
"""

from __future__ import annotations

import gzip
import json
import re
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

IRIDANEXT_OUTPUT = "iridanext.output.json.gz"
OUTPUT_KEY = "iridanext-output"
SAMPLESHEET_KEY = "samplesheet"
EMPTY: dict[str, Any] = {"files": {"global": [], "samples": {}}, "metadata": {"samples": {}}}


def locations(value: Any) -> Iterator[str]:
    """Every file location in a run log's ``outputs``: CWL ``File`` objects (and the files
    listed in a ``Directory``), or the ``file_url`` entries other WES servers answer with."""
    if isinstance(value, Mapping):
        if value.get("class") == "File" and value.get("location"):
            yield str(value["location"])
        for key in ("file_url", "url"):
            if isinstance(value.get(key), str):
                yield value[key]
        for key, item in value.items():
            if key not in ("secondaryFiles",) and isinstance(item, Mapping | list):
                yield from locations(item)
            if key == "secondaryFiles":
                yield from locations(item)
    elif isinstance(value, list):
        for item in value:
            yield from locations(item)


def fetch_outputs(outputs: Any, target: Path, download: Any) -> list[Path]:
    """Copy (``file://``) or download (``http(s)://``) every output file into ``target``,
    keeping the path below the common output directory, so the relative paths in
    ``iridanext.output.json.gz`` still resolve."""
    found = list(dict.fromkeys(locations(outputs)))
    target.mkdir(parents=True, exist_ok=True)
    parsed = [urlparse(location) for location in found]
    local = [Path(unquote(p.path)) for p in parsed]
    common = None
    manifests = [path.parent for path in local if path.name == IRIDANEXT_OUTPUT]
    if manifests:
        common = manifests[0]
    out = []
    for location, url, path in zip(found, parsed, local, strict=True):
        try:
            relative = path.relative_to(common) if common else Path(path.name)
        except ValueError:
            relative = Path(path.name)
        destination = target / relative
        destination.parent.mkdir(parents=True, exist_ok=True)
        if url.scheme in ("", "file"):
            shutil.copyfile(path, destination)
        else:
            download(location, destination)
        out.append(destination)
    return out


def read_manifest(path: Path | None) -> dict[str, Any]:
    """The parsed ``iridanext.output.json.gz``; a missing file reads as an empty one."""
    if path is None or not path.exists():
        return json.loads(json.dumps(EMPTY))
    with gzip.open(path, "rt") as handle:
        data = json.load(handle)
    if not isinstance(data, dict):
        raise ValueError(f"{IRIDANEXT_OUTPUT} is not a JSON object")
    return data


def flatten(values: Mapping[str, Any], prefix: str = "") -> dict[str, str]:
    """Nested metadata as ``a.b`` keys; every value a string (booleans lower-case)."""
    out: dict[str, str] = {}
    for key, value in values.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            out.update(flatten(value, f"{name}."))
        elif isinstance(value, bool):
            out[name] = "true" if value else "false"
        elif value is None:
            continue
        elif isinstance(value, list):
            out[name] = json.dumps(value)
        else:
            out[name] = str(value)
    return out


def output_key(*parts: str) -> str:
    """An output key safe in a rel (``outputFile/<key>``) and a file name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", "-".join(parts)).strip("-")


def collect(outputs: Any, run_dir: Path, download: Any) -> dict[str, str]:
    """The job's ``{output key: path}``: the manifest (written empty when the pipeline wrote
    none, so the declared output always exists) and every file it names."""
    fetched = fetch_outputs(outputs, run_dir / "outputs", download)
    manifest_path = next((p for p in fetched if p.name == IRIDANEXT_OUTPUT), None)
    manifest = read_manifest(manifest_path)
    if manifest_path is None:
        manifest_path = run_dir / "outputs" / IRIDANEXT_OUTPUT
        with gzip.open(manifest_path, "wt") as handle:
            json.dump(manifest, handle)
    base = manifest_path.parent
    result = {OUTPUT_KEY: str(manifest_path)}
    files = manifest.get("files") or {}
    for entry in files.get("global") or []:
        path = base / entry["path"]
        result[output_key("global", entry["path"])] = str(_inside(base, path))
    for sample, entries in sorted((files.get("samples") or {}).items()):
        for entry in entries or []:
            path = base / entry["path"]
            result[output_key("sample", str(sample), entry["path"])] = str(_inside(base, path))
    return result


def _inside(base: Path, path: Path) -> Path:
    """A manifest may only name files of the run's own output."""
    resolved = path.resolve()
    if not resolved.is_relative_to(base.resolve()) or not resolved.is_file():
        raise ValueError(f"{IRIDANEXT_OUTPUT} names {path.relative_to(base)}, which the run "
                         "did not output")
    return resolved
