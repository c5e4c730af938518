"""Every registered ``/api`` endpoint against every kind of caller, from one table.

An endpoint added without a row here fails ``test_every_endpoint_has_a_rule``, so no route
can ship without a declared access rule.
"""

import re
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import update

from seqcore.db import utcnow
from seqcore.models.export import DataExport
from seqcore.models.fielddecl import MetadataField, MetadataTemplate
from seqcore.models.group import AccessLevel, Group
from seqcore.models.ncbi import NcbiSubmission
from seqcore.models.oauth import OAuthToken
from seqcore.models.project import Project, ProjectRole
from seqcore.models.remote import RemoteApi
from seqcore.models.user import SystemRole
from seqcore.projects.bots import create_bot
from seqcore.testing.snapshots import restore_snapshot, take_snapshot
from tests.dbstate import snapshot

# Endpoints that authenticate by other means (OAuth2 itself; the direct upload and attachment
# download URLs, whose key is the credential: tests/graphql/test_attachments.py).
PUBLIC = {"oauth.token", "oauth.revoke", "oauth.authorize", "oauth.introspect",
          "api.direct_upload", "api.attachment.download"}

CALLERS = ("admin", "owner", "member", "outsider", "manager", "technician", "sequencer")

NEW_USER = {"username": "matrixuser", "email": "matrix@example.org", "password": "Password1!",
            "firstName": "Matrix", "lastName": "User", "phoneNumber": "5550199"}


def PROJECT_WRITE(ok):
    """Owners and administrators ``ok``; members and sequencer accounts, who read the
    project, 403; the others do not see it (404)."""
    return {**expect(ok, 404, **WRITERS), "member": 403, "sequencer": 403}


def expect(ok, default, **overrides):
    """Status per caller: ``ok`` for those in ``overrides`` marked True, else ``default``."""
    return {caller: overrides.get(caller, default) if overrides.get(caller) is not True else ok
            for caller in CALLERS}


def everyone(status):
    return dict.fromkeys(CALLERS, status)


READERS = dict(admin=True, owner=True, member=True, sequencer=True)
WRITERS = dict(admin=True, owner=True)
GROUP_READERS = dict(admin=True, owner=True, member=True)


def GROUP_WRITE(ok):
    """Owners and administrators ``ok``; the guest member 403; the others 404."""
    return {**expect(ok, 404, **WRITERS), "member": 403}


# Reads of the world's sample sent to an existing BioSample (no attributes needed).
NCBI_SUBMISSION = {"bioProject": "PRJNA1", "organization": "Matrix lab", "namespace": "MTX",
                   "libraryStrategy": "WGS", "librarySource": "GENOMIC",
                   "librarySelection": "RANDOM", "instrumentModel": "Illumina MiSeq",
                   "samples": [{"sampleId": "{sid}", "bioSample": "SAMN1"}]}

NEW_REMOTE = {"name": "Matrix remote", "baseUrl": "https://irida.example.org",
              "clientId": "matrix", "clientSecret": "matrix-secret"}
NEW_BOT = {"accessLevel": "GUEST", "tokenName": "matrix", "scopes": ["read_api"]}
NEW_BOT_TOKEN = {"name": "matrix", "scopes": ["read_api"]}

# (endpoint name, method) -> (path template, JSON body or None, statuses per caller)
def kind_rules(segment: str) -> dict:
    """The endpoints every file kind gets, for the kinds the core's tests load."""
    base = "/api/samples/{sid}/" + segment
    alias = "/api/samples/{sid}/sequenceFiles/" + segment
    obj = "{" + segment + "_oid}"
    write = {**expect(200, 404, **WRITERS, sequencer=True), "member": 403}
    upload = {**expect(415, 404, **WRITERS, sequencer=True), "member": 403}
    return {
        (f"api.{segment}", "GET"): (base, None, expect(200, 404, **READERS)),
        (f"api.{segment}", "POST"): (base, None, upload),
        (f"api.{segment}.alias", "GET"): (alias, None, expect(200, 404, **READERS)),
        (f"api.{segment}.alias", "POST"): (alias, None, upload),
        (f"api.{segment}.object", "GET"): (f"{base}/{obj}", None, expect(200, 404, **READERS)),
        (f"api.{segment}.object", "DELETE"): (f"{base}/{obj}", None, write),
        (f"api.{segment}.object.alias", "GET"): (f"{alias}/{obj}", None,
                                                 expect(200, 404, **READERS)),
        (f"api.{segment}.object.alias", "DELETE"): (f"{alias}/{obj}", None, write),
        (f"api.{segment}.file", "GET"): (f"{base}/{obj}/files/{{{segment}_fid}}", None,
                                         expect(200, 404, **READERS)),
        (f"api.{segment}.qc", "GET"): (f"{base}/{obj}/files/{{{segment}_fid}}/qc", None,
                                       expect(200, 404, **READERS)),
    }


RULES = {
    **kind_rules("pairs"),
    **kind_rules("unpaired"),
    ("api.root", "GET"): ("/api", None, everyone(200)),
    ("api.version", "GET"): ("/api/version", None, everyone(200)),
    ("api.openapi", "GET"): ("/api/openapi.json", None, everyone(200)),
    ("api.plugins", "GET"): ("/api/plugins", None, expect(200, 403, admin=True)),
    # Remote APIs: administrators only; others may not even list them.
    ("api.remoteapis", "GET"): ("/api/remoteapis", None, expect(200, 403, admin=True)),
    ("api.remoteapis", "POST"): ("/api/remoteapis", NEW_REMOTE, expect(201, 403, admin=True)),
    ("api.remoteapi", "GET"): ("/api/remoteapis/{raid}", None, expect(200, 403, admin=True)),
    ("api.remoteapi", "PATCH"): ("/api/remoteapis/{raid}", {"description": "changed"},
                                 expect(200, 403, admin=True)),
    ("api.remoteapi", "DELETE"): ("/api/remoteapis/{raid}", None,
                                  expect(200, 403, admin=True)),
    ("api.users", "GET"): ("/api/users", None, {**everyone(200), "sequencer": 403}),
    ("api.users", "POST"): ("/api/users", NEW_USER,
                            expect(201, 403, admin=True, manager=True)),
    ("api.user", "GET"): ("/api/users/{member_id}", None,
                          {**everyone(200), "sequencer": 404}),
    ("api.user", "PATCH"): ("/api/users/{member_id}", {"firstName": "Changed"},
                            {**everyone(403), "admin": 200, "member": 200, "sequencer": 404}),
    # The member owns nothing, so an administrator may delete the account.
    ("api.user", "DELETE"): ("/api/users/{member_id}", None,
                             {**everyone(403), "admin": 200, "sequencer": 404}),
    ("api.user.projects", "GET"): ("/api/users/{member_id}/projects", None,
                                   expect(200, 404, admin=True, member=True)),
    ("api.user.notifications", "GET"): ("/api/users/{member_id}/notifications", None,
                                        expect(200, 404, admin=True, member=True)),
    ("api.user.notifications", "PUT"): ("/api/users/{member_id}/notifications",
                                        {"export_ready": True},
                                        expect(200, 404, admin=True, member=True)),
    ("api.projects", "GET"): ("/api/projects", None, everyone(200)),
    ("api.projects", "POST"): ("/api/projects", {"name": "Matrix project"},
                               {**everyone(201), "sequencer": 403}),
    ("api.project", "GET"): ("/api/projects/{pid}", None, expect(200, 404, **READERS)),
    ("api.project", "PATCH"): ("/api/projects/{pid}", {"projectDescription": "x"},
                               {**expect(200, 404, **WRITERS), "member": 403,
                                "sequencer": 403}),
    ("api.project", "DELETE"): ("/api/projects/{pid}", None,
                                {**expect(200, 404, **WRITERS), "member": 403,
                                 "sequencer": 403}),
    ("api.project.hash", "GET"): ("/api/projects/{pid}/hash", None,
                                  expect(200, 404, **READERS)),
    # Data governance (docs/governance.md).
    ("api.project.metadataFields", "GET"): ("/api/projects/{pid}/metadataFields", None,
                                            expect(200, 404, **READERS)),
    ("api.project.metadataFields", "POST"): ("/api/projects/{pid}/metadataFields",
                                             {"name": "matrix-field"}, PROJECT_WRITE(201)),
    ("api.project.metadataField", "GET"): ("/api/projects/{pid}/metadataFields/{mfid}", None,
                                           expect(200, 404, **READERS)),
    ("api.project.metadataField", "PATCH"): ("/api/projects/{pid}/metadataFields/{mfid}",
                                             {"restriction": "LEVEL_2"}, PROJECT_WRITE(200)),
    ("api.project.metadataField", "DELETE"): ("/api/projects/{pid}/metadataFields/{mfid}",
                                              None, PROJECT_WRITE(200)),
    ("api.project.metadataTemplates", "GET"): ("/api/projects/{pid}/metadataTemplates", None,
                                               expect(200, 404, **READERS)),
    ("api.project.metadataTemplates", "POST"): ("/api/projects/{pid}/metadataTemplates",
                                                {"name": "Other", "fields": []},
                                                PROJECT_WRITE(201)),
    ("api.project.metadataTemplate", "GET"): ("/api/projects/{pid}/metadataTemplates/{tid}",
                                              None, expect(200, 404, **READERS)),
    ("api.project.metadataTemplate", "PATCH"): (
        "/api/projects/{pid}/metadataTemplates/{tid}", {"name": "Renamed"},
        PROJECT_WRITE(200)),
    ("api.project.metadataTemplate", "DELETE"): (
        "/api/projects/{pid}/metadataTemplates/{tid}", None, PROJECT_WRITE(200)),
    ("api.project.activity", "GET"): ("/api/projects/{pid}/activity", None,
                                      expect(200, 404, **READERS)),
    ("api.project.linelist", "GET"): ("/api/projects/{pid}/linelist", None,
                                      expect(200, 404, **READERS)),
    ("api.project.trash", "GET"): ("/api/projects/{pid}/trash", None, PROJECT_WRITE(200)),
    # No such entry: owners learn so (404); members may not ask (403).
    ("api.project.trash.restore", "POST"): ("/api/projects/{pid}/trash/999999/restore", None,
                                            PROJECT_WRITE(404)),
    ("api.project.users", "GET"): ("/api/projects/{pid}/users", None,
                                   expect(200, 404, **READERS)),
    ("api.project.users", "POST"): ("/api/projects/{pid}/users", {"userId": "outsider"},
                                    {**expect(201, 404, **WRITERS), "member": 403,
                                     "sequencer": 403}),
    ("api.project.user", "GET"): ("/api/projects/{pid}/users/member", None,
                                  expect(200, 404, **READERS)),
    ("api.project.user", "PATCH"): ("/api/projects/{pid}/users/member", {"expiresAt": None},
                                    {**expect(200, 404, **WRITERS), "member": 403,
                                     "sequencer": 403}),
    ("api.project.user", "DELETE"): ("/api/projects/{pid}/users/member", None,
                                     {**expect(200, 404, **WRITERS), "member": 403,
                                      "sequencer": 403}),
    ("api.project.samples", "GET"): ("/api/projects/{pid}/samples", None,
                                     expect(200, 404, **READERS)),
    ("api.project.samples", "POST"): ("/api/projects/{pid}/samples",
                                      {"sampleName": "matrix-sample-2"},
                                      {**expect(201, 404, **WRITERS, sequencer=True),
                                       "member": 403}),
    ("api.project.sample", "GET"): ("/api/projects/{pid}/samples/{sid}", None,
                                    expect(200, 404, **READERS)),
    ("api.project.sample", "DELETE"): ("/api/projects/{pid}/samples/{sid}", None,
                                       {**expect(200, 404, **WRITERS), "member": 403,
                                        "sequencer": 403}),
    ("api.project.sample_by_name", "GET"): (
        "/api/projects/{pid}/samples/bySampleName?sampleName=matrix-sample", None,
        expect(302, 404, **READERS)),
    ("api.project.sample_by_sequencer_id", "GET"): (
        "/api/projects/{pid}/samples/bySequencerId/matrix-sample", None,
        expect(302, 404, **READERS)),
    ("api.project.samples.metadata", "GET"): ("/api/projects/{pid}/samples/metadata", None,
                                              expect(200, 404, **READERS)),
    ("api.project.ncbi_submissions", "GET"): ("/api/projects/{pid}/ncbiSubmissions", None,
                                              expect(200, 404, **READERS)),
    ("api.project.ncbi_submissions", "POST"): (
        "/api/projects/{pid}/ncbiSubmissions", NCBI_SUBMISSION,
        {**expect(201, 404, **WRITERS), "member": 403, "sequencer": 403}),
    ("api.project.ncbi_submission", "GET"): ("/api/projects/{pid}/ncbiSubmissions/{nid}",
                                             None, expect(200, 404, **READERS)),
    # Members export; an export is read by its requester (the member) and administrators.
    ("api.project.exports", "GET"): ("/api/projects/{pid}/exports", None,
                                     expect(200, 404, **READERS)),
    ("api.project.exports", "POST"): ("/api/projects/{pid}/exports", {"samples": ["{sid}"]},
                                      {**expect(201, 404, **WRITERS, member=True),
                                       "sequencer": 403}),
    # Without a sheet in the body, the callers allowed get as far as 415.
    ("api.project.sampleimports", "POST"): ("/api/projects/{pid}/sampleImports", None,
                                            {**expect(415, 404, **WRITERS, sequencer=True),
                                             "member": 403}),
    ("api.exports", "GET"): ("/api/exports", None, everyone(200)),
    ("api.export", "GET"): ("/api/exports/{eid}", None, expect(200, 404, admin=True,
                                                               member=True)),
    ("api.export", "DELETE"): ("/api/exports/{eid}", None, expect(200, 404, admin=True,
                                                                  member=True)),
    ("api.export.download", "GET"): ("/api/exports/{eid}/download", None,
                                     expect(200, 404, admin=True, member=True)),
    ("api.sample", "GET"): ("/api/samples/{sid}", None, expect(200, 404, **READERS)),
    ("api.sample", "PATCH"): ("/api/samples/{sid}", {"description": "changed"},
                              {**expect(200, 404, **WRITERS, sequencer=True),
                               "member": 403}),
    ("api.sample.sequencefiles", "GET"): ("/api/samples/{sid}/sequenceFiles", None,
                                          expect(200, 404, **READERS)),
    # Uploads without a multipart body: 415 for those who may write the sample.
    ("api.sample.sequencefiles", "POST"): ("/api/samples/{sid}/sequenceFiles", None,
                                           {**expect(415, 404, **WRITERS, sequencer=True),
                                            "member": 403}),
    ("api.sample.sequencefile", "GET"): ("/api/samples/{sid}/sequenceFiles/{fid}", None,
                                         expect(200, 404, **READERS)),
    ("api.submissions", "GET"): ("/api/analysisSubmissions", None, everyone(200)),
    ("api.submissions.type", "GET"): ("/api/analysisSubmissions/analysisType/readcount", None,
                                      everyone(200)),
    # Launching needs read access to the inputs: others are told the object does not exist.
    ("api.submissions.type", "POST"): ("/api/analysisSubmissions/analysisType/readcount",
                                       {"sequencingObjects": ["{oid}"]},
                                       expect(201, 400, **READERS)),
    ("api.submission", "GET"): ("/api/analysisSubmissions/{subid}", None,
                                expect(200, 404, **READERS)),
    # The submitter (the owner here) and administrators delete; its readers get 403.
    ("api.submission", "DELETE"): ("/api/analysisSubmissions/{subid}", None,
                                   {**expect(200, 404, **WRITERS), "member": 403,
                                    "sequencer": 403}),
    # Cancelling is allowed to whoever may delete; this submission has ended: 409.
    ("api.submission.cancel", "POST"): ("/api/analysisSubmissions/{subid}/cancel", None,
                                        {**expect(409, 404, **WRITERS), "member": 403,
                                         "sequencer": 403}),
    ("api.submission.analysis", "GET"): ("/api/analysisSubmissions/{subid}/analysis", None,
                                         expect(200, 404, **READERS)),
    ("api.submission.output", "GET"): ("/api/analysisSubmissions/{subid}/analysis/file/{outid}",
                                       None, expect(200, 404, **READERS)),
    ("api.submission.inputs", "GET"): ("/api/analysisSubmissions/{subid}/sequenceFiles/pairs",
                                       None, expect(200, 404, **READERS)),
    ("api.analysis_types", "GET"): ("/api/analysisTypes", None, everyone(200)),
    ("api.analysis_type", "GET"): ("/api/analysisTypes/readcount", None, everyone(200)),
    ("api.project.analyses.type", "GET"): ("/api/projects/{pid}/analyses/readcount", None,
                                           expect(200, 404, **READERS)),
    ("api.project.automated", "GET"): ("/api/projects/{pid}/automatedAnalyses", None,
                                       expect(200, 404, **READERS)),
    ("api.project.automated", "PUT"): ("/api/projects/{pid}/automatedAnalyses",
                                       {"analysisTypes": ["readcount"]},
                                       {**expect(200, 404, **WRITERS), "member": 403,
                                        "sequencer": 403}),
    ("api.runs", "GET"): ("/api/sequencingrun", None, {**everyone(403), "admin": 200}),
    ("api.runs", "POST"): ("/api/sequencingrun", {"layoutType": "PAIRED_END",
                                                  "sequencerType": "miseq"},
                           expect(201, 403, admin=True, sequencer=True)),
    ("api.run.typed", "POST"): ("/api/sequencingrun/miseqrun", {"layoutType": "SINGLE_END"},
                                expect(201, 403, admin=True, sequencer=True)),
    # The run's creator may PATCH it, so it knows the run exists: 403, as IRIDA answers.
    ("api.run", "GET"): ("/api/sequencingrun/{rid}", None,
                         {**expect(200, 404, admin=True), "sequencer": 403}),
    ("api.run", "PATCH"): ("/api/sequencingrun/{rid}", {"uploadStatus": "COMPLETE"},
                           expect(200, 404, admin=True, sequencer=True)),
    ("api.run", "DELETE"): ("/api/sequencingrun/{rid}", None,
                            {**expect(200, 404, admin=True), "sequencer": 403}),
    ("api.run.sequencefiles", "POST"): ("/api/sequencingrun/{rid}/sequenceFiles",
                                        {"sequenceFileId": "{oid}"},
                                        expect(201, 404, admin=True, sequencer=True)),
    ("api.sample.metadata", "GET"): ("/api/samples/{sid}/metadata", None,
                                     expect(200, 404, **READERS)),
    ("api.sample.history", "GET"): ("/api/samples/{sid}/history", None,
                                    expect(200, 404, **READERS)),
    ("api.sample.metadata", "POST"): ("/api/samples/{sid}/metadata",
                                      {"serovar": {"value": "Typhi", "type": "text"}},
                                      {**expect(200, 404, **WRITERS, sequencer=True),
                                       "member": 403}),
    ("api.sample.metadata", "PUT"): ("/api/samples/{sid}/metadata",
                                     {"serovar": {"value": "Typhi", "type": "text"}},
                                     {**expect(200, 404, **WRITERS, sequencer=True),
                                      "member": 403}),
    ("api.project.analyses", "GET"): ("/api/projects/{pid}/analyses", None,
                                      expect(200, 404, **READERS)),
    # Groups: the owner owns the group, the member is a guest of it.
    ("api.groups", "GET"): ("/api/groups", None, everyone(200)),
    ("api.groups", "POST"): ("/api/groups", {"name": "Matrix group"},
                             {**everyone(201), "sequencer": 403}),
    ("api.group", "GET"): ("/api/groups/{gid}", None, expect(200, 404, **GROUP_READERS)),
    ("api.group.groups", "GET"): ("/api/groups/{gid}/groups", None,
                                  expect(200, 404, **GROUP_READERS)),
    ("api.group.groups", "POST"): ("/api/groups/{gid}/groups", {"name": "Matrix subgroup"},
                                   GROUP_WRITE(201)),
    ("api.group.projects", "GET"): ("/api/groups/{gid}/projects", None,
                                    expect(200, 404, **GROUP_READERS)),
    ("api.group.projects", "POST"): ("/api/groups/{gid}/projects",
                                     {"name": "Matrix group project"}, GROUP_WRITE(201)),
    ("api.group.members", "GET"): ("/api/groups/{gid}/members", None,
                                   expect(200, 404, **GROUP_READERS)),
    ("api.group.members", "POST"): ("/api/groups/{gid}/members",
                                    {"userId": "outsider", "accessLevel": 10},
                                    GROUP_WRITE(201)),
    ("api.group.member", "GET"): ("/api/groups/{gid}/members/member", None,
                                  expect(200, 404, **GROUP_READERS)),
    ("api.group.member", "PATCH"): ("/api/groups/{gid}/members/member", {"accessLevel": 20},
                                    GROUP_WRITE(200)),
    ("api.group.member", "DELETE"): ("/api/groups/{gid}/members/member", None,
                                     GROUP_WRITE(200)),
    ("api.group.shares", "GET"): ("/api/groups/{gid}/shares", None,
                                  expect(200, 404, **GROUP_READERS)),
    ("api.group.shares", "POST"): ("/api/groups/{gid}/shares",
                                   {"groupId": "{third_gid}", "accessLevel": "GUEST"},
                                   GROUP_WRITE(201)),
    ("api.group.share", "GET"): ("/api/groups/{gid}/shares/{gsid}", None,
                                 expect(200, 404, **GROUP_READERS)),
    ("api.group.share", "PATCH"): ("/api/groups/{gid}/shares/{gsid}", {"accessLevel": 10},
                                   GROUP_WRITE(200)),
    ("api.group.share", "DELETE"): ("/api/groups/{gid}/shares/{gsid}", None,
                                    GROUP_WRITE(200)),
    ("api.project.shares", "GET"): ("/api/projects/{pid}/shares", None,
                                    expect(200, 404, **READERS)),
    ("api.project.shares", "POST"): ("/api/projects/{pid}/shares",
                                     {"groupId": "{third_gid}", "accessLevel": 10},
                                     {**expect(201, 404, **WRITERS), "member": 403,
                                      "sequencer": 403}),
    # Moving and archiving: owners (and administrators) only; the owner check is the
    # operation's, after the project's or group's own permission.
    ("api.project.transfer", "POST"): ("/api/projects/{pid}/transfer", {"groupId": "{gid}"},
                                       PROJECT_WRITE(200)),
    ("api.group.transfer", "POST"): ("/api/groups/{gid}/transfer", {"parentId": "{third_gid}"},
                                     GROUP_WRITE(200)),
    ("api.project.archive", "GET"): ("/api/projects/{pid}/archive", None,
                                     expect(200, 404, **READERS)),
    ("api.project.archive", "POST"): ("/api/projects/{pid}/archive", None,
                                      PROJECT_WRITE(200)),
    # Unarchiving a live project: 409 for owners; readers who do not own it 403.
    ("api.project.archive", "DELETE"): ("/api/projects/{pid}/archive", None,
                                        PROJECT_WRITE(409)),
    # Synchronization: the world's project is not synchronized (404 to its readers too);
    # asking it to synchronize is for who may change it.
    ("api.project.sync", "GET"): ("/api/projects/{pid}/sync", None, everyone(404)),
    ("api.project.sync", "POST"): ("/api/projects/{pid}/sync", None, PROJECT_WRITE(404)),
    # Making a synchronized project needs a connection to the remote API: nobody has one.
    ("api.projects.synchronized", "POST"): (
        "/api/projects/synchronized", {"remoteApi": "{raid}", "projectUrl": "1"},
        everyone(403)),
    # Bot accounts: maintainers and owners (and administrators) manage them; readers 403.
    ("api.project.bots", "GET"): ("/api/projects/{pid}/bots", None, PROJECT_WRITE(200)),
    ("api.project.bots", "POST"): ("/api/projects/{pid}/bots", NEW_BOT, PROJECT_WRITE(201)),
    ("api.project.bot", "GET"): ("/api/projects/{pid}/bots/{pbid}", None, PROJECT_WRITE(200)),
    ("api.project.bot", "DELETE"): ("/api/projects/{pid}/bots/{pbid}", None,
                                    PROJECT_WRITE(200)),
    ("api.project.bot.tokens", "GET"): ("/api/projects/{pid}/bots/{pbid}/tokens", None,
                                        PROJECT_WRITE(200)),
    ("api.project.bot.tokens", "POST"): ("/api/projects/{pid}/bots/{pbid}/tokens",
                                         NEW_BOT_TOKEN, PROJECT_WRITE(201)),
    ("api.project.bot.token", "DELETE"): ("/api/projects/{pid}/bots/{pbid}/tokens/{pbtid}",
                                          None, PROJECT_WRITE(200)),
    ("api.group.bots", "GET"): ("/api/groups/{gid}/bots", None, GROUP_WRITE(200)),
    ("api.group.bots", "POST"): ("/api/groups/{gid}/bots", NEW_BOT, GROUP_WRITE(201)),
    ("api.group.bot", "GET"): ("/api/groups/{gid}/bots/{gbid}", None, GROUP_WRITE(200)),
    ("api.group.bot", "DELETE"): ("/api/groups/{gid}/bots/{gbid}", None, GROUP_WRITE(200)),
    ("api.group.bot.tokens", "GET"): ("/api/groups/{gid}/bots/{gbid}/tokens", None,
                                      GROUP_WRITE(200)),
    ("api.group.bot.tokens", "POST"): ("/api/groups/{gid}/bots/{gbid}/tokens", NEW_BOT_TOKEN,
                                       GROUP_WRITE(201)),
    ("api.group.bot.token", "DELETE"): ("/api/groups/{gid}/bots/{gbid}/tokens/{gbtid}", None,
                                        GROUP_WRITE(200)),
    ("api.project.share", "GET"): ("/api/projects/{pid}/shares/{psid}", None,
                                   expect(200, 404, **READERS)),
    ("api.project.share", "PATCH"): ("/api/projects/{pid}/shares/{psid}",
                                     {"accessLevel": "GUEST"},
                                     {**expect(200, 404, **WRITERS), "member": 403,
                                      "sequencer": 403}),
    ("api.project.share", "DELETE"): ("/api/projects/{pid}/shares/{psid}", None,
                                      {**expect(200, 404, **WRITERS), "member": 403,
                                       "sequencer": 403}),
}


def registered(app_config):
    endpoints = app_config.registry["seqcore.endpoints"]
    return {(name, method) for name, endpoint in endpoints.items()
            if name not in PUBLIC for method in endpoint.views}


def test_every_endpoint_has_a_rule(app, app_config):
    assert registered(app_config) == set(RULES)


@pytest.fixture(scope="session")
def built_worlds():
    """The world each worker built, with a snapshot of it (see ``world``)."""
    return {}


@pytest.fixture
def world(factories, db, engine, app_config, built_worlds):
    """The survey's world: built through the factories by a worker's first test, then put
    back from its snapshot for each later one (the same rows, ids and files; every test still
    starts from exactly this world, and nothing else)."""
    storage = Path(app_config.get_settings()["seqcore.storage.path"])
    if "world" in built_worlds:
        snapshot, made = built_worlds["world"]
        restore_snapshot(engine, snapshot, storage)
        return made
    made = _build_world(factories, db)
    built_worlds["world"] = (take_snapshot(engine, storage), made)
    return made


def _build_world(factories, db):
    users = {
        "admin": factories.user(role=SystemRole.ADMIN, username="admin"),
        "owner": factories.user(username="owner"),
        "member": factories.user(username="member"),
        "outsider": factories.user(username="outsider"),
        "manager": factories.user(role=SystemRole.MANAGER, username="manager"),
        "technician": factories.user(role=SystemRole.TECHNICIAN, username="technician"),
        "sequencer": factories.user(role=SystemRole.SEQUENCER, username="sequencer"),
    }
    project = factories.project(owner=users["owner"], name="Matrix survey",
                                members=[(users["member"], ProjectRole.USER)])
    sample = factories.sample(project, name="matrix-sample")
    run = factories.run(users["sequencer"])
    qc = {"totalSequences": 20}
    pair = factories.sequencing_object(sample, "pairs", qc=qc)
    single = factories.sequencing_object(sample, "unpaired", qc=qc)
    # The analysis ran on a pair of a sample another project holds too: data an analysis
    # used cannot be deleted (409), and the DELETE rules here test permissions on data
    # no analysis used.
    keeper = factories.project(owner=users["admin"], name="Keeps analysed data")
    analysed = factories.sample(project, name="analysed-sample", also_in=[keeper])
    analysed_pair = factories.sequencing_object(analysed, "pairs", qc=qc)
    submission = factories.submission(users["owner"], [analysed_pair], state="COMPLETED",
                                      projects=[project],
                                      outputs={"counts": ("counts.tsv", b"sample\treads\n")})
    ncbi = NcbiSubmission(project_id=project.id, submitter_id=users["owner"].id,
                          bio_project="PRJNA1", organization="Matrix lab", namespace="MTX")
    db.add(ncbi)
    export = DataExport(project_id=project.id, requester_id=users["member"].id,
                        selection={"samples": [sample.id]}, state="READY", size=4,
                        ready_at=utcnow(), expires_at=utcnow() + timedelta(hours=1))
    db.add(export)
    db.flush()
    export.path = f"exports/{export.id}/matrix.zip"
    bundle = Path(factories.settings["seqcore.storage.path"]) / export.path
    bundle.parent.mkdir(parents=True, exist_ok=True)
    bundle.write_bytes(b"PK\x05\x06")
    remote = RemoteApi(name="Matrix lab's IRIDA", base_url="https://irida.example.org",
                       client_id="matrix", client_secret="matrix-secret")
    db.add(remote)
    field = MetadataField(project_id=project.id, name="matrix")
    template = MetadataTemplate(project_id=project.id, name="Matrix")
    db.add_all([field, template])
    db.commit()
    group = factories.group(users["owner"], name="Matrix lab",
                            members=[(users["member"], AccessLevel.GUEST)])
    partners = factories.group(users["owner"], name="Matrix partners")
    third = factories.group(users["owner"], name="Matrix third")
    group_share = factories.share(partners, AccessLevel.GUEST, group=group)
    project_share = factories.share(partners, AccessLevel.GUEST, project=project)
    with factories.session_factory() as session:
        project_bot, project_bot_token = create_bot(
            session, session.get_one(Project, project.id), "UPLOADER", "matrix", ["api"],
            actor_id=None)
        group_bot, group_bot_token = create_bot(
            session, session.get_one(Group, group.id), "GUEST", "matrix", ["read_api"],
            actor_id=None)
        bots = {"pbid": project_bot.id, "pbtid": project_bot_token.record.id,
                "gbid": group_bot.id, "gbtid": group_bot_token.record.id}
        session.commit()
    return users, {"gid": group.id, "third_gid": third.id, "gsid": group_share.id,
                   "psid": project_share.id, "pid": project.id, "mfid": field.id,
                   "tid": template.id, "member_id": users["member"].id, "sid": sample.id,
                   "nid": ncbi.id, "eid": export.id, "raid": remote.id,
                   "rid": run.id, "pairs_oid": pair.id, "pairs_fid": pair.files[0].id,
                   "unpaired_oid": single.id, "unpaired_fid": single.files[0].id,
                   "fid": single.files[0].id, "oid": pair.id, "subid": submission.id,
                   "outid": submission.outputs[0].id, **bots}


def fill(body, ids):
    """Ids in JSON bodies: ``"{oid}"`` strings become the world's numbers."""
    if isinstance(body, dict):
        return {k: fill(v, ids) for k, v in body.items()}
    if isinstance(body, list):
        return [fill(v, ids) for v in body]
    if isinstance(body, str) and body.startswith("{") and body.endswith("}"):
        return ids[body[1:-1]]
    return body


def call(testapp, method, path, body, headers):
    if body is None:
        return testapp.request(path, method=method, headers=headers, expect_errors=True)
    return testapp.request(path, method=method, headers={**headers,
                           "Content-Type": "application/json"},
                           body=__import__("json").dumps(body).encode(), expect_errors=True)


@pytest.mark.parametrize("caller", CALLERS)
@pytest.mark.parametrize("rule", sorted(RULES), ids=lambda r: f"{r[1]} {r[0]}")
def test_role(testapp, factories, world, rule, caller):
    users, ids = world
    path, body, statuses = RULES[rule]
    res = call(testapp, rule[1], path.format(**ids), fill(body, ids),
               factories.headers(users[caller]))
    assert res.status_int == statuses[caller], res.text


@pytest.mark.parametrize("rule", sorted(RULES), ids=lambda r: f"{r[1]} {r[0]}")
def test_without_or_with_bad_tokens(testapp, engine, factories, world, rule):
    users, ids = world
    path, body, _ = RULES[rule]
    url = path.format(**ids)
    assert call(testapp, rule[1], url, body, {}).status_int == 401
    assert call(testapp, rule[1], url, body,
                {"Authorization": "Bearer not-a-token"}).status_int == 401
    expired = factories.token(users["admin"])
    with engine.begin() as conn:
        conn.execute(update(OAuthToken).values(expires=utcnow() - timedelta(seconds=5)))
    assert call(testapp, rule[1], url, body,
                {"Authorization": f"Bearer {expired}"}).status_int == 401


@pytest.mark.parametrize("rule", sorted(RULES), ids=lambda r: f"{r[1]} {r[0]}")
def test_read_scope(testapp, factories, world, rule):
    users, ids = world
    path, body, statuses = RULES[rule]
    headers = {"Authorization": f"Bearer {factories.token(users['admin'], scopes=['read'])}"}
    res = call(testapp, rule[1], path.format(**ids), fill(body, ids), headers)
    expected = statuses["admin"] if rule[1] in ("GET", "HEAD") else 403
    assert res.status_int == expected, res.text



# Numbers beyond what an id column holds (PostgreSQL's integer, SQLite's 64-bit integer).
TOO_LARGE = [str(2**31), str(2**63), "9" * 30]


@pytest.mark.parametrize("rule", sorted(r for r in RULES if "{" in RULES[r][0]),
                         ids=lambda r: f"{r[1]} {r[0]}")
def test_an_id_too_large_for_its_column_is_not_found(testapp, factories, db, world, rule):
    """Each id in each route's path, alone out of range while the others name real rows,
    is a 404 that changes nothing: no route, view or query sees a number the database would
    refuse to bind (which was an internal error)."""
    users, ids = world
    path, body, _ = RULES[rule]
    headers = factories.headers(users["admin"])
    before = snapshot(db)
    for name in re.findall(r"\{(\w+)\}", path):
        for number in TOO_LARGE:
            url = path.format(**{**ids, name: number})
            res = call(testapp, rule[1], url, fill(body, ids), headers)
            assert res.status_int == 404, (url, res.status, res.text[:300])
            assert res.json["message"], res.text
    assert snapshot(db) == before
