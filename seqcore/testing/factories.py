"""Objects for tests, committed immediately so requests made through WebTest or a real
server see them."""

from __future__ import annotations

import base64
import functools
import itertools
import secrets
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import transaction
from sqlalchemy.orm import Session, sessionmaker

from seqcore.db import session_for, utcnow
from seqcore.framework.contrib import FileKind
from seqcore.models.group import AccessLevel, Group, GroupShare
from seqcore.models.oauth import OAuthClient, digest
from seqcore.models.project import Project, ProjectMember, ProjectRole
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import (
    QCRecord,
    SequenceFile,
    SequencingObject,
    SequencingObjectFile,
    SequencingRun,
)
from seqcore.models.user import SystemRole, User
from seqcore.oauth.tokens import issue_token
from seqcore.projects.namespaces import free_path, namespace_for
from seqcore.security.passwords import hash_password
from seqcore.testing.logsecrets import remember

DEFAULT_PASSWORD = "Password1!"
_counter = itertools.count(1)


@functools.lru_cache(maxsize=64)
def _password_hash(password: str, time_cost: int, memory_cost: int) -> str:
    """An argon2 hash of ``password``, made once per process for each password and cost:
    the factories make thousands of accounts with a handful of passwords, and argon2 (four
    threads per hash) is most of what an account costs to make. A shared salt is harmless
    between test accounts; every hash still verifies as the application's own."""
    return hash_password(password, time_cost, memory_cost)


def installed_file_kinds(settings: Mapping[str, Any]) -> dict[str, FileKind]:
    """The file kinds of the plugins installed in this environment (entry points), by
    name: for factories made without an application."""
    from seqcore.framework.contributions import declarations
    from seqcore.framework.plugins import build_plugin_manager

    pm = build_plugin_manager(settings)
    return {kind.name: kind for _, kind in declarations(pm, "register_file_kinds")}


def pick_kind(kinds: Mapping[str, FileKind], name: str | None) -> FileKind:
    """The kind named ``name`` among ``kinds`` (by name), by default the first default
    analysis input; a ``ValueError`` says which kinds are loaded."""
    loaded = ", ".join(kinds) or "none"
    if name is None:
        for kind in kinds.values():
            if kind.default_input:
                return kind
        raise ValueError("no loaded file kind is a default analysis input; name the kind "
                         f"(loaded: {loaded})")
    if name not in kinds:
        raise ValueError(f"no file kind {name!r} is loaded (loaded: {loaded}); add its "
                         "plugin to seqcore_plugins")
    return kinds[name]


class Factories:
    """Builders for the core's objects; each call commits its own transaction.

    ``kinds`` are the application's file kinds by name (the ``factories`` fixture passes
    them); without them, the kinds of the installed plugins. Sequencing objects are built
    through their kind's declaration (``sample_files``, ``factory``), so the kit needs no
    particular plugin.
    """

    def __init__(self, session_factory: sessionmaker[Session], settings: dict[str, Any],
                 kinds: Mapping[str, FileKind] | None = None) -> None:
        self.session_factory = session_factory
        self.settings = settings
        self._default_client: OAuthClient | None = None
        self._kinds = dict(kinds) if kinds is not None else None

    @property
    def kinds(self) -> dict[str, FileKind]:
        if self._kinds is None:
            self._kinds = installed_file_kinds(self.settings)
        return self._kinds

    def kind(self, name: str | None = None) -> FileKind:
        """The kind named ``name``; by default the first default analysis input."""
        return pick_kind(self.kinds, name)

    def _commit(self, objects: Iterable[Any]) -> None:
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(self.session_factory, manager)
            for obj in objects:
                db.add(obj)
            db.flush()
            for obj in objects:
                db.refresh(obj)
            db.expunge_all()

    def user(self, role: SystemRole | str = SystemRole.USER, username: str | None = None,
             password: str = DEFAULT_PASSWORD, **fields: Any) -> User:
        n = next(_counter)
        username = username or f"user{n}"
        remember(password, "password")
        user = User(
            username=username, email=fields.pop("email", f"{username}@example.org"),
            password_hash=_password_hash(
                password, int(self.settings["seqcore.password_hash.time_cost"]),
                int(self.settings["seqcore.password_hash.memory_cost"])),
            first_name=fields.pop("first_name", "Test"),
            last_name=fields.pop("last_name", f"User{n}"),
            phone_number=fields.pop("phone_number", "5550100"),
            system_role=SystemRole(role).value, **fields,
        )
        self._commit([user])
        return user

    def client(self, client_id: str | None = None, secret: str = "secret",
               grant_types: str = "password refresh_token", scopes: str = "read write",
               lenient: bool = False, access_token_seconds: int = 43200,
               refresh_token_seconds: int | None = 2592000, redirect_uris: str = "",
               revoked: bool = False) -> OAuthClient:
        remember(secret, "client secret")
        client = OAuthClient(
            client_id=client_id or f"client{next(_counter)}", secret_hash=digest(secret),
            grant_types=grant_types, scopes=scopes, lenient=lenient,
            access_token_seconds=access_token_seconds,
            refresh_token_seconds=refresh_token_seconds, redirect_uris=redirect_uris,
            revoked=revoked,
        )
        self._commit([client])
        return client

    def token(self, user: User, scopes: Iterable[str] = ("read", "write"),
              client: OAuthClient | None = None, lifetime: int | None = None) -> str:
        """An access token for ``user``, issued directly (no password grant)."""
        if client is None:
            if self._default_client is None:
                self._default_client = self.client()
            client = self._default_client
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(self.session_factory, manager)
            value = issue_token(db, db.merge(client), db.merge(user), list(scopes), lifetime)
        remember(value, "access token")
        return value

    def headers(self, user: User, scopes: Iterable[str] = ("read", "write"),
                client: OAuthClient | None = None) -> dict[str, str]:
        """``Authorization: Bearer`` headers for ``user``."""
        return {"Authorization": f"Bearer {self.token(user, scopes, client)}"}

    @staticmethod
    def basic(client_id: str, secret: str) -> dict[str, str]:
        raw = base64.b64encode(f"{client_id}:{secret}".encode()).decode()
        return {"Authorization": f"Basic {raw}"}

    def project(self, owner: User | None = None, name: str | None = None,
                members: Iterable[tuple[Any, ...]] = (), **fields: Any
                ) -> Project:
        name = name or f"Project {next(_counter)}"
        group = fields.pop("group", None)
        if group is not None:
            fields["namespace"], fields["group_id"] = group.full_path, group.id
        namespace = fields.pop("namespace", None) or (
            namespace_for(owner.username) if owner is not None else "seqcore")
        path = fields.pop("path", None)
        if path is None:
            with self.session_factory() as db:
                path = free_path(db, namespace, name)
        project = Project(name=name, namespace=namespace, path=path, **fields)
        if owner is not None:
            project.members.append(ProjectMember(user_id=owner.id, role=ProjectRole.OWNER.value,
                                                 metadata_role="LEVEL_4"))
        for user, role, *level in members:  # (user, role) or (user, role, metadata level)
            project.members.append(ProjectMember(user_id=user.id, role=ProjectRole(role).value,
                                                 metadata_role=level[0] if level else "LEVEL_1"))
        self._commit([project])
        return project

    def _write(self, work: Any) -> Any:
        """Run ``work(db)`` in a transaction of its own; its result, detached."""
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(self.session_factory, manager)
            result = work(db)
            db.flush()
            if result is not None:
                db.refresh(result)
            db.expunge_all()
        return result

    def group(self, owner: User, name: str | None = None, parent: Group | None = None,
              members: Iterable[tuple[User, AccessLevel | int]] = (), **fields: Any
              ) -> Group:
        """A group made by ``owner`` (its owner) through the domain's ``create_group``,
        under ``parent``, with ``members`` at their access levels."""
        from seqcore.projects.groups import add_group_member, create_group

        def work(db: Session) -> Group:
            above = db.get(Group, parent.id) if parent is not None else None
            group = create_group(db, owner.id, name or f"Group {next(_counter)}",
                                 fields.pop("path", None), fields.pop("description", None),
                                 above)
            for user, level in members:
                add_group_member(db, group, db.get_one(User, user.id), AccessLevel(level))
            return group

        return self._write(work)  # type: ignore[no-any-return]

    def share(self, grantee: Group, level: AccessLevel | int, *, group: Group | None = None,
              project: Project | None = None) -> GroupShare:
        """``group`` or ``project`` shared with ``grantee`` up to ``level``."""
        from seqcore.projects.groups import share_with_group

        def work(db: Session) -> GroupShare:
            return share_with_group(
                db, db.get_one(Group, grantee.id), AccessLevel(level),
                group=db.get(Group, group.id) if group is not None else None,
                project=db.get(Project, project.id) if project is not None else None)

        return self._write(work)  # type: ignore[no-any-return]

    def sample(self, project: Project | None = None, name: str | None = None,
               owner: bool = True, metadata: dict[str, str] | None = None,
               also_in: Iterable[Project] = (), **fields: Any) -> Sample:
        """A sample in ``project`` (and shared, read-only, into ``also_in``)."""
        sample = Sample(name=name or f"sample-{next(_counter)}", **fields)
        if project is not None:
            sample.projects.append(ProjectSample(project_id=project.id, sample_name=sample.name,
                                                 owner=owner))
        for other in also_in:
            sample.projects.append(ProjectSample(project_id=other.id, sample_name=sample.name,
                                                 owner=False))
        for key, value in (metadata or {}).items():
            sample.metadata_entries.append(MetadataEntry(field=key, value=value))
        self._commit([sample])
        return sample

    def attachment(self, sample: Sample | None = None, project: Project | None = None,
                   file_name: str = "notes.txt", size: int = 10,
                   group: Group | None = None) -> Any:
        """An attachment row on a sample, a project or a group, its file recorded but not
        stored (listing, filtering and paging need no bytes)."""
        from seqcore.models.attachment import Attachment, file_metadata

        attachment = Attachment(
            sample_id=sample.id if sample else None,
            project_id=project.id if project else None,
            group_id=group.id if group else None,
            file=SequenceFile(path=f"missing/{secrets.token_hex(8)}/{file_name}",
                              file_name=file_name, size=size),
            download_key=secrets.token_urlsafe(24), properties=file_metadata(file_name))
        self._commit([attachment])
        return attachment

    def run(self, user: User | None = None, sequencer_type: str = "miseq",
            layout_type: str = "PAIRED_END", upload_status: str = "UPLOADING",
            **properties: str) -> SequencingRun:
        run = SequencingRun(user_id=user.id if user else None, sequencer_type=sequencer_type,
                            layout_type=layout_type, upload_status=upload_status,
                            properties=properties)
        self._commit([run])
        return run

    def access_token(self, user: User, scopes: Iterable[str] = ("read_api", "api"),
                     name: str = "test token", expires_at: datetime | None = None,
                     revoked: bool = False, created: datetime | None = None,
                     revoked_at: datetime | None = None) -> str:
        """A personal access token of ``user`` (GraphQL); returns its secret. A revoked one
        was revoked at ``revoked_at`` (default: now)."""
        from seqcore.models.access_token import PersonalAccessToken

        secret = f"sqc_test_{next(_counter)}_{secrets.token_hex(8)}"
        if revoked and revoked_at is None:
            revoked_at = utcnow()
        self._commit([PersonalAccessToken(user_id=user.id, name=name, token_hash=digest(secret),
                                          scopes=" ".join(scopes), expires_at=expires_at,
                                          revoked=revoked, revoked_at=revoked_at,
                                          created=created or utcnow())])
        remember(secret, "personal access token")
        return secret

    def graphql_headers(self, user: User, scopes: Iterable[str] = ("read_api", "api")
                        ) -> dict[str, str]:
        """``Authorization: Basic <email:token>`` headers with a new personal access token."""
        return self.basic(user.email, self.access_token(user, scopes))

    def sequencing_object(self, sample: Sample, kind: str | None = None,
                          files: Iterable[tuple[str, bytes]] | None = None,
                          state: str = "FINISHED", qc: dict[str, Any] | None = None
                          ) -> SequencingObject:
        """A sequencing object of ``kind`` (default: the first default analysis input) with
        its files written to storage; ``files`` default to the kind's ``sample_files``, and
        the kind's ``factory`` adds its own rows (a pair's orientation)."""
        from seqcore.storage.service import Storage

        declared = self.kind(kind)
        if files is None:
            if declared.sample_files is None:
                raise ValueError(f"file kind {declared.name!r} declares no sample_files; "
                                 "give the files")
            files = declared.sample_files()
        files = list(files)
        storage = Storage(self.settings["seqcore.storage.path"])
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(self.session_factory, manager)
            obj = SequencingObject(sample_id=sample.id, kind=declared.name,
                                   processing_state=state)
            for position, (name, content) in enumerate(files):
                writer = storage.writer(name)
                writer.write(content)
                stored = SequenceFile(path=writer.place(manager), file_name=name,
                                      size=writer.size, upload_sha256=writer.sha256)
                obj.links.append(SequencingObjectFile(position=position, file=stored))
            db.add(obj)
            db.flush()
            if declared.factory is not None:
                declared.factory(db, obj, files)
            if qc is not None:
                for stored in obj.files:
                    db.add(QCRecord(file_id=stored.id, report=qc, engine="test"))
            db.flush()
            db.refresh(obj)
            obj.files  # noqa: B018 - load them before the session closes
            db.expunge_all()
        return obj

    def submission(self, submitter: User | None, objects: Iterable[SequencingObject],
                   analysis_type: str = "readcount", state: str = "NEW",
                   projects: Iterable[Project] = (),
                   outputs: dict[str, tuple[str, bytes]] | None = None, **fields: Any) -> Any:
        """An analysis submission (outputs, if given, are stored files by key)."""
        from seqcore.models.analysis import (
            AnalysisOutput,
            AnalysisSubmission,
            SubmissionInput,
            SubmissionProject,
        )
        from seqcore.storage.service import Storage

        storage = Storage(self.settings["seqcore.storage.path"])
        manager = transaction.TransactionManager(explicit=True)
        with manager:
            db = session_for(self.session_factory, manager)
            sub = AnalysisSubmission(
                name=fields.pop("name", f"{analysis_type} {next(_counter)}"),
                analysis_type=analysis_type, workflow_id=fields.pop("workflow_id", "test-1"),
                submitter_id=submitter.id if submitter else None, state=state,
                history=[[state, 0]], **fields)
            for obj in objects:
                sub.inputs.append(SubmissionInput(object_id=obj.id))
            for project in projects:
                sub.projects.append(SubmissionProject(project_id=project.id))
            for key, (name, content) in (outputs or {}).items():
                writer = storage.writer(name)
                writer.write(content)
                stored = SequenceFile(path=writer.place(manager), file_name=name,
                                      size=writer.size, upload_sha256=writer.sha256)
                sub.outputs.append(AnalysisOutput(key=key, file=stored))
            db.add(sub)
            db.flush()
            db.refresh(sub)
            for output in sub.outputs:  # load them before the session closes
                output.file  # noqa: B018
            db.expunge_all()
        return sub
