import pytest
from webtest import TestApp

from seqcore.config import configure


@pytest.fixture
def build_app(seqcore_settings, database_url, engine):
    """A WebTest app over the test database with extra plugins loaded."""

    def build(plugins, **settings):
        config = configure({**seqcore_settings, "sqlalchemy.url": database_url,
                            "seqcore.engine": engine, **settings}, plugins=plugins)
        return TestApp(config.make_wsgi_app())

    return build
