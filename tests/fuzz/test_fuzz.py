"""The fuzzing test: thousands of generated requests against a live server on the test
database (SQLite, or PostgreSQL with ``SEQCORE_TEST_DATABASE_URL``); no answer may be a 5xx
(nor a GraphQL ``internal_error``), and afterwards the database and storage must be
consistent (no orphan row or file, no ownerless project).

It is bounded for CI (``SEQCORE_FUZZ_EXAMPLES`` requests, default 3000, within
``SEQCORE_FUZZ_SECONDS``, default 120) with a fixed seed, so a failure reproduces; set
``SEQCORE_FUZZ_SEED`` for other requests, larger bounds to search longer, and
``SEQCORE_FUZZ_REPORT`` to a file name to keep the grouped findings
(docs/testing_plugins.md, "Fuzzing").
"""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from seqcore.models.project import ProjectRole
from seqcore.models.sequencing import SequencingObject
from seqcore.models.user import SystemRole
from seqcore.services import IDatabaseEngine, ISessionFactory, registry_service
from seqcore.testing import database
from seqcore.testing.consistency import check_consistency
from seqcore.testing.factories import Factories
from seqcore.testing.fuzzing import (
    Account,
    Findings,
    Pools,
    Sender,
    ServerLog,
    Strategies,
    discover_targets,
    field_names,
    fuzz,
)
from seqcore.testing.server import LiveServer, live_server
from seqcore.testing.uploads import fasta

# xdist_group("serial"): under pytest-xdist (--dist loadgroup) these run on one worker, one
# after the other, never beside another test of the group: hypothesis' example budget and
# the server's answers are timed; a load test beside it would make its deadlines flaky.
pytestmark = [pytest.mark.fuzz, pytest.mark.xdist_group("serial")]

EXAMPLES = int(os.environ.get("SEQCORE_FUZZ_EXAMPLES", "3000"))
SECONDS = float(os.environ.get("SEQCORE_FUZZ_SECONDS", "120"))
SEED = int(os.environ["SEQCORE_FUZZ_SEED"]) if os.environ.get("SEQCORE_FUZZ_SEED") else None
ANALYSIS_TYPE_NAMES = ("serotyper", "sistr", "phylogenomics", "assembly", "readcount")
SEQUENCER_TYPES = ("miseq", "seqmodel", "miseqrun", "nextseq")

# Route names whose new resources fill a placeholder's pool (``pid`` for projects...).
CREATED_INTO = (("sequencingrun", "rid"), ("assemblies", "aid"), ("referenceFiles", "rid"),
                ("analysisSubmissions", "id"), ("users", "key"), ("samples", "sid"),
                ("pairs", "oid"), ("unpaired", "oid"), ("fast5", "oid"), ("projects", "pid"))


class FuzzServer:
    """A live server, the app built in this process from the same ini (for its routes,
    schema and database), accounts, and the objects seeded for the run."""

    def __init__(self, server: LiveServer) -> None:
        from pyramid.paster import get_appsettings

        from seqcore.config import configure

        self.server = server
        self.settings = dict(get_appsettings(str(server.ini), "main"))
        config = configure(self.settings)
        config.make_wsgi_app()
        self.registry = config.registry
        self.session_factory = registry_service(self.registry, ISessionFactory)
        self.engine = registry_service(self.registry, IDatabaseEngine)
        self.factories = Factories(self.session_factory, self.registry.settings)
        self.pools = Pools()
        self.accounts: list[Account] = []
        self.batches = 0

    def make_accounts(self) -> None:
        f = self.factories
        self.admin = f.user(SystemRole.ADMIN, username="fuzz-admin")
        self.user = f.user(SystemRole.USER, username="fuzz-user")
        self.other = f.user(SystemRole.USER, username="fuzz-other")
        self.sequencer = f.user(SystemRole.SEQUENCER, username="fuzz-sequencer")
        for role, user in (("admin", self.admin), ("user", self.user),
                           ("sequencer", self.sequencer)):
            self.accounts.append(Account(role, f.token(user), user.email,
                                         f.access_token(user)))
        # Drawn evenly from this list: the administrator reaches every route's validation,
        # the others mostly its refusals.
        admin, user, sequencer = self.accounts
        self.accounts[:] = [admin] * 4 + [user] * 3 + [sequencer] * 2 + [
            Account("anonymous", None)]
        for user in (self.admin, self.user, self.other, self.sequencer):
            self.pools.add("key", user.id, user.username)
            self.pools.add("username", user.username)
            self.pools.add("fullPath", user.username)
        self.pools.add("type", *ANALYSIS_TYPE_NAMES, *SEQUENCER_TYPES)
        self.pools.add("name", *ANALYSIS_TYPE_NAMES, "graphiql.min.js")
        self.pools.add("kind", "pairs", "unpaired")

    def seed(self) -> None:
        """A batch of projects (the user's, someone else's shared with them, the
        administrator's), samples with metadata and files, runs and a finished analysis."""
        f, n = self.factories, self.batches
        self.batches += 1
        mine = f.project(self.user, name=f"Fuzz mine {n}", members=[
            (self.other, ProjectRole.USER)])
        theirs = f.project(self.other, name=f"Fuzz theirs {n}",
                           members=[(self.user, ProjectRole.USER)])
        hidden = f.project(self.admin, name=f"Fuzz hidden {n}")
        samples = [f.sample(mine, metadata={"organism": "E. coli", "a": "1"}),
                   f.sample(theirs, also_in=[mine]), f.sample(hidden)]
        objects = [f.sequencing_object(samples[0], "pairs"),
                   f.sequencing_object(samples[0], "unpaired"),
                   f.sequencing_object(samples[1], "pairs"),
                   f.sequencing_object(samples[2], "unpaired")]
        runs = [f.run(self.sequencer), f.run(self.admin, upload_status="COMPLETE")]
        submission = f.submission(self.user, objects[:1], analysis_type="serotyper",
                                  state="COMPLETED", projects=[mine],
                                  outputs={"report": ("report.json", b"{}"),
                                           "contigs": ("contigs.fasta", fasta(1, 40))})
        projects = (mine, mine, theirs, hidden)
        for number, (project, obj) in enumerate(zip(projects, objects, strict=True)):
            member = self.other if project is theirs else self.user
            for stored in obj.files:
                self.pools.bind(pid=project.id, sid=obj.sample_id, oid=obj.id, fid=stored.id,
                                rid=runs[number % 2].id, id=submission.id,
                                key=member.id if number % 2 else member.username,
                                username=member.username, kind=obj.kind, type="serotyper")
        self.pools.add("fid", *(out.file.id for out in submission.outputs))
        self.pools.add("fullPath", *(p.full_path for p in (mine, theirs, hidden)))
        self.pools.gids.extend([f"gid://seqcore/Project/{p.id}" for p in (mine, theirs, hidden)]
                               + [f"gid://seqcore/Sample/{s.id}" for s in samples]
                               + [f"gid://seqcore/User/{self.user.id}"])

    def created(self, route: str, answer: Any) -> None:
        """Remember what the server made, so later requests address it."""
        text = json.dumps(answer)
        self.pools.gids.extend(sorted(set(re.findall(r"gid://seqcore/\w+/\d+", text)))[:5])
        resource = answer.get("resource") if isinstance(answer, dict) else None
        identifier = resource.get("identifier") if isinstance(resource, dict) else None
        if identifier is None:
            return
        for marker, name in CREATED_INTO:
            if marker in route.rsplit("}", 1)[-1]:
                self.pools.add(name, identifier)
                return

    def settle(self, timeout: float = 30) -> None:
        """Wait for the embedded worker to finish with every uploaded file."""
        deadline = time.monotonic() + timeout
        busy = SequencingObject.processing_state.in_(("UNPROCESSED", "QUEUED", "PROCESSING"))
        while time.monotonic() < deadline:
            with self.session_factory() as db:
                if not db.scalar(select(func.count()).where(busy)):
                    return
            time.sleep(0.5)


@pytest.fixture
def fuzz_server(tmp_path: Path):
    root = tmp_path / "server"
    settings = {"seqcore.session.secret": "fuzz-session-secret"}
    if os.environ.get(database.URL_VARIABLE):
        settings["sqlalchemy.url"] = database.test_database_url(tmp_path, "fuzz")
    server = live_server(root, **settings)
    server.start()
    fs = FuzzServer(server)
    try:
        fs.make_accounts()
        fs.seed()
        yield fs
    finally:
        server.stop()
        fs.engine.dispose()


def test_no_request_gets_a_5xx_and_nothing_is_left_inconsistent(fuzz_server, tmp_path):
    fs = fuzz_server
    targets = discover_targets(fs.registry)
    from seqcore.graphql.schema import NODE_TYPES, SCHEMA

    schema = fs.registry[SCHEMA].graphql_schema
    strategies = Strategies(fs.pools, field_names(), sorted(fs.registry[NODE_TYPES]))
    findings = Findings()
    sender = Sender(fs.server.port, ServerLog(fs.server.root / "server.log"), findings,
                    on_created=fs.created, pools=fs.pools,
                    temporary_dir=Path(fs.settings["seqcore.storage.path"]) / "tmp")
    fuzz(targets, strategies, fs.accounts, sender, schema, EXAMPLES, SECONDS, SEED,
         reseed=fs.seed)
    fs.settle()
    fs.server.stop()
    consistency = check_consistency(fs.engine, fs.settings["seqcore.storage.path"])

    summary = findings.summary()
    if consistency:
        summary += "\n\nConsistency check:\n" + "\n".join(consistency.problems)
        storage = Path(fs.settings["seqcore.storage.path"])
        for leftover in sorted((storage / "tmp").glob("*")):
            culprit = findings.temporary_files.get(leftover.name)
            summary += f"\n  {leftover.name} was first seen after: {culprit}"
    print(summary)
    if os.environ.get("SEQCORE_FUZZ_REPORT"):
        Path(os.environ["SEQCORE_FUZZ_REPORT"]).write_text(
            summary + "\n\nStatuses by route:\n" + findings.coverage() + "\n")
    # The run was not cut short, and every REST endpoint was reached.
    assert findings.requests >= min(EXAMPLES, 1000) or findings.seconds >= SECONDS
    reached = {r.split(" ", 1)[1] for r in findings.routes_sent}
    assert {t.pattern for t in targets if t.endpoint} <= reached
    assert not findings.failures, summary
    assert not consistency, summary
