"""The samplesheet a pipeline reads as its ``input`` parameter, built as IRIDA Next builds it.

Its columns are the samplesheet schema's ``items.properties``, in order. A row per sample:

* ``sample``: the sample's PUID, as IRIDA Next writes it; the keys of
  ``iridanext.output.json.gz`` name samples by this value;
* ``sample_name``: the sample's name;
* ``fastq_1``, ``fastq_2``, ... (``fastq_<n>``): the n-th file of the sample's sequencing
  object, a pair's forward file first (its absolute path, or with an object-store backend a
  signed URL of the store); empty when it has fewer files;
* a column with ``meta`` or ``x-irida-next-selected``: the sample's metadata field of that
  name (``x-irida-next-selected`` names the field, else the column's own name); empty when
  the sample has none;
* any other column: its schema ``default``, else empty.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

FASTQ = re.compile(r"^fastq_(\d+)$")


def metadata_field(column: str, prop: Mapping[str, Any]) -> str | None:
    """The metadata field a column is filled from, or ``None`` for other columns."""
    if prop.get("x-irida-next-selected"):
        return str(prop["x-irida-next-selected"])
    if prop.get("meta") and column not in ("sample", "sample_name"):
        return column
    return None


def rows(schema: Mapping[str, Any], inputs: list[Mapping[str, Any]],
         metadata: Mapping[str, Mapping[str, str]], puids: Mapping[str, str]
         ) -> tuple[list[str], list[list[str]]]:
    """The header and one row per sample (its first input object). ``puids`` are the
    samples' PUIDs by seqcore id; a job written before it carried them names samples by id."""
    properties: Mapping[str, Any] = schema["items"]["properties"]
    header = list(properties)
    out: list[list[str]] = []
    seen: set[int] = set()
    for item in inputs:
        sample_id = int(item["sample_id"])
        if sample_id in seen:
            continue
        seen.add(sample_id)
        values = metadata.get(str(sample_id), {})
        row = []
        for column, prop in properties.items():
            match = FASTQ.match(column)
            field = metadata_field(column, prop)
            if column == "sample":
                row.append(puids.get(str(sample_id), str(sample_id)))
            elif column == "sample_name":
                row.append(str(item["sample_name"]))
            elif match:
                index = int(match.group(1)) - 1
                urls = item.get("urls") or []
                files = item["files"]
                if urls:  # in an object store: signed URLs the WES server reads
                    row.append(str(urls[index]) if index < len(urls) else "")
                else:  # absolute: the WES server reads them from its own working directory
                    row.append(str(Path(files[index]).resolve()) if index < len(files)
                               else "")
            elif field is not None:
                row.append(values.get(field, ""))
            else:
                default = prop.get("default")
                row.append("" if default is None else str(default))
        out.append(row)
    return header, out


def write(path: Path, header: list[str], body: list[list[str]]) -> Path:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(body)
    return path
