"""Sequencing runs (``/api/sequencingrun``)."""

from __future__ import annotations

from typing import Any

from seqcore.models.sequencing import SequencingRun
from seqcore.resources.base import Context, int_key
from seqcore.security.access import RUN, RUNS, Ace
from seqcore.security.permissions import Permission

# Path segments that create a run of that sequencer type (deprecated names included).
TYPE_ALIASES = {"seqmodelrun": "seqmodel", "miseqrun": "miseq"}


class RunsCollection(Context):
    __acl__ = RUNS.acl()
    read_permission = Permission.API_READ

    def child(self, key: str) -> Any:
        if key.isdigit():  # digits of any length or script: a run id, never a type
            run = self.db.get(SequencingRun, int_key(key))
            if run is None:
                raise KeyError(key)
            return RunResource(self.request, key, self, run)
        return RunTypeResource(self.request, key, self)


class RunResource(Context):
    read_permission = RUN.read
    known_with = (Permission.RUN_UPDATE,)

    def __init__(self, request: Any, name: str, parent: Context, run: SequencingRun) -> None:
        super().__init__(request, name, parent)
        self.run = run

    @property
    def __acl__(self) -> list[Ace]:
        """From :data:`seqcore.security.access.RUN`: the account that created the run updates it."""
        return RUN.acl(self.db, self.run)

    def child(self, key: str) -> Any:
        if key == "sequenceFiles":
            return RunObjects(self.request, key, self)
        raise KeyError(key)


class RunObjects(Context):
    """``/api/sequencingrun/{id}/sequenceFiles``: POST attaches an existing sequencing object
    to the run (the run's rules apply)."""

    __parent__: RunResource

    @property
    def run(self) -> SequencingRun:
        return self.__parent__.run


class RunTypeResource(Context):
    """``/api/sequencingrun/{type}``: POST creates a run of that sequencer type."""

    __parent__: RunsCollection

    @property
    def sequencer_type(self) -> str:
        name = self.__name__.lower()
        return TYPE_ALIASES.get(name, name)
