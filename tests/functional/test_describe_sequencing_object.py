"""``describe_sequencing_object``: a plugin fills a field another plugin's kind shows but
cannot fill itself (a pair's ``assembledGenome``), without either importing the other; kinds
that do not show the field are left alone."""

from __future__ import annotations

from seqcore import hookimpl


class FillsAssembledGenome:
    """Fills ``assembledGenome`` where a kind shows it, naming the object it was asked
    about; adds a field of its own everywhere."""

    @staticmethod
    @hookimpl
    def describe_sequencing_object(context, kind, fields):
        extra = {"seenBy": kind.name}
        if "assembledGenome" in fields:
            extra["assembledGenome"] = {"identifier": str(context.obj.id)}
        return extra


def test_a_plugin_fills_what_the_kind_declares(build_app, seqcore_plugins, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    single = factories.sequencing_object(sample, "unpaired")
    headers = factories.headers(owner)
    app = build_app([*seqcore_plugins, FillsAssembledGenome])

    got = app.get(f"/api/samples/{sample.id}/pairs/{pair.id}", headers=headers).json
    assert got["resource"]["assembledGenome"] == {"identifier": str(pair.id)}
    assert got["resource"]["seenBy"] == "pairs"
    (listed,) = app.get(f"/api/samples/{sample.id}/pairs",
                        headers=headers).json["resource"]["resources"]
    assert listed["assembledGenome"] == {"identifier": str(pair.id)}
    unpaired = app.get(f"/api/samples/{sample.id}/unpaired/{single.id}",
                       headers=headers).json["resource"]
    assert "assembledGenome" not in unpaired and unpaired["seenBy"] == "unpaired"


def test_without_such_a_plugin_a_pair_shows_null(testapp, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    got = testapp.get(f"/api/samples/{sample.id}/pairs/{pair.id}",
                      headers=factories.headers(owner)).json["resource"]
    assert got["assembledGenome"] is None and "seenBy" not in got


class FillsInBatches:
    """The batch form: one call per listing, every object of the batch at once; records the
    batches it was given."""

    batches: list[list[int]] = []

    @classmethod
    @hookimpl
    def describe_sequencing_objects(cls, contexts, kind, fields):
        cls.batches.append([context.obj.id for context in contexts])
        return [{"assembledGenome": {"identifier": f"batch-{context.obj.id}"}}
                if "assembledGenome" in answer else None
                for context, answer in zip(contexts, fields, strict=True)]


def test_a_plugin_describes_a_listing_in_one_batch(build_app, seqcore_plugins, factories):
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pairs = [factories.sequencing_object(sample, "pairs") for _ in range(3)]
    single = factories.sequencing_object(sample, "unpaired")
    headers = factories.headers(owner)
    app = build_app([*seqcore_plugins, FillsInBatches])
    FillsInBatches.batches.clear()

    listed = app.get(f"/api/samples/{sample.id}/pairs",
                     headers=headers).json["resource"]["resources"]
    assert [entry["assembledGenome"] for entry in listed] == [
        {"identifier": f"batch-{pair.id}"} for pair in pairs]
    assert FillsInBatches.batches == [[pair.id for pair in pairs]]  # one call, all three
    got = app.get(f"/api/samples/{sample.id}/pairs/{pairs[0].id}", headers=headers).json
    assert got["resource"]["assembledGenome"] == {"identifier": f"batch-{pairs[0].id}"}
    unpaired = app.get(f"/api/samples/{sample.id}/unpaired/{single.id}",
                       headers=headers).json["resource"]
    assert "assembledGenome" not in unpaired


def test_both_forms_together(build_app, seqcore_plugins, factories):
    """A plugin written against the per-object hook keeps working beside one using the
    batch form: the per-object answer is applied after the batch's."""
    owner = factories.user()
    sample = factories.sample(factories.project(owner=owner))
    pair = factories.sequencing_object(sample, "pairs")
    app = build_app([*seqcore_plugins, FillsInBatches, FillsAssembledGenome])
    got = app.get(f"/api/samples/{sample.id}/pairs", headers=factories.headers(owner)
                  ).json["resource"]["resources"][0]
    assert got["assembledGenome"] == {"identifier": str(pair.id)} and got["seenBy"] == "pairs"
