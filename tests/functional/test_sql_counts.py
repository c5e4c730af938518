"""SQL statements per request, for every GET endpoint of the authorization matrix: pinned, so
a regression to one statement per entry (N+1) or a lost cache fails here, and the same with
2 entries as with 20 (projects, samples, members, metadata, sequencing objects)."""

from __future__ import annotations

import pytest

from seqcore.models.project import ProjectRole
from tests.functional.test_authorization_matrix import (
    RULES,
    built_worlds,  # noqa: F401 (fixture)
    call,
    fill,
)
from tests.functional.test_authorization_matrix import world as matrix_world
from tests.functional.test_synchronized_projects import synchronized

# The GET endpoints someone in the matrix's world may read. The sync state of a project is
# 404 there (its project is not synchronized): it is pinned on a synchronized project below.
GETS = sorted(rule for rule in RULES if rule[1] == "GET"
              and {200, 302} & set(RULES[rule][2].values()))

# Statements per request as the project's owner (the administrator where the owner may not
# read), the token check answered from the cache (one statement: the revocation
# generation). A project or a sample is traversed with its ACL in one statement
# (seqcore.security.access.Rules.with_acl). Lower is fine: lower the figure here.
PINNED = {
    "api.analysis_type": 1,
    "api.analysis_types": 1,
    "api.export": 3,
    "api.export.download": 3,
    "api.exports": 2,
    "api.group": 3,
    "api.group.groups": 4,
    "api.group.bot": 5,
    "api.group.bot.tokens": 5,
    "api.group.bots": 4,
    "api.group.member": 4,
    "api.group.members": 4,
    "api.group.projects": 4,
    "api.group.share": 5,
    "api.group.shares": 4,
    "api.groups": 2,
    "api.openapi": 1,
    "api.pairs": 5,
    "api.pairs.alias": 5,
    "api.pairs.file": 4,
    "api.pairs.object": 5,
    "api.pairs.object.alias": 5,
    "api.pairs.qc": 5,
    "api.plugins": 1,
    "api.project": 2,
    "api.project.activity": 4,
    "api.project.analyses": 3,
    "api.project.analyses.type": 3,
    "api.project.automated": 3,
    "api.project.bot": 4,
    "api.project.bot.tokens": 4,
    "api.project.bots": 3,
    "api.project.exports": 3,
    # the samples, metadata, objects, attachments (seqcore.projects.projecthash)
    "api.project.hash": 6,
    "api.project.linelist": 5,
    "api.project.metadataField": 4,
    "api.project.metadataFields": 4,
    "api.project.metadataTemplate": 5,
    "api.project.metadataTemplates": 5,
    "api.project.ncbi_submission": 4,
    "api.project.ncbi_submissions": 5,
    "api.project.sample": 3,
    "api.project.sample_by_name": 3,
    "api.project.sample_by_sequencer_id": 3,
    "api.project.samples": 3,
    "api.project.samples.metadata": 4,  # + the caller's metadata level (field access)
    "api.project.archive": 2,
    "api.project.share": 4,
    "api.project.shares": 3,
    "api.project.trash": 3,
    "api.project.user": 3,
    "api.project.users": 3,
    "api.projects": 2,
    "api.remoteapi": 2,
    "api.remoteapis": 2,
    "api.root": 1,
    "api.run": 2,
    "api.runs": 2,
    "api.sample": 2,
    "api.sample.history": 5,
    "api.sample.metadata": 3,
    "api.sample.sequencefile": 4,
    "api.sample.sequencefiles": 4,
    "api.submission": 3,
    "api.submission.analysis": 4,
    "api.submission.inputs": 7,
    "api.submission.output": 4,
    "api.submissions": 2,
    "api.submissions.type": 2,
    "api.unpaired": 4,
    "api.unpaired.alias": 4,
    "api.unpaired.file": 4,
    "api.unpaired.object": 4,
    "api.unpaired.object.alias": 4,
    "api.unpaired.qc": 5,
    "api.user": 2,
    "api.user.projects": 3,
    "api.user.notifications": 3,
    "api.users": 2,
    "api.version": 1,
}

# Statements per extra entry, for endpoints where they grow (none now: a listing's page of
# sequencing objects reads what kinds and links ask per object once for the page,
# SequencingObjectResource.batched; test_pair_listing_statements pins it with assemblies and
# analyses made from the pairs).
PER_ENTRY: dict[str, int] = {}


world = pytest.fixture(matrix_world.__wrapped__, name="world")


def statements(testapp, sql_counter, path: str, headers: dict) -> int:
    # Twice: the first request after a test emptied the tables restores the revocation
    # generation row; the token check is cached from the second on.
    call(testapp, "GET", path, None, headers)
    call(testapp, "GET", path, None, headers)
    with sql_counter:
        res = call(testapp, "GET", path, None, headers)
    assert res.status_int in (200, 302), res.text
    return sql_counter.count


def grow(factories, users, ids, n: int) -> None:
    """``n`` more of everything the GET endpoints list: projects the owner owns (with a
    member each), members, samples with metadata in the matrix project, sequencing
    objects of its sample, NCBI submissions of the project (a sample and a run each), and
    the owner's data exports of the project."""
    from seqcore.models.export import DataExport
    from seqcore.models.ncbi import NcbiSubmission, NcbiSubmissionRun, NcbiSubmissionSample
    from seqcore.models.project import Project, ProjectMember
    from seqcore.models.sample import Sample
    from seqcore.projects.bots import create_bot, create_bot_token

    with factories.session_factory() as db:
        project = db.get(Project, ids["pid"])
        sample = db.get(Sample, ids["sid"])
        for i in range(n):
            member = factories.user(username=f"extra-{ids['round']}-{i}")
            factories.project(owner=users["owner"], name=f"Extra {ids['round']} {i}",
                              members=[(member, ProjectRole.USER)])
            db.add(ProjectMember(project_id=project.id, user_id=member.id,
                                 role=ProjectRole.USER.value))
            factories.sample(project, name=f"extra-{ids['round']}-{i}",
                             metadata={"serovar": "Typhi", "source": f"s{i}"})
            factories.sequencing_object(sample, "pairs", qc={"totalSequences": 20})
            row = NcbiSubmissionSample(
                position=0, sample_id=sample.id, sample_name=sample.name, spuid=f"s{i}",
                library_name="L", library_strategy="WGS", library_source="GENOMIC",
                library_selection="RANDOM", instrument_model="Illumina MiSeq",
                runs=[NcbiSubmissionRun(spuid=f"s{i}-r", layout="PAIRED")])
            db.add(NcbiSubmission(project_id=project.id, bio_project="PRJNA1",
                                  organization="Lab", namespace="LAB", samples=[row]))
            db.add(DataExport(project_id=project.id, requester_id=users["owner"].id,
                              selection={"samples": [sample.id]}))
        db.commit()
        for i in range(n):  # bots of the project, and tokens of the matrix's bot
            bot = create_bot(db, project, "GUEST", f"extra {i}", ["api"], actor_id=None)[0]
            create_bot_token(db, project, bot.id, f"more {i}", ["read_api"], actor_id=None)
            create_bot_token(db, project, ids["pbid"], f"more {i}", ["read_api"],
                             actor_id=None)
        db.commit()
    ids["round"] += 1


def caller(rule) -> str:
    """The project's owner where it may read, else the administrator."""
    return "owner" if RULES[rule][2]["owner"] in (200, 302) else "admin"


def measure(testapp, sql_counter, headers, ids) -> dict:
    return {rule: statements(testapp, sql_counter, fill(RULES[rule][0], ids).format(**ids),
                             headers[caller(rule)])
            for rule in GETS}


def test_statements_per_request_are_pinned_and_do_not_grow(testapp, factories, world,
                                                           sql_counter):
    users, ids = world
    ids = {**ids, "round": 0}
    headers = {name: factories.headers(users[name]) for name in ("owner", "admin")}
    grow(factories, users, ids, 2)
    few = measure(testapp, sql_counter, headers, ids)
    grow(factories, users, ids, 18)
    many = measure(testapp, sql_counter, headers, ids)
    assert {rule[0]: n for rule, n in few.items()} == PINNED
    for rule, n in many.items():
        assert n == few[rule] + 18 * PER_ENTRY.get(rule[0], 0), rule


# Listing a sample's pairs: the page's files, orientation rows and latest analyses are each
# read once for the page (SequencingObjectResource.batched), whatever the number of pairs.
PAIR_LISTING = 5


def test_listing_a_sample_with_many_pairs_costs_what_two_pairs_cost(testapp, factories,
                                                                     sql_counter):
    owner = factories.user()
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    headers = factories.headers(owner)
    path = f"/api/samples/{sample.id}/pairs"

    def add(n: int) -> None:
        for _ in range(n):  # each pair an input of an analysis, as after automated analyses
            pair = factories.sequencing_object(sample, "pairs")
            factories.submission(owner, [pair], projects=[project])

    add(2)
    few = statements(testapp, sql_counter, path, headers)
    add(30)
    many = statements(testapp, sql_counter, path, headers)
    listed = testapp.get(path, headers=headers).json["resource"]["resources"]
    assert len(listed) == 32
    assert all(p["forwardSequenceFile"]["fileName"] == "x_R1.fastq" for p in listed)
    assert few == many == PAIR_LISTING


# A synchronized project's sync state: the token check, the project with its ACL, its sync
# row, the remote's name and what the last sync copied (seqcore.sync.state.describe),
# whatever the number of its samples.
SYNC_STATE = 5


def test_the_sync_state_of_a_synchronized_project_is_pinned(testapp, factories, db,
                                                            sql_counter):
    owner, _, project, _, _ = synchronized(factories, db)
    headers = factories.headers(owner)
    path = f"/api/projects/{project.id}/sync"
    few = statements(testapp, sql_counter, path, headers)
    for i in range(20):
        factories.sample(project, name=f"more-{i}", metadata={"host": "human"})
    many = statements(testapp, sql_counter, path, headers)
    assert testapp.get(path, headers=headers).json["resource"]["status"] == "synchronized"
    assert few == many == SYNC_STATE
