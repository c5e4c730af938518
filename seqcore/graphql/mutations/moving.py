"""``copySamples`` (IRIDA Next's clone), ``shareSamples`` and ``transferSamples`` between
projects.

``copySamples`` is IRIDA Next's ``CloneSamples`` (its input and payload carry those names):
each sample gets a clone in the target, a new sample with its own PUID, the original's
metadata the caller reads and its files, referenced rather than copied
(:mod:`seqcore.samples.clones`). The caller must read the source and each sample and be able to
create samples in the target. Each sample is cloned on its own: one that is not in the source,
whose name the target already uses, or that cannot be cloned is an error beside the clones.

``shareSamples`` is REST's sharing: the same sample joins the target project, read-only there;
the caller must be able to create samples in the target and read each sample. A share is all
or nothing: a sample already in the target, or whose name is taken there, is an error, and
then nothing is shared.

Transferring moves a sample's membership, and with it the source project's ownership of the
sample, so the caller must own the source project, each sample and the target project
(sequencer accounts, which write every sample to upload into it, own none and cannot
transfer). A transfer follows IRIDA Next: the samples that can move do, in one savepoint, and
each one that cannot (not found, not the caller's to move, not in the source, already in the
target, its name taken there) is an error beside them; ``samples`` is null only when none
moved.
"""

from __future__ import annotations

from typing import Any

import graphene

from seqcore.errors.domain import Invalid
from seqcore.graphql.mutations.base import (
    Problems,
    UserError,
    either,
    find_project,
    find_sample,
    run,
)
from seqcore.graphql.scalars import JSON
from seqcore.samples.clones import clone_samples
from seqcore.samples.samples import check_move, copy_samples, transfer_samples
from seqcore.security.fieldaccess import Caller, widened_fields, widening_message
from seqcore.security.permissions import Permission


class _Move(graphene.relay.ClientIDMutation):
    class Meta:
        abstract = True

    class Input:
        project_id = graphene.ID(description="The project the samples are in (or give "
                                             "projectPuid).")
        project_puid = graphene.ID(description="The PUID of the project the samples are in.")
        new_project_id = graphene.ID(description="The target project (or give "
                                                 "newProjectPuid).")
        new_project_puid = graphene.ID(description="The PUID of the target project.")
        sample_ids = graphene.NonNull(graphene.List(graphene.NonNull(graphene.ID)))


def _projects(ids: dict[str, Any]) -> tuple[str, str]:
    """The source and target projects, each by global id or PUID (exactly one of each)."""
    return (either(ids.get("project_id"), ids.get("project_puid"), "project"),
            either(ids.get("new_project_id"), ids.get("new_project_puid"), "newProject"))


def _find(info: Any, project_id: str, new_project_id: str, sample_ids: list[str],
          transfer: bool) -> tuple[Any, Any, list[tuple[str, Any]], list[dict[str, Any]]]:
    """Source, target, ``(gid, sample)`` for every sample the caller may move, and the
    payload errors of those it may not (or that do not exist)."""
    verb = "transfer samples from" if transfer else "read"
    source = find_project(info, project_id, "project",
                          Permission.PROJECT_WRITE if transfer else Permission.PROJECT_READ,
                          verb).project
    target = find_project(info, new_project_id, "new_project",
                          Permission.PROJECT_WRITE if transfer else Permission.SAMPLE_CREATE,
                          f"{'transfer' if transfer else 'copy'} samples into").project
    if source.id == target.id:
        raise Problems([{"message": "The source and target projects are the same.",
                         "path": ["new_project"]}])
    ids = list(dict.fromkeys(sample_ids))
    if not ids:
        raise Problems([{"message": "Provide at least one sample.", "path": ["samples"]}])
    errors: list[dict[str, Any]] = []
    found = []
    for gid in ids:
        try:
            sample = find_sample(info, gid, ["samples", gid],
                                 Permission.SAMPLE_OWN if transfer else Permission.SAMPLE_READ,
                                 "transfer" if transfer else "copy").sample
        except Problems as err:
            errors.extend(err.errors)
            continue
        found.append((gid, sample))
    return source, target, found, errors


def _move(info: Any, project_id: str, new_project_id: str, sample_ids: list[str],
          transfer: bool) -> tuple[list[str], list[dict[str, Any]]]:
    """Share or transfer the samples (:mod:`seqcore.samples.samples`): the global ids moved,
    and the errors of those that did not (a share moves none when there is one)."""
    source, target, found, errors = _find(info, project_id, new_project_id, sample_ids,
                                          transfer)
    refused: set[str] = set()
    try:
        check_move(info.context.db, source, target, [sample for _, sample in found])
    except Invalid as err:
        gids = {str(sample.id): ["samples", gid] for gid, sample in found}
        refused = set(err.problems)
        errors.extend({"message": message, "path": gids[key]}
                      for key, messages in err.problems.items() for message in messages)
    movable = [(gid, sample) for gid, sample in found if str(sample.id) not in refused]
    if transfer and movable:  # a sample whose move would widen what anyone reads stays
        widened, gainers = widened_fields(info.context.db, [s for _, s in movable],
                                          source.id, target.id)
        errors.extend({"message": widening_message([sample.name], widened[sample.id],
                                                   len(gainers)),
                       "path": ["samples", gid]}
                      for gid, sample in movable if sample.id in widened)
        movable = [(gid, sample) for gid, sample in movable if sample.id not in widened]
    if errors and (not transfer or not movable):
        raise Problems(errors)
    move = transfer_samples if transfer else copy_samples
    move(info.context.db, source, target, [sample for _, sample in movable])
    return [gid for gid, _ in movable], errors


class CloneSamples(_Move):
    """Copy samples to another project: each gets a clone there (a new sample with a new
    PUID, the metadata the caller reads and the files), as IRIDA Next's ``copySamples``."""

    samples = graphene.Field(JSON, description="[{original, copy}] global ids: each "
                                               "original and its clone.")
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, sample_ids: list[str],
                               **ids: Any) -> Any:
        def work() -> dict[str, Any]:
            source, target, found, errors = _find(info, *_projects(ids), sample_ids, False)
            request = info.context.request
            outcome = clone_samples(request, source, target, [s for _, s in found],
                                    Caller.of(info.context.identity),
                                    request.registry.get("seqcore.file_kinds", {}))
            gids = {sample.id: gid for gid, sample in found}
            errors.extend({"message": message, "path": ["samples", gids[sample_id]]}
                          for sample_id, message in outcome.problems.items())
            return {"samples": [{"original": gids[original.id],
                                 "copy": info.context.gid("Sample", clone.id)}
                                for original, clone in outcome.clones],
                    "errors": errors}

        return run(info, cls, work)


class ShareSamples(_Move):
    """Share samples with another project, read-only there: the same samples, in one more
    project (REST's sharing)."""

    samples = graphene.List(graphene.NonNull(graphene.ID),
                            description="Global ids of the shared samples.")
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, sample_ids: list[str],
                               **ids: Any) -> Any:
        def work() -> dict[str, Any]:
            gids, _ = _move(info, *_projects(ids), sample_ids, False)
            return {"samples": gids}

        return run(info, cls, work)


class TransferSamples(_Move):
    """Move samples to another project, keeping whether the project owns them."""

    samples = graphene.List(graphene.NonNull(graphene.ID),
                            description="Global ids of the transferred samples.")
    errors = graphene.NonNull(graphene.List(graphene.NonNull(UserError)))

    @classmethod
    def mutate_and_get_payload(cls, root: Any, info: Any, sample_ids: list[str],
                               **ids: Any) -> Any:
        def work() -> dict[str, Any]:
            gids, errors = _move(info, *_projects(ids), sample_ids, True)
            return {"samples": gids, "errors": errors}

        return run(info, cls, work)
