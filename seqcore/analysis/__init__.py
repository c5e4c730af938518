"""The analysis framework: types declared by plugins, submissions, the state machine run by
workers, executors, and the tool environments analyses run in (see
``docs/writing_plugins.md``).

Part of the domain layer; it imports no transport."""

from pyramid.config import Configurator


def includeme(config: Configurator) -> None:
    config.include("seqcore.analysis.registry")
