"""The GraphQL plugin example of ``docs/graphql.md`` runs as written: it imports only from
``seqcore.plugin``, its async resolver awaits the request's loaders, and a caller who may not
read the sample gets ``null``."""

import re
import types
from pathlib import Path

import pytest
from webtest import TestApp

from seqcore.config import configure
from seqcore.services import ISessionFactory, registry_service
from seqcore.testing.factories import Factories
from seqcore.testing.fixtures import GraphQLClient

DOC = Path(__file__).resolve().parents[2] / "docs" / "graphql.md"
QUERY = ("query($id: ID!) { sampleSummary(sampleId: $id) { name fieldCount readCount } }")


def example() -> str:
    section = DOC.read_text().split("## Adding types and fields in a plugin", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


def test_the_example_imports_only_the_public_api():
    imports = re.findall(r"^(?:from|import) (\S+)", example(), re.M)
    assert set(imports) == {"graphene", "seqcore.plugin"}


@pytest.fixture
def site(seqcore_settings, database_url, engine):
    plugin = types.ModuleType("summary_example")
    exec(compile(example(), "docs/graphql.md", "exec"), plugin.__dict__)
    config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                        "seqcore.engine": engine}, plugins=[plugin])
    testapp = TestApp(config.make_wsgi_app(), extra_environ={"HTTP_HOST": "localhost"})
    factories = Factories(registry_service(config.registry, ISessionFactory),
                          config.get_settings(), {})
    return factories, GraphQLClient(testapp, factories)


def test_the_example_answers_through_the_loaders(site):
    factories, graphql = site
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner), name="isolate-7",
                              metadata={"read count": "1200", "serovar": "Typhi"})
    gid = f"gid://seqcore/Sample/{sample.id}"
    assert graphql.as_user(owner)(QUERY, {"id": gid}) == {"data": {"sampleSummary": {
        "name": "isolate-7", "fieldCount": 2, "readCount": 1200}}}
    assert graphql.as_user(factories.user())(QUERY, {"id": gid}) == {
        "data": {"sampleSummary": None}}
