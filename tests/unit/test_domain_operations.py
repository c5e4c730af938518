"""The domain operations both transports call, on a real database, without HTTP or GraphQL:
their refusals are domain errors that say what is wrong, and nothing is changed then."""

from __future__ import annotations

import pytest
from sqlalchemy import select

from seqcore.errors.domain import Conflict, Invalid
from seqcore.files.uploads import run_for_upload
from seqcore.models.project import Project
from seqcore.models.sample import MetadataEntry, ProjectSample, Sample
from seqcore.models.sequencing import UploadStatus
from seqcore.parsing.schemas import ProjectSchema, SampleSchema, check
from seqcore.projects.projects import new_project, update_project
from seqcore.samples.metadata import TEXT, metadata_changes, set_metadata
from seqcore.samples.samples import check_move, create_sample, transfer_samples, update_sample

TYPES = {"text": TEXT}


def test_check_answers_every_field_problem_at_once():
    with pytest.raises(Invalid) as err:
        check(SampleSchema(), {"sampleName": "a ", "latitude": "north"})
    assert err.value.problems == {
        "sampleName": ["Sample name must be at least 3 characters long.",
                       "The name you have supplied contains a space character. Names must NOT "
                       "include the space character and the following: ? ( ) [ ] / \\ = + < > "
                       ": ; \" ' , * ^ | & ."],
        "latitude": ["Not a valid latitude coordinate."],
    }


def test_check_refuses_unknown_fields_naming_the_acceptable_ones():
    with pytest.raises(Invalid) as err:
        check(ProjectSchema(), {"name": "A project", "colour": "red"}, updating=True)
    assert err.value.message == ("Cannot update resource with supplied properties. "
                                 "Unknown: colour.")
    assert "projectDescription" in err.value.extra["acceptable-properties"]
    assert check(ProjectSchema(), {"name": "A project", "colour": "red"},
                 allow_unknown=True) == {"name": "A project"}


def test_new_project_refuses_a_taken_path_and_an_upside_down_coverage(factories, db):
    owner = factories.user()
    first = new_project(db, owner.id, owner.username, {"name": "Listeria"}, path="listeria")
    assert first.path == "listeria"
    with pytest.raises(Invalid) as err:
        new_project(db, owner.id, owner.username, {"name": "Listeria"}, path="listeria")
    assert err.value.problems == {"path": ["Path has already been taken"]}
    with pytest.raises(Invalid) as err:
        new_project(db, owner.id, owner.username, {"name": "Coverage", "minimum_coverage": 9,
                                                   "maximum_coverage": 3})
    assert err.value.problems == {"maximumCoverage": [
        "Maximum coverage must not be less than minimum coverage."]}
    assert db.scalars(select(Project.name).where(Project.name == "Coverage")).all() == []
    db.rollback()


def test_update_project_checks_coverage_against_what_is_stored(factories, db):
    project = db.get(Project, factories.project(minimum_coverage=10).id)
    with pytest.raises(Invalid):
        update_project(db, project, {"maximum_coverage": 5})
    update_project(db, project, {"maximum_coverage": 50, "organism": "E. coli"})
    assert (project.maximum_coverage, project.organism) == (50, "E. coli")
    db.rollback()


def test_sample_names_are_unique_per_project(factories, db):
    project = factories.project()
    taken = factories.sample(project, name="isolate-1")
    with pytest.raises(Conflict) as err:
        create_sample(db, project.id, {"name": "isolate-1"})
    assert err.value.message == (
        "An entity already exists with that identifier: Sample with the name 'isolate-1' "
        f"already exists in project {project.id}")
    other = db.get(Sample, factories.sample(project, name="isolate-2").id)
    with pytest.raises(Conflict):
        update_sample(db, other, {"name": taken.name})
    update_sample(db, other, {"name": "isolate-3"})
    db.flush()
    assert db.scalar(select(ProjectSample.sample_name).where(
        ProjectSample.sample_id == other.id)) == "isolate-3"
    db.rollback()


def test_moving_refuses_each_sample_that_cannot_go_and_moves_ownership(factories, db):
    source, target = factories.project(name="Source"), factories.project(name="Target")
    movable = factories.sample(source, name="movable")
    clash = factories.sample(source, name="clash")
    factories.sample(target, name="clash")
    elsewhere = factories.sample(factories.project(), name="elsewhere")
    source, target = db.get(Project, source.id), db.get(Project, target.id)
    samples = [db.get(Sample, s.id) for s in (movable, clash, elsewhere)]
    with pytest.raises(Invalid) as err:
        check_move(db, source, target, samples)
    assert err.value.problems == {
        str(clash.id): ["A sample named clash already exists in project Target."],
        str(elsewhere.id): ["Sample elsewhere is not in project Source."],
    }
    transfer_samples(db, source, target, samples[:1])
    db.flush()
    assert db.execute(select(ProjectSample.project_id, ProjectSample.owner).where(
        ProjectSample.sample_id == movable.id)).all() == [(target.id, True)]
    db.rollback()


def test_metadata_writes_report_what_happened_to_each_field(factories, db):
    sample = db.get(Sample, factories.sample(factories.project(),
                                             metadata={"host": "cow", "year": "2020"}).id)
    with pytest.raises(Invalid) as err:
        metadata_changes({"": {"value": "x"}}, TYPES, allow_delete=True)
    assert err.value.problems == {"": ["Metadata field names must not be empty."]}
    changes = metadata_changes({"host": {"value": "sheep"}, "year": {"value": "2020"},
                                "gone": {"value": None}, "new": {"value": 7}}, TYPES,
                               allow_delete=True)
    assert set_metadata(db, [sample], [changes]) == [{
        "added": ["new"], "updated": ["host"], "deleted": [], "unchanged": ["year"],
        "not_found": ["gone"]}]
    set_metadata(db, [sample], [metadata_changes({"only": {"value": "this"}}, TYPES, False)],
                 replace=True)
    db.flush()
    assert db.scalars(select(MetadataEntry.field).where(
        MetadataEntry.sample_id == sample.id)).all() == ["only"]
    db.rollback()


def test_uploads_go_only_into_an_open_run(factories, db):
    user = factories.user()
    run = factories.run(user)
    assert run_for_upload(db, [None, None], lambda run: True) is None
    assert run_for_upload(db, [run.id, run.id], lambda run: True).id == run.id
    with pytest.raises(Invalid, match="different sequencing runs"):
        run_for_upload(db, [run.id, None], lambda run: True)
    stored = db.get(type(run), run.id)
    stored.upload_status = UploadStatus.COMPLETE
    db.flush()
    with pytest.raises(Invalid, match="must be in the UPLOADING state"):
        run_for_upload(db, [run.id], lambda run: True)
    with pytest.raises(Invalid, match=f"The sequencing run {run.id} does not exist."):
        run_for_upload(db, [run.id], lambda run: False)
    db.rollback()


def test_membership_refusals_are_domain_errors(factories, db):
    from seqcore.errors.domain import Forbidden, NotFound
    from seqcore.projects.projects import add_member, remove_member

    owner, member, stranger = factories.user(), factories.user(), factories.user()
    project = factories.project(owner, members=[(member, "PROJECT_USER")])
    with pytest.raises(Invalid, match="must keep at least one owner"):
        remove_member(db, project.id, owner.id, owner.username, None)
    with pytest.raises(Conflict, match=f"{member.username} is already a member of project"):
        add_member(db, project.id, member.id, member.username, "PROJECT_USER", "LEVEL_1",
                   owner.id)
    with pytest.raises(NotFound, match=f"{stranger.username} is not a member of this project"):
        remove_member(db, project.id, stranger.id, stranger.username, owner.id)
    with pytest.raises(Forbidden, match="You are no longer an owner of this project"):
        add_member(db, project.id, stranger.id, stranger.username, "PROJECT_USER", "LEVEL_1",
                   member.id)
    with pytest.raises(NotFound) as err:
        add_member(db, project.id, member.id, member.username, "PROJECT_USER", "LEVEL_1",
                   stranger.id)
    assert err.value.message == "The resource was not found."
    db.rollback()
