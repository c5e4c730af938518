"""A deployment with something of everything, for tests that compare or check every
answer of the API (backups, the OpenAPI description)."""

import pytest

from seqcore.models.user import SystemRole


@pytest.fixture
def deployment(app_config, factories, upload_reads, run_analysis):
    """An administrator and a user with projects, samples, uploaded files (QC done), a
    completed analysis with outputs, OAuth and personal tokens."""
    admin = factories.user(role=SystemRole.ADMIN)
    user = factories.user()
    headers = factories.headers(admin)
    project = factories.project(owner=admin)
    factories.project(owner=user)
    sample = factories.sample(project=project)
    other = factories.sample(project=project)
    single = upload_reads(sample, headers, kind="unpaired")
    pair = upload_reads(other, headers, kind="pairs")
    analysis = run_analysis("readcount", [single.id, pair.id], headers)
    assert analysis.state == "COMPLETED", analysis.error
    personal = factories.access_token(user, scopes=("read_api",))
    return {"headers": headers, "user": user, "personal": personal,
            "graphql": factories.basic(user.email, personal)}
