"""Sharing, copying and transferring samples never widen the (sample, field) pairs anyone
reads (``seqcore.security.fieldaccess``: a restriction goes with the sample).

Hypothesis builds small worlds in the real database: accounts (users, a sequencer account,
an administrator), a group with members at every access level and a group it is shared with,
projects in that group or in an account's namespace, with owners and members at every
metadata level, each declaring fields at every restriction level (or not at all), and samples
held by one or more projects with a value for every field. It then runs a generated sequence
of shares, copies and transfers through the domain operations the REST, GraphQL and web
transports call, and after each asks the database, for every account, which (sample, field)
pairs it reads (``readable_entry``, the condition every read path uses).

The property: an operation may let an account read a pair it did not read before only when
the field was open (``LEVEL_1`` or undeclared) in every project that held the sample before
it. A transfer that would break this is refused, and changes nothing.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from seqcore.errors.domain import Forbidden, Invalid
from seqcore.models.fielddecl import MetadataField
from seqcore.models.group import Group, GroupHierarchy, GroupMember, GroupShare
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.user import SystemRole, User
from seqcore.samples.samples import copy_samples, share_samples, transfer_samples
from seqcore.security.fieldaccess import LEVELS, OPEN, Caller, readable_entry
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing.database import empty_all_tables

FIELDS = ("a", "b", "c")
ROLES = [SystemRole.USER, SystemRole.USER, SystemRole.USER, SystemRole.SEQUENCER,
         SystemRole.ADMIN]
MEMBER = st.one_of(st.none(), st.just("owner"), st.sampled_from(LEVELS))
DECLARED = st.one_of(st.none(), st.sampled_from(LEVELS))


@st.composite
def worlds(draw: Any) -> dict[str, Any]:
    n_projects = draw(st.integers(2, 4))
    n_samples = draw(st.integers(1, 3))
    users = range(len(ROLES))
    return {
        # group memberships: the lab (which holds some projects) and partners (shared with)
        "lab": {u: draw(st.sampled_from([None, 10, 30, 40, 50])) for u in users},
        "partners": {u: draw(st.sampled_from([None, 10, 40])) for u in users},
        "share": draw(st.sampled_from([None, 10, 30, 40, 50])),
        "projects": [{
            "in_lab": draw(st.booleans()),
            "owner": draw(st.sampled_from(users)),
            "members": {u: draw(MEMBER) for u in users},
            "declared": {f: draw(DECLARED) for f in FIELDS},
        } for _ in range(n_projects)],
        "samples": [draw(st.sets(st.integers(0, n_projects - 1), min_size=1, max_size=2))
                    for _ in range(n_samples)],
        "operations": draw(st.lists(st.tuples(
            st.sampled_from(["share", "copy", "transfer"]), st.integers(0, n_samples - 1),
            st.integers(0, n_projects - 1), st.integers(0, n_projects - 1)),
            min_size=1, max_size=4)),
    }


def build(db: Any, world: dict[str, Any]) -> tuple[list[User], list[Project], list[Sample]]:
    users = [User(username=f"u{i}", email=f"u{i}@example.org", system_role=role.value,
                  first_name="U", last_name=str(i), password_hash="x")
             for i, role in enumerate(ROLES)]
    db.add_all(users)
    groups = {}
    for name in ("lab", "partners"):
        group = Group(name=name, path=name, full_path=name, full_name=name)
        db.add(group)
        db.flush()
        db.add(GroupHierarchy(ancestor_id=group.id, descendant_id=group.id, depth=0))
        for index, level in world[name].items():
            if level is not None:
                db.add(GroupMember(group_id=group.id, user_id=users[index].id,
                                   access_level=level))
        groups[name] = group
    if world["share"] is not None:
        db.add(GroupShare(group_id=groups["partners"].id, access_level=world["share"],
                          shared_group_id=groups["lab"].id))
    projects = []
    for index, spec in enumerate(world["projects"]):
        owner = users[spec["owner"]]
        project = Project(name=f"project {index}", path=f"p{index}",
                          namespace="lab" if spec["in_lab"] else owner.username,
                          group_id=groups["lab"].id if spec["in_lab"] else None)
        project.members.append(ProjectMember(user_id=owner.id, role=ProjectRole.OWNER.value,
                                             metadata_role="LEVEL_4"))
        for user_index, member in spec["members"].items():
            if member is None or user_index == spec["owner"]:
                continue
            role = ProjectRole.OWNER if member == "owner" else ProjectRole.USER
            project.members.append(ProjectMember(
                user_id=users[user_index].id, role=role.value,
                metadata_role="LEVEL_4" if member == "owner" else member))
        db.add(project)
        db.flush()
        for field, level in spec["declared"].items():
            if level is not None:
                db.add(MetadataField(project_id=project.id, name=field, restriction=level))
        projects.append(project)
    samples = []
    for index, holders in enumerate(world["samples"]):
        sample = Sample(name=f"s{index}")
        for holder in sorted(holders):
            sample.projects.append(ProjectSample(project_id=projects[holder].id,
                                                 sample_name=sample.name, owner=True))
        db.add(sample)
        db.flush()
        for field in FIELDS:
            db.add(MetadataEntry(sample_id=sample.id, field=field, value=f"{index}-{field}"))
        samples.append(sample)
    db.commit()
    return users, projects, samples


def readable(db: Any, users: list[User]) -> dict[int, set[tuple[int, str]]]:
    """Every account's readable (sample, field) pairs, as every read path selects them."""
    return {user.id: set(db.execute(
        select(MetadataEntry.sample_id, MetadataEntry.field)
        .where(readable_entry(Caller(user.id, user.system_role)))).all())
        for user in users}


def holders(db: Any) -> dict[int, set[int]]:
    found: dict[int, set[int]] = {}
    for sample_id, project_id in db.execute(select(ProjectSample.sample_id,
                                                   ProjectSample.project_id)):
        found.setdefault(sample_id, set()).add(project_id)
    return found


def restricted(db: Any) -> set[tuple[int, str]]:
    """(project, field) pairs a project restricts above ``LEVEL_1``."""
    return set(db.execute(select(MetadataField.project_id, MetadataField.name)
                          .where(MetadataField.restriction > OPEN)).all())


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(world=worlds())
def test_no_share_copy_or_transfer_widens_what_anyone_reads(app_config: Any, engine: Any,
                                                           world: dict[str, Any]) -> None:
    empty_all_tables(engine)
    db = registry_service(app_config.registry, ISessionFactory)()
    try:
        users, projects, samples = build(db, world)
        closed = restricted(db)
        for kind, sample_index, source_index, target_index in world["operations"]:
            before, held = readable(db, users), holders(db)
            sample = db.get(Sample, samples[sample_index].id)
            source, target = projects[source_index], projects[target_index]
            try:
                if kind == "share":
                    share_samples(db, target.id, [sample], owner=False)
                elif kind == "copy":
                    copy_samples(db, source, target, [sample])
                else:
                    transfer_samples(db, source, target, [sample])
                db.commit()
            except Invalid:  # not in the source, already in the target: nothing to check
                db.rollback()
                assert holders(db) == held
                continue
            except Forbidden:
                db.rollback()
                assert kind == "transfer"  # only a transfer can widen, and it is refused
                assert holders(db) == held and readable(db, users) == before
                continue
            after = readable(db, users)
            for user in users:
                for sample_id, field in after[user.id] - before[user.id]:
                    were = held.get(sample_id, set())
                    assert not {(p, field) for p in were} & closed, (
                        kind, user.username, sample_id, field, world)
    finally:
        db.close()
