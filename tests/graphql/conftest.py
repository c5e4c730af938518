"""Shared data for the GraphQL tests: a project with samples in its owner's namespace."""

import pytest

from seqcore.models.user import SystemRole


@pytest.fixture
def outbreak(factories):
    """``user0`` owns ``Outbreak 2022`` (path ``outbreak-2022``) with five samples."""
    owner = factories.user(SystemRole.USER, username="user0", email="user0@email.com")
    project = factories.project(owner=owner, name="Outbreak 2022", description="Anthrax",
                                path="outbreak-2022")
    samples = [
        factories.sample(project, name=f"Outbreak-2022-Sample-{n}", description=f"Sample {n}",
                         metadata={"country": "Canada", "age": str(30 + n),
                                   "collection_date": f"2024-0{n}-15"})
        for n in range(1, 6)
    ]
    return owner, project, samples


def gid(kind, pk):
    return f"gid://seqcore/{kind}/{pk}"
