"""What a small hostile GraphQL document costs the server: fragment chains (each fragment
spreads the previous one twice) at depths 12, 16 and 24, and 20,000 aliases, each timed with
its peak memory against ``{ __typename }`` in the same process (the anchor).

Each document runs in a child process of its own, through the deployed application (plugins
from entry points, the access log written) over WebTest with a personal access token, so a
document that does not finish is stopped at ``--timeout`` and reported as such, and the
peak memory (``ru_maxrss``) is the document's own. ``--root`` measures another checkout's
code with the same documents (the figures before a change):

    .venv/bin/python bench/graphql_limits.py [--timeout 60] [--root /path/to/checkout] [--tiny]

``--tiny`` sends two small documents (a chain of depth 4, 200 aliases) to check the benchmark
runs. A document whose child process fails (rather than being stopped at ``--timeout``, a
figure of its own) makes the benchmark exit with status 1.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Run as a script, this file's directory comes first on sys.path, where bench/graphql.py
# would shadow the graphql package itself.
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
# The code measured: this checkout, or (in a child) the one --root names.
CODE = Path(os.environ.get("SEQCORE_BENCH_ROOT", ROOT))
sys.path[:0] = [str(CODE), *sorted(str(p) for p in CODE.glob("plugins/*/src"))]


def chain(depth: int) -> str:
    frags = ["fragment F0 on Query { __typename }"]
    frags += [f"fragment F{i} on Query {{ ...F{i - 1} ...F{i - 1} }}"
              for i in range(1, depth + 1)]
    return f"query {{ ...F{depth} }}\n" + "\n".join(frags)


DOCUMENTS = {
    "chain-12": chain(12),
    "chain-16": chain(16),
    "chain-24": chain(24),
    "aliases-20000": "{ " + " ".join(f"a{n}: __typename" for n in range(20_000)) + " }",
}
TINY_DOCUMENTS = {
    "chain-4": chain(4),
    "aliases-200": "{ " + " ".join(f"a{n}: __typename" for n in range(200)) + " }",
}


def child(name: str, database: str) -> None:
    """Time ``{ __typename }`` and one document through the deployed application."""
    import resource
    import tempfile

    import transaction
    from webtest import TestApp

    from bench.deployed import bench_settings, deployed_app, setup
    from seqcore.db.migrations import upgrade
    from seqcore.db.session import session_for
    from seqcore.models.access_token import PersonalAccessToken
    from seqcore.models.oauth import digest
    from seqcore.models.user import User
    from seqcore.services import ISessionFactory, registry_service

    settings = bench_settings(f"sqlite:///{database}")
    config = setup(settings)
    upgrade(config.get_settings(), config.registry.pm)
    manager = transaction.TransactionManager(explicit=True)
    with manager:
        db = session_for(registry_service(config.registry, ISessionFactory), manager)
        user = User(username="bench", email="bench@example.org", password_hash="x",
                    first_name="B", last_name="B")
        db.add(user)
        db.flush()
        db.add(PersonalAccessToken(user_id=user.id, name="bench", token_hash=digest("t" * 40),
                                   scopes="read_api"))
    import base64

    auth = base64.b64encode(b"bench@example.org:" + b"t" * 40).decode()
    app = TestApp(deployed_app(settings, Path(tempfile.mkstemp(suffix=".log")[1])))
    headers = {"Authorization": f"Basic {auth}"}

    def timed(query: str) -> tuple[float, str]:
        started = time.perf_counter()
        body = app.post_json("/api/graphql", {"query": query}, headers=headers).json
        errors = body.get("errors") or []
        outcome = errors[0]["message"][:90] if errors else "answered"
        return time.perf_counter() - started, outcome

    for _ in range(3):
        timed("{ __typename }")
    anchor = min(timed("{ __typename }")[0] for _ in range(20))
    seconds, outcome = timed({**DOCUMENTS, **TINY_DOCUMENTS}[name])
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps({"anchor": anchor, "seconds": seconds, "peak_mb": peak,
                      "outcome": outcome}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--root", type=Path, default=ROOT,
                        help="the checkout whose code is measured (default: this one)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--database", help=argparse.SUPPRESS)
    parser.add_argument("--tiny", action="store_true",
                        help="two small documents: checks the benchmark runs")
    args = parser.parse_args()
    if args.child:
        child(args.child, args.database)
        return
    import tempfile

    print(f"code measured: {args.root}; load average {os.getloadavg()[0]:.1f} on "
          f"{os.cpu_count()} cores")
    print(f"{'document':<15} {'bytes':>7} {'seconds':>9} {'x anchor':>10} {'peak MB':>8}  "
          "outcome")
    env = {**os.environ, "SEQCORE_BENCH_ROOT": str(args.root)}
    failed = []
    announced = False
    for name, document in (TINY_DOCUMENTS if args.tiny else DOCUMENTS).items():
        with tempfile.TemporaryDirectory() as tmp:
            command = [sys.executable, str(Path(__file__).resolve()), "--child", name,
                       "--database", str(Path(tmp) / "bench.sqlite")]
            started = time.perf_counter()
            try:
                done = subprocess.run(command, capture_output=True, text=True, env=env,
                                      timeout=args.timeout, check=False, cwd=args.root)
            except subprocess.TimeoutExpired:
                print(f"{name:<15} {len(document):>7} {'>' + format(args.timeout, 'g'):>9} "
                      f"{'-':>10} {'-':>8}  stopped after {time.perf_counter() - started:.0f} s")
                continue
            lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
            if done.returncode or not lines:
                print(f"{name:<15} failed: {done.stderr.strip().splitlines()[-1:]}")
                failed.append(name)
                continue
            got = json.loads(lines[-1])
            for line in done.stderr.splitlines():  # the child's application: once is enough
                if line.startswith("plugins loaded") and not announced:
                    print(line, file=sys.stderr)
                    announced = True
            print(f"{name:<15} {len(document):>7} {got['seconds']:>9.3f} "
                  f"{got['seconds'] / got['anchor']:>10.1f} {got['peak_mb']:>8.0f}  "
                  f"{got['outcome']}")
    if failed:
        sys.exit(f"failed: {', '.join(failed)}")


if __name__ == "__main__":
    main()
