"""A plugin that contributes descriptors through ``register_pipeline_descriptors``: IRIDA
Next's own ``config/pipelines/pipelines.json``, unchanged, with the schemas of the pipeline
versions it names (from their repositories' tags) in IRIDA Next's cache layout."""

from pathlib import Path

from seqcore.plugin import hookimpl

FILE = Path(__file__).parent / "data" / "irida-next" / "pipelines.json"


@hookimpl
def register_pipeline_descriptors():
    return [FILE]
