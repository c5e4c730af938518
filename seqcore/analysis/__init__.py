"""The analysis framework: types declared by plugins, submissions, the state machine run by
workers, and executors (see ``docs/writing_plugins.md``)."""

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    config.include("seqcore.analysis.registry")
