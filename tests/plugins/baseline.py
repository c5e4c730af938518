"""An analysis type with a launch field of its own, for the framework's tests.

``baseline`` names a sample the caller must be allowed to read; the launch check resolves it,
``record_launch`` keeps what it resolved, and ``job_data`` hands the baseline's reads to the
pipeline. A real plugin keeps the record in a table of its own (see the phylogenomics
plugin); this one keeps it in memory, which is enough for one test process.
"""

from typing import Any

from sqlalchemy import select

from seqcore import hookimpl
from seqcore.analysis.launching import Launch, LaunchChecked
from seqcore.framework.contrib import AnalysisType, OutputRel
from seqcore.models.sample import Sample
from seqcore.models.sequencing import SequencingObject
from seqcore.parsing.identifiers import parse_id
from seqcore.security.permissions import Permission

RECORDS: dict[int, dict[str, Any]] = {}


def check_baseline(launch: Launch) -> LaunchChecked:
    value = launch.request.extra.get("baseline")
    if value is None:
        return LaunchChecked(problems={"baseline": ["'baseline' is required."]})
    sample_id = parse_id(value) if isinstance(value, (int, str)) else None
    if sample_id is None:
        return LaunchChecked(problems={"baseline": ["'baseline' must be a sample id."]})
    if not launch.actor.may(Permission.SAMPLE_READ, "samples", str(sample_id)):
        return LaunchChecked(problems={"baseline": [f"There is no sample {sample_id}."]})
    if sample_id in launch.sample_ids:
        return LaunchChecked(problems={"baseline": [
            "The baseline must not be one of the samples analysed."]})
    latest = launch.db.scalar(select(SequencingObject.id).where(
        SequencingObject.sample_id == sample_id).order_by(SequencingObject.id.desc()).limit(1))
    if latest is None:
        return LaunchChecked(problems={"baseline": [f"Sample {sample_id} has no reads."]})
    return LaunchChecked(resolved={"sample_id": sample_id, "object_id": latest})


def record_baseline(launch: Launch, submission: Any, resolved: dict[str, Any]) -> None:
    RECORDS[submission.id] = dict(resolved)


def baseline_data(source: Any) -> dict[str, Any]:
    record = RECORDS[source.submission.id]
    sample = source.db.get(Sample, record["sample_id"])
    obj = source.db.get(SequencingObject, record["object_id"])
    return {"name": sample.name,
            "files": [str(source.storage.path(f.path)) for f in obj.files]}


BASELINE = AnalysisType(
    name="baseline", label="Reads against a baseline", workflow_id="baseline-1",
    pipeline="tests.plugins.baseline_pipeline:compare", inputs=("pairs", "unpaired"),
    samples="many", launch_fields=("baseline",), launch_check=check_baseline,
    record_launch=record_baseline, job_data=baseline_data)


@hookimpl
def register_analysis_types():
    return [BASELINE]


@hookimpl
def register_output_rels():
    return [OutputRel("baseline", "outputFile/report", "report", "report.tsv")]
