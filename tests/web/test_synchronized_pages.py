"""Synchronized projects in the workbench: the project page shows the sync state and
"Sync now" (and no upload area), and the picker lists the remote APIs an account is
connected to."""

from datetime import timedelta

from seqcore.db import utcnow
from seqcore.models.project import ProjectRole
from seqcore.models.remote import ProjectSync, RemoteApi, RemoteConnection
from tests.web.test_workbench import sign_in


def mirrored(factories, db, status="error", error="GET http://x/api: 500 boom"):
    owner = factories.user(username="owner")
    member = factories.user(username="member")
    project = factories.project(owner=owner, name="Mirror",
                                members=[(member, ProjectRole.USER)])
    api = RemoteApi(name="National lab", base_url="http://127.0.0.1:9", client_id="c",
                    client_secret="s")
    db.add(api)
    db.flush()
    db.add(ProjectSync(project_id=project.id, remote_api_id=api.id, user_id=owner.id,
                       remote_url="http://127.0.0.1:9/api/projects/4", status=status,
                       error=error, last_sync=utcnow() - timedelta(hours=2),
                       next_sync=utcnow() + timedelta(days=1)))
    db.commit()
    return owner, member, project, api


def test_the_project_page_shows_the_sync_state_and_syncs_now(testapp, factories, db):
    owner, member, project, _ = mirrored(factories, db)
    sign_in(testapp, member)
    seen = testapp.get(f"/-/projects/{project.id}")
    assert "Synchronized project" in seen.text and "National lab" in seen.text
    assert "500 boom" in seen.text and 'id="sync-now"' not in seen.text  # members read it
    sign_in(testapp, owner)
    seen = testapp.get(f"/-/projects/{project.id}")
    assert 'id="sync-now"' in seen.text and "upload" not in seen.text.lower().split(
        "<h2>samples</h2>")[-1].split("<table")[0]
    # Its bulk actions are those that leave the mirrored samples as they are.
    bulk = f"/-/projects/{project.id}/samples/"
    assert bulk + "copy" in seen.text and bulk + "clone" in seen.text
    for refused in ("metadata", "move", "remove"):
        assert bulk + refused not in seen.text, refused
    form = seen.forms[next(k for k, f in seen.forms.items()
                           if f.action.endswith(f"/-/projects/{project.id}/sync"))]
    form.submit(status=303)
    db.expire_all()
    row = db.get(ProjectSync, project.id)
    assert row.next_sync <= utcnow() and row.status == "scheduled"
    plain = factories.project(owner=owner, name="Plain")
    seen = testapp.get(f"/-/projects/{plain.id}")
    assert "Synchronized project" not in seen.text
    for action in ("copy", "clone", "metadata", "move", "remove"):
        assert f"/-/projects/{plain.id}/samples/{action}" in seen.text, action
    testapp.post(f"/-/projects/{plain.id}/sync", {"csrf_token": form["csrf_token"].value},
                 status=404)


def test_the_picker_lists_connected_remotes_only(testapp, factories, db):
    owner, _, _, api = mirrored(factories, db)
    sign_in(testapp, owner)
    assert "connected to no remote API" in testapp.get("/-/synchronized").text
    db.add(RemoteConnection(remote_api_id=api.id, user_id=owner.id, access_token="t"))
    db.commit()
    seen = testapp.get("/-/synchronized")
    assert "National lab" in seen.text
    # Port 9 answers nothing: the page says why, and lists nothing.
    seen = testapp.get("/-/synchronized", {"remote": str(api.id)})
    assert "could not be read" in seen.text
    testapp.get("/-/synchronized", {"remote": "999"}, status=404)
    testapp.get("/-/synchronized", {"remote": "x"}, status=400)
