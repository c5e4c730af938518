"""Many keep-alive clients at once against a server on loopback, for the concurrency test and
``bench/api.py --mix``: each client thread holds one HTTP/1.1 connection and sends a mix of
requests until the time is up; latencies, statuses and errors are collected. The workload
both send is :func:`mixed_steps`."""

from __future__ import annotations

import http.client
import random
import threading
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

# (method, path, headers, body); a callable builds a fresh one per request (uploads).
Request = tuple[str, str, dict[str, str], bytes | None]
Step = Request | Callable[[random.Random], Request]


@dataclass
class LoadResult:
    seconds: float
    latencies: list[float] = field(default_factory=list)  # seconds, per completed request
    statuses: Counter[int] = field(default_factory=Counter[int])
    errors: list[str] = field(default_factory=list)  # connection failures, timeouts

    @property
    def requests(self) -> int:
        return len(self.latencies)

    @property
    def server_errors(self) -> int:
        return sum(n for status, n in self.statuses.items() if status >= 500)

    def percentile(self, p: float) -> float:
        ordered = sorted(self.latencies)
        if not ordered:
            return float("nan")
        return ordered[min(len(ordered) - 1, int(p / 100 * len(ordered)))]

    def summary(self) -> dict[str, object]:
        return {
            "clients_requests": self.requests,
            "throughput_rps": round(self.requests / self.seconds, 1),
            "p50_ms": round(self.percentile(50) * 1000, 1),
            "p95_ms": round(self.percentile(95) * 1000, 1),
            "p99_ms": round(self.percentile(99) * 1000, 1),
            "statuses": {str(k): v for k, v in sorted(self.statuses.items())},
            "errors": len(self.errors),
        }


def run_load(port: int, steps: Sequence[tuple[Step, int]], clients: int, seconds: float,
             seed: int = 1) -> LoadResult:
    """``clients`` threads, each on one keep-alive connection, sending requests drawn from
    ``steps`` (each with a weight) for ``seconds``."""
    choices = [step for step, _ in steps]
    weights = [weight for _, weight in steps]
    result = LoadResult(seconds)
    lock = threading.Lock()
    start_gate = threading.Barrier(clients)
    stop = [0.0]

    def client(number: int) -> None:
        rng = random.Random(seed * 1000 + number)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        latencies: list[float] = []
        statuses: Counter[int] = Counter()
        errors: list[str] = []
        start_gate.wait()
        while time.perf_counter() < stop[0]:
            step = rng.choices(choices, weights)[0]
            method, path, headers, body = step(rng) if callable(step) else step
            began = time.perf_counter()
            try:
                conn.request(method, path, body=body, headers=headers)
                res = conn.getresponse()
                res.read()
            except (OSError, http.client.HTTPException) as exc:
                errors.append(f"{method} {path}: {exc!r}")
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
                continue
            latencies.append(time.perf_counter() - began)
            statuses[res.status] += 1
            if res.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        conn.close()
        with lock:
            result.latencies.extend(latencies)
            result.statuses.update(statuses)
            result.errors.extend(errors)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    stop[0] = time.perf_counter() + seconds + 1.0  # the barrier releases within a second
    began = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    result.seconds = time.perf_counter() - began
    return result


def mixed_steps(token: str, projects: list[int], samples: list[int]
                ) -> list[tuple[Step, int]]:
    """The mixed workload of the concurrency test and ``bench/api.py --mix``: reads of
    projects, the project collection, samples and metadata, and small uploads (weights in
    parts), as ``token``'s bearer."""
    from seqcore.testing.uploads import fastq, gz, multipart

    auth = {"Authorization": f"Bearer {token}"}
    reads = {"Authorization": f"Bearer {token}", "Accept": "application/json"}

    def read(path_of: Callable[[random.Random], str]) -> Step:
        return lambda rng: ("GET", path_of(rng), reads, None)

    def upload(rng: random.Random) -> Request:
        sid = rng.choice(samples)
        body, content_type = multipart([
            ("file", f"r{rng.randrange(10**9)}.fastq.gz", gz(fastq(20, seed=rng.randrange(99))),
             None),
            ("parameters", None, b"{}", "application/json")])
        return ("POST", f"/api/samples/{sid}/unpaired",
                {**auth, "Content-Type": content_type}, body)

    return [
        (read(lambda rng: f"/api/projects/{rng.choice(projects)}"), 4),
        (read(lambda rng: "/api/projects"), 2),
        (read(lambda rng: f"/api/projects/{rng.choice(projects)}/samples"), 3),
        (read(lambda rng: f"/api/samples/{rng.choice(samples)}"), 3),
        (read(lambda rng: f"/api/samples/{rng.choice(samples)}/metadata"), 3),
        (upload, 1),
    ]
