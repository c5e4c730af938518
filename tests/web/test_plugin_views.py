"""Plugins' views on the pages (``register_views``): an output rendered by the plugin that
declares its view, the plain list as fallback (also for a view that fails), and the start-up
refusing a view that names an unknown rel or kind, or a template nobody has."""

from pathlib import Path
from types import SimpleNamespace

import pytest
from pyramid.exceptions import ConfigurationError

import seqcore_sequencefiles.plugin as sequencefiles_plugin
from seqcore import hookimpl
from seqcore.config import configure
from seqcore.framework.contrib import ANY_TYPE, FileKindView, OutputView, ViewAssets
from tests.plugins import readcount, views

from .test_workbench import sign_in

TEMPLATES = Path(views.__file__).resolve().parent / "views_templates"


class _Declares:
    def __init__(self, *items):
        self.items = list(items)

    @hookimpl
    def register_views(self):
        return self.items


@pytest.fixture
def finished(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project)
    obj = factories.sequencing_object(sample)
    submission = factories.submission(
        owner, [obj], state="COMPLETED", projects=[project],
        outputs={"counts": ("counts.tsv", b"a.fastq\t120\nb.fastq\t80\n"),
                 "summary": ("summary.json", b'{"reads": 200}')})
    return owner, submission


def test_an_output_is_shown_by_its_plugins_view(build_app, finished):
    owner, submission = finished
    app = build_app([sequencefiles_plugin, readcount, views])
    sign_in(app, owner)
    page = app.get(f"/-/analyses/{submission.id}")
    section = page.html.select_one('section.output-view[data-output="counts"]')
    assert section.select_one(".counts-total").text == "200"
    chart = section.select_one("svg.chart")
    assert chart.find("title").text == "Reads per file"
    assert len(chart.select("rect.bar")) == 2
    # The plugin's static file is served under its own prefix.
    icon = section.select_one("figure.counts")["data-icon"]
    assert icon.startswith("/-/plugins/readcount-views/")
    assert app.get(icon).body.startswith(b"<svg")
    # The output without a view stays in the plain list; the viewed one is not repeated.
    assert [li.find("code").text for li in page.html.select("#analysis-outputs li")] == [
        "summary"]


def test_without_the_plugin_every_output_is_in_the_list(testapp, finished):
    owner, submission = finished
    sign_in(testapp, owner)
    page = testapp.get(f"/-/analyses/{submission.id}")
    assert not page.html.select("section.output-view")
    assert [li.find("code").text for li in page.html.select("#analysis-outputs li")] == [
        "counts", "summary"]


def test_a_file_kind_is_shown_by_its_plugins_view_on_the_sample_page(build_app, factories):
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner))
    obj = factories.sequencing_object(sample)
    kind = _Declares(ViewAssets("kind-views", TEMPLATES),
                     FileKindView(obj.kind, "readcount/kind.mako",
                                  context=lambda view: {"first": view.path.name}))
    app = build_app([sequencefiles_plugin, readcount, kind])
    sign_in(app, owner)
    page = app.get(f"/-/samples/{sample.id}")
    shown = page.html.select_one(f'section.kind-view[data-object="{obj.id}"] .kind-summary')
    stored = obj.files[0].path.rsplit("/", 1)[-1]
    assert shown.text == f"{obj.kind}: {len(obj.files)} files, first {stored}"


def test_a_view_that_fails_falls_back_to_the_list(build_app, finished, caplog):
    owner, submission = finished
    broken = _Declares(ViewAssets("broken-views", TEMPLATES),
                       OutputView("readcount", "outputFile/counts", "readcount/broken.mako"))
    app = build_app([sequencefiles_plugin, readcount, broken])
    sign_in(app, owner)
    page = app.get(f"/-/analyses/{submission.id}")
    assert [li.find("code").text for li in page.html.select("#analysis-outputs li")] == [
        "counts", "summary"]
    assert "readcount/broken.mako failed" in caplog.text


@pytest.fixture
def build(seqcore_settings, database_url, engine):
    def build(*items):
        return configure({**seqcore_settings, "sqlalchemy.url": database_url,
                          "seqcore.engine": engine},
                         plugins=[sequencefiles_plugin, readcount, _Declares(*items)])
    return build


def test_a_view_of_an_unknown_rel_stops_start_up_naming_the_plugin(build):
    with pytest.raises(ConfigurationError, match=r"plugin '.*_Declares.*': OutputView "
                       r"'outputFile/tree' of 'readcount': analysis type 'readcount' declares "
                       r"no output rel 'outputFile/tree'"):
        build(ViewAssets("v", TEMPLATES),
              OutputView("readcount", "outputFile/tree", "readcount/counts.mako")).commit()


def test_a_missing_template_stops_start_up(build):
    with pytest.raises(ConfigurationError, match=r"template 'readcount/nothing.mako' is in "
                       "no template directory"):
        build(ViewAssets("v", TEMPLATES),
              OutputView("readcount", "outputFile/counts", "readcount/nothing.mako")).commit()
    with pytest.raises(ConfigurationError, match=r"template directory .* does not exist"):
        build(ViewAssets("v", TEMPLATES / "nowhere")).commit()


def test_a_view_of_an_unknown_kind_or_of_another_type_stops_start_up(build):
    with pytest.raises(ConfigurationError, match="no loaded plugin registers the file kind "
                       "'nanopore'"):
        build(ViewAssets("v", TEMPLATES),
              FileKindView("nanopore", "readcount/counts.mako")).commit()
    with pytest.raises(ConfigurationError, match="expected ViewAssets, OutputView or "
                       "FileKindView"):
        build("not a view").commit()


def test_two_views_of_one_rel_conflict(build):
    from pyramid.exceptions import ConfigurationConflictError

    view = OutputView("readcount", "outputFile/counts", "readcount/counts.mako")
    with pytest.raises(ConfigurationConflictError):
        build(ViewAssets("v", TEMPLATES), view, view).commit()


def test_a_plugins_view_speaks_french_from_its_own_catalogue(build_app, db, finished):
    owner, submission = finished
    db.get(type(owner), owner.id).locale = "fr"
    db.commit()
    app = build_app([sequencefiles_plugin, readcount, views])
    sign_in(app, owner)
    section = app.get(f"/-/analyses/{submission.id}").html.select_one(
        'section.output-view[data-output="counts"]')
    # The plugin's words from its catalogue, in the template and in its context callable...
    assert section.select_one(".counts-note").text == "Compté par le compteur de lectures."
    assert section.select_one("svg.chart").find("title").text == "Lectures par fichier"
    # ...and a word only the core translates, from the core's.
    assert section.find("h3").text == "Lectures"
    # In English the words are as written.
    db.get(type(owner), owner.id).locale = "en"
    db.commit()
    section = app.get(f"/-/analyses/{submission.id}").html.select_one(
        'section.output-view[data-output="counts"]')
    assert section.select_one(".counts-note").text == "Counted by the read counter."
    assert section.find("h3").text == "Reads"


def test_translations_without_a_language_stop_start_up(build, tmp_path):
    import shutil

    locale = tmp_path / "locale"
    shutil.copytree(Path(views.__file__).resolve().parent / "views_locale", locale)
    (locale / "fr" / "LC_MESSAGES" / "readcount_views.mo").unlink()
    with pytest.raises(ConfigurationError, match=r"plugin '.*_Declares.*': translations of "
                       r"domain 'readcount_views': no compiled catalogue .*fr/LC_MESSAGES/"
                       r"readcount_views.mo"):
        build(ViewAssets("v", TEMPLATES, translations=locale,
                         domain="readcount_views")).commit()
    (locale / "fr" / "LC_MESSAGES" / "readcount_views.mo").write_bytes(b"not a catalogue")
    with pytest.raises(ConfigurationError, match=r"readcount_views\.mo' does not load"):
        build(ViewAssets("v", TEMPLATES, translations=locale,
                         domain="readcount_views")).commit()


def test_a_view_of_any_type_shows_the_rel_of_every_type_declaring_it(build_app, finished):
    owner, submission = finished
    def context(view):
        return {"first": view.item.key,
                "object": SimpleNamespace(kind=view.subject.analysis_type, files=[])}

    shown = _Declares(ViewAssets("any-views", TEMPLATES),
                      OutputView(ANY_TYPE, "outputFile/counts", "readcount/kind.mako",
                                 context=context))
    app = build_app([sequencefiles_plugin, readcount, shown])
    sign_in(app, owner)
    page = app.get(f"/-/analyses/{submission.id}")
    assert page.html.select_one('section.output-view[data-output="counts"] .kind-summary'
                                ).text == "readcount: 0 files, first counts"
    # A view naming the type itself wins over the one of any type.
    app = build_app([sequencefiles_plugin, readcount, views, shown])
    sign_in(app, owner)
    page = app.get(f"/-/analyses/{submission.id}")
    section = page.html.select_one('section.output-view[data-output="counts"]')
    assert section.select_one(".counts-total").text == "200"
