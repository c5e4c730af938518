"""Uploading reads and running analyses through the API, as a client and the workers would:
the ``upload_reads`` and ``run_analysis`` fixtures of :mod:`seqcore.testing`.

Uploads go through ``POST /api/samples/{id}/<kind>`` with the kind's own multipart parts, and
the processing worker then runs (QC, decompression) as after any upload. Analyses are
launched through ``POST /api/analysisSubmissions/analysisType/<type>`` and driven by an
:class:`seqcore.analysis.worker.AnalysisWorker` on the application's registry, so the job
runs on whichever executor the application is configured with (the ``local`` one unless
``seqcore.analysis.executor`` or a plugin's ``select_executor`` says otherwise).
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from seqcore.framework.contrib import FileKind
from seqcore.testing.factories import pick_kind
from seqcore.testing.uploads import multipart

TERMINAL = ("COMPLETED", "ERROR")
Part = tuple[str, str | None, bytes, str | None]


def upload_parts(kind: FileKind, files: list[tuple[str, bytes]]) -> list[Part]:
    """The multipart parts of one upload of ``kind``: ``file``/``parameters`` for one file,
    ``file1``, ``file2``, ... and ``parameters1``, ... for more."""
    if len(files) != kind.files:
        raise ValueError(f"file kind {kind.name!r} takes {kind.files} file(s) per object, "
                         f"got {len(files)}")
    if kind.files == 1:
        (name, content), = files
        return [("file", f"/home/lab/run/{name}", content, None),
                ("parameters", None, b"{}", "application/json")]
    parts: list[Part] = [(f"file{i}", f"/home/lab/run/{name}", content, None)
                         for i, (name, content) in enumerate(files, start=1)]
    parts += [(f"parameters{i}", None, b"{}", "application/json")
              for i in range(1, kind.files + 1)]
    return parts


def find_kind(registry: Any, name: str | None) -> FileKind:
    """The application's kind named ``name``, by default its first default analysis
    input."""
    kinds = registry.get("seqcore.file_kinds", {}).values()
    return pick_kind({kind.name: kind for kind in kinds}, name)


@dataclass
class UploadedReads:
    """One uploaded sequencing object: its id (what a launch names), its kind, the URL of
    the object and the upload's response body."""

    id: int
    kind: str
    url: str
    body: dict[str, Any]


@dataclass
class AnalysisRun:
    """A submission driven to a terminal state: its REST resource, and once ``COMPLETED``
    its outputs by rel (``outputFile/<key>`` → bytes)."""

    id: int
    state: str
    submission: dict[str, Any]
    outputs: dict[str, bytes] = field(default_factory=dict)

    @property
    def error(self) -> str | None:
        return self.submission.get("analysisError")


class ReadsUploader:
    """``upload_reads(sample, headers, kind=None, files=None, process=True)``."""

    def __init__(self, testapp: Any, registry: Any) -> None:
        self.testapp = testapp
        self.registry = registry

    def __call__(self, sample: Any, headers: Mapping[str, str], kind: str | None = None,
                 files: Iterable[tuple[str, bytes]] | None = None, process: bool = True
                 ) -> UploadedReads:
        """Upload one object of ``kind`` (default: the first default analysis input) to
        ``sample`` (a model or an id); ``files`` default to the kind's ``sample_files``.
        With ``process`` the processing worker then runs until idle."""
        declared = find_kind(self.registry, kind)
        if files is None:
            if declared.sample_files is None:
                raise ValueError(f"file kind {declared.name!r} declares no sample_files; "
                                 "give the files")
            files = declared.sample_files()
        sample_id = getattr(sample, "id", sample)
        body, content_type = multipart(upload_parts(declared, list(files)))
        res = self.testapp.post(f"/api/samples/{sample_id}/{declared.path_segment}", body,
                                headers={**headers, "Content-Type": content_type}, status=201)
        found = re.search(rf"/api/samples/{sample_id}/{re.escape(declared.path_segment)}"
                          r"/(\d+)", res.headers["Location"])
        assert found, f"unexpected Location {res.headers['Location']!r}"
        if process:
            from seqcore.qc.processing import Worker

            Worker(self.registry).run_until_idle()
        return UploadedReads(int(found.group(1)), declared.name, found.group(0),
                             res.json["resource"])


class AnalysisRunner:
    """``run_analysis(analysis_type, inputs, headers, parameters=None, timeout=300,
    path=None, **body)``; ``launch`` and ``drive`` are the two halves."""

    def __init__(self, testapp: Any, registry: Any) -> None:
        self.testapp = testapp
        self.registry = registry

    def launch(self, analysis_type: str, inputs: Iterable[Any], headers: Mapping[str, str],
               parameters: Mapping[str, Any] | None = None, status: int = 201,
               path: str | None = None, **body: Any) -> Any:
        """``POST /api/analysisSubmissions/analysisType/<type>`` (or ``path``, a type's own
        launch endpoint) naming ``inputs`` (:class:`UploadedReads`, sequencing objects or
        ids); returns the response."""
        ids = [getattr(item, "id", item) for item in inputs]
        payload = {"name": body.pop("name", f"{analysis_type} (test)"),
                   "sequencingObjects": ids, **body}
        if parameters is not None:
            payload["parameters"] = dict(parameters)
        return self.testapp.post_json(
            path or f"/api/analysisSubmissions/analysisType/{analysis_type}", payload,
            headers=dict(headers), status=status)

    def drive(self, submission_id: int, headers: Mapping[str, str], timeout: float = 300.0,
              interval: float = 0.1) -> AnalysisRun:
        """Run the analysis worker until the submission is ``COMPLETED`` or ``ERROR``."""
        from seqcore.analysis.worker import AnalysisWorker

        worker = AnalysisWorker(self.registry)
        deadline = time.monotonic() + timeout
        url = f"/api/analysisSubmissions/{submission_id}"
        while True:
            worker.run_once()
            resource = self.testapp.get(url, headers=dict(headers)).json["resource"]
            if resource["analysisState"] in TERMINAL:
                break
            if time.monotonic() > deadline:
                raise TimeoutError(f"submission {submission_id} still "
                                   f"{resource['analysisState']} after {timeout} s")
            time.sleep(interval)
        run = AnalysisRun(submission_id, resource["analysisState"], resource)
        if run.state == "COMPLETED":
            run.outputs = self.outputs(resource, headers)
        return run

    def outputs(self, resource: Mapping[str, Any], headers: Mapping[str, str]
                ) -> dict[str, bytes]:
        """A completed submission's outputs by rel, downloaded as a client would."""
        links = {link["rel"]: link["href"] for link in resource["links"]}
        analysis = self.testapp.get(links["analysis"], headers=dict(headers)).json["resource"]
        return {link["rel"]: self.testapp.get(link["href"], headers={
            **headers, "Accept": "text/plain"}).body
            for link in analysis["links"] if link["rel"].startswith("outputFile/")}

    def __call__(self, analysis_type: str, inputs: Iterable[Any], headers: Mapping[str, str],
                 parameters: Mapping[str, Any] | None = None, timeout: float = 300.0,
                 path: str | None = None, **body: Any) -> AnalysisRun:
        """Launch through the API and drive the submission to a terminal state."""
        res = self.launch(analysis_type, inputs, headers, parameters, path=path, **body)
        return self.drive(int(res.json["resource"]["identifier"]), headers, timeout)
