"""The ACLs and the SQL visibility conditions say the same thing (``seqcore.security.access``).

Hypothesis builds small worlds in the real database (accounts of every system role,
nested groups with members at every access level, projects in groups or not, shares of
groups and projects with groups, project memberships as owner or member, samples held,
owned and shared by projects, archived projects (read-only for everyone), sequencing
objects, analysis submissions shared with projects, runs, data exports), then, for every
account, every object and every permission, compares two answers:

* Pyramid's ``has_permission`` on the object's traversal context, for a request
  authenticated with a real bearer token of the account (the ACLs along the lineage);
* whether the object is among the rows the type's SQL condition selects for that account
  (what the REST list views and GraphQL queries and loaders use);

that the ACL traversal reads beside an object's row (``Rules.with_acl``) is the type's ACL;

and that whoever reads a project reads every sample it holds (project sample lists rely on
it and filter no further).

If one definition drifts from the other (a grant changed in the ACL but not in the query, or
the reverse) some generated world tells them apart.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pyramid.interfaces import IRequestExtensions, IRequestFactory
from pyramid.request import Request, apply_request_extensions
from sqlalchemy import select

from seqcore.db import utcnow
from seqcore.models.analysis import AnalysisSubmission, SubmissionProject
from seqcore.models.export import DataExport
from seqcore.models.group import Group, GroupHierarchy, GroupMember, GroupShare
from seqcore.models.oauth import OAuthClient, digest
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.sample import ProjectSample, Sample
from seqcore.models.sequencing import SequencingObject, SequencingRun
from seqcore.models.user import SystemRole, User
from seqcore.oauth.tokens import issue_token
from seqcore.resources.root import Root
from seqcore.security.access import ACCOUNT, EXPORT, GROUP, PROJECT, RUN, SAMPLE, SUBMISSION
from seqcore.security.permissions import Permission
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing.database import empty_all_tables

MEMBERSHIP = st.sampled_from([None, ProjectRole.USER, ProjectRole.OWNER])
HOLDING = st.sampled_from([None, "shared", "owner"])  # how a project holds a sample
LEVEL = st.sampled_from([None, 10, 20, 30, 40, 50])  # a group membership's access level


@st.composite
def worlds(draw: Any) -> dict[str, Any]:
    users = draw(st.lists(st.sampled_from(list(SystemRole)), min_size=1, max_size=4))
    n_groups = draw(st.integers(0, 3))
    n_projects = draw(st.integers(0, 3))
    n_samples = draw(st.integers(0, 4))
    user_index = st.integers(0, len(users) - 1)
    return {
        "users": users,
        "members": [[draw(MEMBERSHIP) for _ in users] for _ in range(n_projects)],
        # Each group's parent is an earlier group or none; each project's group likewise.
        "parents": [draw(st.none() | st.integers(0, i - 1)) if i else None
                    for i in range(n_groups)],
        "group_members": [[draw(LEVEL) for _ in users] for _ in range(n_groups)],
        "project_groups": [draw(st.none() | st.integers(0, n_groups - 1)) if n_groups
                           else None for _ in range(n_projects)],
        "archived": [draw(st.booleans()) for _ in range(n_projects)],
        "shares": draw(st.lists(st.tuples(
            st.integers(0, max(n_groups - 1, 0)),
            st.sampled_from(["group", "project"]),
            st.integers(0, max(n_groups, n_projects, 1) - 1),
            st.sampled_from([10, 20, 30, 40, 50])), max_size=3)) if n_groups else [],
        "samples": [[draw(HOLDING) for _ in range(n_projects)] for _ in range(n_samples)],
        "objects": draw(st.lists(st.integers(0, n_samples - 1), max_size=3))
        if n_samples else [],
        "submissions": draw(st.lists(st.tuples(
            st.none() | user_index,
            st.sets(st.integers(0, n_projects - 1), max_size=n_projects)
            if n_projects else st.just(set())), max_size=3)),
        "runs": draw(st.lists(st.none() | user_index, max_size=2)),
        # Data exports: (requester, project), the requester possibly no member (any more).
        "exports": draw(st.lists(st.tuples(st.none() | user_index,
                                           st.integers(0, n_projects - 1)), max_size=3))
        if n_projects else [],
    }


def build(db: Any, world: dict[str, Any], kind: str) -> dict[str, list[Any]]:
    """The world's rows, committed; returns them by type."""
    users = [User(username=f"u{i}", email=f"u{i}@example.org", password_hash="-",
                  first_name="U", last_name=str(i), system_role=role.value)
             for i, role in enumerate(world["users"])]
    db.add_all(users)
    groups = []
    for i, parent in enumerate(world["parents"]):
        group = Group(name=f"g{i}", path=f"g{i}", full_path=f"g{i}", full_name=f"g{i}",
                      parent_id=None if parent is None else groups[parent].id)
        db.add(group)
        db.flush()
        db.add(GroupHierarchy(ancestor_id=group.id, descendant_id=group.id, depth=0))
        if parent is not None:
            for above in db.scalars(select(GroupHierarchy).where(
                    GroupHierarchy.descendant_id == groups[parent].id)).all():
                db.add(GroupHierarchy(ancestor_id=above.ancestor_id, descendant_id=group.id,
                                      depth=above.depth + 1))
        groups.append(group)
    db.flush()
    for i, (group, levels) in enumerate(zip(groups, world["group_members"], strict=True)):
        for j, (user, level) in enumerate(zip(users, levels, strict=True)):
            if level is not None:
                db.add(GroupMember(group_id=group.id, user_id=user.id, access_level=level,
                                   expires_at=_expiry(i, j)))
    projects = [Project(name=f"p{i}", namespace="test", path=f"p{i}",
                        group_id=None if group is None else groups[group].id,
                        archived_at=utcnow() if archived else None)
                for i, (group, archived) in enumerate(
                    zip(world["project_groups"], world["archived"], strict=True))]
    db.add_all(projects)
    db.flush()
    shared = set()
    for grantee, target, index, level in world["shares"]:
        targets = groups if target == "group" else projects
        if index >= len(targets) or (target == "group" and index == grantee) or (
                (grantee, target, index) in shared):
            continue
        shared.add((grantee, target, index))
        db.add(GroupShare(group_id=groups[grantee].id, access_level=level,
                          shared_group_id=targets[index].id if target == "group" else None,
                          project_id=targets[index].id if target == "project" else None))
    for i, (project, roles) in enumerate(zip(projects, world["members"], strict=True)):
        for j, (user, role) in enumerate(zip(users, roles, strict=True)):
            if role is not None:
                db.add(ProjectMember(project_id=project.id, user_id=user.id, role=role.value,
                                     expires_at=_expiry(i + 1, j)))
    samples = []
    for i, holdings in enumerate(world["samples"]):
        sample = Sample(name=f"s{i}")
        for project, holding in zip(projects, holdings, strict=True):
            if holding is not None:
                sample.projects.append(ProjectSample(project_id=project.id, sample_name=f"s{i}",
                                                     owner=holding == "owner"))
        samples.append(sample)
    db.add_all(samples)
    db.flush()
    objects = [SequencingObject(sample_id=samples[i].id, kind=kind) for i in world["objects"]]
    db.add_all(objects)
    submissions = []
    for i, (submitter, shared) in enumerate(world["submissions"]):
        submission = AnalysisSubmission(
            name=f"a{i}", analysis_type="readcount", workflow_id="test-1", state="NEW",
            history=[["NEW", 0]],
            submitter_id=None if submitter is None else users[submitter].id)
        for index in sorted(shared):
            submission.projects.append(SubmissionProject(project_id=projects[index].id))
        submissions.append(submission)
    db.add_all(submissions)
    runs = [SequencingRun(user_id=None if owner is None else users[owner].id,
                          sequencer_type="miseq", layout_type="PAIRED_END",
                          upload_status="UPLOADING", properties={})
            for owner in world["runs"]]
    db.add_all(runs)
    exports = [DataExport(project_id=projects[project].id,
                          requester_id=None if requester is None else users[requester].id,
                          selection={}) for requester, project in world["exports"]]
    db.add_all(exports)
    db.commit()
    return {"users": users, "groups": groups, "projects": projects, "samples": samples,
            "objects": objects, "submissions": submissions, "runs": runs, "exports": exports}


def _expiry(i: int, j: int) -> Any:
    """Every third membership expired, every third one expiring later, the rest without
    expiry: an expired membership must be absent from both the ACL and the condition."""
    return {0: None, 1: utcnow() - timedelta(hours=1),
            2: utcnow() + timedelta(days=1)}[(i + 2 * j) % 3]


def signed_in(registry: Any, db: Any, token: str) -> Request:
    """A request carrying the account's bearer token, with the application's request
    methods; its ``db`` is the test's session, which holds the world."""
    request = registry.getUtility(IRequestFactory).blank(
        "/api", headers={"Authorization": f"Bearer {token}"})
    request.registry = registry
    apply_request_extensions(request, registry.getUtility(IRequestExtensions))
    request.db = db
    return request


@pytest.fixture
def registry(app_config: Any, engine: Any) -> Any:
    return app_config.registry


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(world=worlds())
def test_acls_and_sql_conditions_agree(registry: Any, engine: Any, world: dict[str, Any]
                                       ) -> None:
    empty_all_tables(engine)
    kind = next(iter(registry["seqcore.file_kinds"].values()))
    db = registry_service(registry, ISessionFactory)()
    try:
        rows = build(db, world, kind.name)
        client = OAuthClient(client_id="agreement", secret_hash=digest("x"),
                             grant_types="password", scopes="read write")
        db.add(client)
        db.flush()
        tokens = {user.id: issue_token(db, client, user, ["read", "write"])
                  for user in rows["users"]}
        db.commit()
        # Traversal reads an object's ACL with its row (Rules.with_acl): the same ACL as the
        # type's own statement gives.
        for rules, objects in ((GROUP, rows["groups"]), (PROJECT, rows["projects"]),
                               (SAMPLE, rows["samples"]),
                               (SUBMISSION, rows["submissions"]), (RUN, rows["runs"]),
                               (ACCOUNT, rows["users"]), (EXPORT, rows["exports"])):
            statement = rules.with_acl(rules.id_column)
            for obj in objects:
                entries = db.connection().execute(statement, {"object_id": obj.id}).all()
                assert sorted(map(repr, rules.acl_of(obj, [e[1:] for e in entries]))) == \
                    sorted(map(repr, rules.acl(db, obj))), (rules.name, obj.id)
        for user in rows["users"]:
            request = signed_in(registry, db, tokens[user.id])
            assert request.identity is not None and request.identity.user_id == user.id
            api = Root(request)["api"]
            cases = [
                (GROUP, None, Group, rows["groups"],
                 lambda obj, api=api: api["groups"][str(obj.id)]),
                (PROJECT, None, Project, rows["projects"],
                 lambda obj, api=api: api["projects"][str(obj.id)]),
                (SAMPLE, None, Sample, rows["samples"],
                 lambda obj, api=api: api["samples"][str(obj.id)]),
                (SAMPLE, SequencingObject.sample_id, SequencingObject, rows["objects"],
                 lambda obj, api=api: api["samples"][str(obj.sample_id)][kind.path_segment][
                     str(obj.id)]),
                (SUBMISSION, None, AnalysisSubmission, rows["submissions"],
                 lambda obj, api=api: api["analysisSubmissions"][str(obj.id)]),
                (RUN, None, SequencingRun, rows["runs"],
                 lambda obj, api=api: api["sequencingrun"][str(obj.id)]),
                (ACCOUNT, None, User, rows["users"],
                 lambda obj, api=api: api["users"][str(obj.id)]),
                (EXPORT, None, DataExport, rows["exports"],
                 lambda obj, api=api: api["exports"][str(obj.id)]),
            ]
            for rules, column, model, objects, context_of in cases:
                contexts = {obj.id: context_of(obj) for obj in objects}
                for permission in Permission:
                    selected = set(db.scalars(select(model.id).where(
                        rules.condition(permission, user.id, user.role, column))))
                    permitted = {obj_id for obj_id, context in contexts.items()
                                 if request.has_permission(permission, context)}
                    assert permitted == selected, (
                        f"{rules.name} ({model.__name__}), {permission}, {user.role} "
                        f"#{user.id}: the ACL permits {sorted(permitted)}, the SQL condition "
                        f"selects {sorted(selected)}")
            # What a project lists (REST's /api/projects/{id}/samples, GraphQL's
            # Project.samples) is not filtered again: whoever reads a project reads every
            # sample it holds.
            readable_projects = set(db.scalars(select(Project.id).where(
                PROJECT.readable(user.id, user.role))))
            readable_samples = set(db.scalars(select(Sample.id).where(
                SAMPLE.readable(user.id, user.role))))
            held = set(db.scalars(select(ProjectSample.sample_id).where(
                ProjectSample.project_id.in_(readable_projects))))
            assert held <= readable_samples
    finally:
        db.close()


def test_an_account_with_no_grant_selects_nothing(factories: Any, db: Any) -> None:
    """The condition of a permission nobody below the API root holds is false for others
    (only administrators hold it), not an unfiltered query."""
    owner = factories.user()
    factories.project(owner=owner)
    assert db.scalars(select(Project.id).where(
        PROJECT.condition(Permission.PLUGINS_READ, owner.id, owner.role))).all() == []
    admin = factories.user(SystemRole.ADMIN)
    assert len(db.scalars(select(Project.id).where(
        PROJECT.condition(Permission.PLUGINS_READ, admin.id, admin.role))).all()) == 1
