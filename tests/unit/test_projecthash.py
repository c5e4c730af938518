"""Which tables the project hash reads beyond the core's: found from the registered models,
never from a plugin's name."""

import pytest

import seqcore_assemblies.plugin
import seqcore_fast5.plugin
import seqcore_sequencefiles.plugin
from seqcore.framework.contributions import declarations
from seqcore.framework.plugins import build_plugin_manager
from seqcore.projects.projecthash import installed_attachments, sample_attachments

pytestmark = pytest.mark.database_independent


def test_plugin_rows_on_samples_are_found_by_their_foreign_key():
    """Of the plugins' models, only those holding a key to a sample are read
    (assemblies); rows keyed on sequencing objects (a pair's orientation, a FAST5 type) come
    with their object, and the core's own tables are hashed by the core."""
    pm = build_plugin_manager({}, plugins=[seqcore_sequencefiles.plugin, seqcore_fast5.plugin,
                                           seqcore_assemblies.plugin])
    models = [model for _, model in declarations(pm, "register_models")]
    found = sample_attachments(models)
    tables = {model.__table__.name for model in models}
    assert {"sequencefiles_pair", "fast5_object", "assemblies_assembly"} <= tables
    assert [table.name for table in found] == ["assemblies_assembly", "attachment"]
    assert installed_attachments(pm) == found


def test_no_plugin_only_the_cores_attachments():
    """The core's own attachments (GraphQL's attachFilesToSample) are sample rows too."""
    found = installed_attachments(build_plugin_manager({}, plugins=[]))
    assert [table.name for table in found] == ["attachment"]
