"""A small client of the GA4GH Workflow Execution Service API (WES 1.0/1.1).

Only what seqcore needs: service info (readiness), ``POST /runs`` with the workflow file
attached, a run's status and log, and cancelling. The base URL is the server's API root
(``http://host:8080/ga4gh/wes/v1``); a bearer token, when configured, goes with every call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import httpx

from seqcore.plugin import trace_headers, trace_span

URL = "seqcore.wes.url"
TOKEN = "seqcore.wes.token"
TIMEOUT = "seqcore.wes.timeout_seconds"


class WesUnavailable(Exception):
    """The server did not answer (refused, timed out, or a 5xx): worth asking again later."""


class WesError(Exception):
    """The server answered and refused (a 4xx): asking again will not help."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


def _template(path: str) -> str:
    """``/runs/{run_id}/status`` for ``/runs/abc/status``: a bounded span attribute."""
    parts = path.split("/")
    if len(parts) > 2 and parts[1] == "runs":
        parts[2] = "{run_id}"
    return "/".join(parts)


class WesClient:
    def __init__(self, base_url: str, token: str = "", timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.timeout = timeout

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> WesClient:
        return cls(str(settings.get(URL) or ""), str(settings.get(TOKEN) or ""),
                   float(settings.get(TIMEOUT) or 10))

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        if not self.base_url:
            raise WesUnavailable(f"no WES server is configured ({URL} is empty)")
        # A span per call inside the worker's span of the job, its trace sent along.
        with trace_span(f"WES {method}", {"http.request.method": method,
                                          "server.address": self.base_url,
                                          "url.template": _template(path)},
                        kind="client") as span:
            try:
                response = httpx.request(method, f"{self.base_url}{path}",
                                         headers={**self.headers, **trace_headers()},
                                         timeout=self.timeout, **kwargs)
            except httpx.HTTPError as err:
                raise WesUnavailable(f"{self.base_url} did not answer: {err}") from err
            if span is not None:
                span.set_attribute("http.response.status_code", response.status_code)
        if response.status_code >= 500:
            raise WesUnavailable(f"{method} {path}: {response.status_code} "
                                 f"{response.text[:500]}")
        if response.status_code >= 400:
            raise WesError(f"{method} {path}: {response.status_code} {response.text[:500]}",
                           response.status_code)
        try:
            return response.json()
        except json.JSONDecodeError as err:
            raise WesUnavailable(f"{method} {path}: the answer is not JSON") from err

    def service_info(self) -> dict[str, Any]:
        return self._call("GET", "/service-info")

    def submit(self, workflow_url: str, workflow_type: str, workflow_type_version: str,
               params: Mapping[str, Any], attachments: list[Path] = (),  # type: ignore[assignment]
               tags: Mapping[str, str] | None = None,
               engine_parameters: Mapping[str, Any] | None = None,
               workflow_engine: str = "") -> str:
        """``POST /runs`` as multipart form data (WES 1.1's workflow_attachment); the run id."""
        data = {"workflow_params": json.dumps(params), "workflow_type": workflow_type,
                "workflow_type_version": workflow_type_version, "workflow_url": workflow_url,
                "tags": json.dumps(dict(tags or {})),
                "workflow_engine_parameters": json.dumps(dict(engine_parameters or {}))}
        if workflow_engine:  # WES 1.1 (Sapporo reads it)
            data["workflow_engine"] = workflow_engine
        handles = [path.open("rb") for path in attachments]
        try:
            files = [("workflow_attachment", (path.name, handle))
                     for path, handle in zip(attachments, handles, strict=True)]
            answer = self._call("POST", "/runs", data=data, files=files or None)
        finally:
            for handle in handles:
                handle.close()
        return str(answer["run_id"])

    def status(self, run_id: str) -> str:
        return str(self._call("GET", f"/runs/{run_id}/status")["state"])

    def run_log(self, run_id: str) -> dict[str, Any]:
        return self._call("GET", f"/runs/{run_id}")

    def cancel(self, run_id: str) -> None:
        self._call("POST", f"/runs/{run_id}/cancel")

    def download(self, url: str, target: Path) -> None:
        """An output served over HTTP(S) by the WES server (with the same credentials)."""
        try:
            with httpx.stream("GET", url, headers=self.headers, timeout=self.timeout,
                              follow_redirects=True) as response:
                response.raise_for_status()
                with target.open("wb") as out:
                    for chunk in response.iter_bytes():
                        out.write(chunk)
        except httpx.HTTPError as err:
            raise WesUnavailable(f"could not download {url}: {err}") from err
