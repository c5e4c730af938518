"""Journeys through the workbench in real Chromium (Debian's, never downloaded) against a live
server: sign in, create a group and a project in it, filter the samples table by a metadata
value, select samples across pages and export their line list as XLSX (opened with
openpyxl), a member with a lower metadata level who sees the restricted column nowhere, a
sample's QC verdict leading to the file's QC report, a pair dropped on a project's upload
area whose QC verdicts appear by themselves, an assembly launched from the samples table
that completes and shows its result, and the bot accounts and import pages.
axe-core (from ``node_modules``, injected into the page) checks every page visited: no
serious or critical violation. Screenshots go to ``test-artifacts/`` (``docs/web.md``)."""

import io
import json
import threading
from pathlib import Path

import pytest
from openpyxl import load_workbook

from seqcore.models.fielddecl import MetadataField
from seqcore.models.project import ProjectRole
from tests.web.test_browser import ARTIFACTS, CHROMIUM, FLAGS

AXE = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(CHROMIUM is None, reason="Chromium not found (apt-get install chromium)"),
    pytest.mark.skipif(not AXE.is_file(), reason="axe-core not installed (npm ci)"),
]


def check_accessibility(page):
    """No serious or critical axe-core violation on the page as it is now."""
    page.add_script_tag(content=AXE.read_text())
    result = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    bad = [{"id": v["id"], "impact": v["impact"], "nodes": [n["html"] for n in v["nodes"][:3]]}
           for v in result["violations"] if v["impact"] in ("serious", "critical")]
    assert not bad, f"{page.url}: {json.dumps(bad, indent=1)}"


def sign_in(page, server, user):
    page.goto(f"{server}/users/sign_in")
    check_accessibility(page)
    page.get_by_label("Username or e-mail").fill(user.username)
    page.get_by_label("Password").fill("Password1!")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/-/profile")


@pytest.fixture(scope="module")
def chromium():
    """One Chromium for the module's journeys: each gets a context of its own (cookies,
    storage, downloads), as isolated from the others as a browser of its own, without a
    browser start per journey."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture
def browser_page(chromium):
    ARTIFACTS.mkdir(exist_ok=True)
    context = chromium.new_context(viewport={"width": 1280, "height": 900},
                                   accept_downloads=True)
    page = context.new_page()
    try:
        yield page
    except Exception:
        page.screenshot(path=ARTIFACTS / "workbench-failure.png", full_page=True)
        raise
    finally:
        context.close()


def test_group_project_filter_select_export(live_server, factories, db, browser_page):
    from playwright.sync_api import expect

    page = browser_page
    user = factories.user(username="scientist")
    sign_in(page, live_server, user)

    page.goto(f"{live_server}/")
    expect(page.get_by_role("heading", name="Dashboard")).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-1-dashboard.png")

    page.get_by_role("navigation", name="Main").get_by_role("link", name="Groups").click()
    page.get_by_label("Group name").fill("Enteric lab")
    check_accessibility(page)
    page.get_by_role("button", name="Create group").click()
    expect(page.get_by_role("heading", name="Enteric lab")).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-2-group.png")

    page.get_by_role("link", name="Create a project here").click()
    page.get_by_label("Project name").fill("Salmonella survey")
    page.get_by_label("Genome size (bases)").fill("4800000")
    check_accessibility(page)
    page.get_by_role("button", name="Create project").click()
    expect(page.get_by_role("heading", name="Salmonella survey")).to_be_visible()
    project_url = page.url
    project_id = int(project_url.rstrip("/").rsplit("/", 1)[1])

    # Samples arrive (through the API in real life); 60 of them, a third Enteritidis.
    from seqcore.models.project import Project

    project = db.get(Project, project_id)
    for n in range(60):
        factories.sample(project, name=f"SAL-{n:03d}", metadata={
            "serovar": "Enteritidis" if n % 3 == 0 else "Typhimurium", "host": "human"})
    page.goto(project_url)
    expect(page.get_by_text("Rows 1-25 of 60")).to_be_visible()
    check_accessibility(page)

    page.get_by_label("Metadata field").select_option("serovar")
    page.get_by_label("holding").fill("Enteritidis")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("Rows 1-20 of 20")).to_be_visible()
    page.screenshot(path=ARTIFACTS / "web-3-filtered-samples.png", full_page=True)
    check_accessibility(page)

    # Select two rows on this page, one on the next (25 per page): the selection follows.
    page.get_by_label("Rows per page").select_option("25")
    page.get_by_role("button", name="Apply").click()
    page.get_by_label("Select SAL-000").check()
    page.get_by_label("Select SAL-003").check()
    page.goto(project_url + "?per_page=25&page=2")
    page.get_by_label("Select SAL-027").check()
    expect(page.locator("[data-selection-target=count]")).to_have_text("3")
    with page.expect_download() as download_info:
        page.get_by_role("button", name="Export line list (XLSX)").click()
    download = download_info.value
    sheet = load_workbook(io.BytesIO(Path(download.path()).read_bytes())).active
    rows = [list(row) for row in sheet.iter_rows(values_only=True)]
    assert rows[0] == ["sample_puid", "sample_name", "host", "serovar"]
    assert sorted(row[1] for row in rows[1:]) == ["SAL-000", "SAL-003", "SAL-027"]


def test_lower_metadata_level_sees_no_restricted_column(live_server, factories, db,
                                                        browser_page):
    page = browser_page
    owner = factories.user(username="lead")
    member = factories.user(username="student")
    project = factories.project(owner=owner, name="Listeria outbreak",
                                members=[(member, ProjectRole.USER, "LEVEL_1")])
    db.add(MetadataField(project_id=project.id, name="patient_id", restriction="LEVEL_4"))
    db.commit()
    sample = factories.sample(project, name="LIS-001",
                              metadata={"patient_id": "PX-4471", "st": "ST6"})
    sign_in(page, live_server, member)
    for path in (f"/-/projects/{project.id}", f"/-/samples/{sample.id}", "/"):
        page.goto(live_server + path)
        content = page.content()
        assert "ST6" in content or path == "/"
        assert "patient_id" not in content and "PX-4471" not in content
        check_accessibility(page)
        if path == f"/-/projects/{project.id}":
            # What docs/web.md shows: the member's project page, without the column.
            page.screenshot(path=ARTIFACTS / "web-4-member-view.png")
    # Sorting on it is refused in the same words as on a field that does not exist.
    hidden = page.goto(f"{live_server}/-/projects/{project.id}?sort=m:patient_id")
    hidden_text = page.locator("[role=alert]").inner_text()
    missing = page.goto(f"{live_server}/-/projects/{project.id}?sort=m:nonesuch")
    assert hidden.status == missing.status == 400
    assert hidden_text.replace("patient_id", "X") == page.locator(
        "[role=alert]").inner_text().replace("nonesuch", "X")


def test_sample_page_verdicts_lead_to_the_qc_report(live_server, factories, tmp_path,
                                                    browser_page):
    from playwright.sync_api import expect

    from tests.web.test_qc_pages import _report

    page = browser_page
    owner = factories.user(username="reader")
    project = factories.project(owner=owner, name="QC survey")
    sample = factories.sample(project, name="SAL-QC")
    bad = factories.sequencing_object(sample, qc=_report(tmp_path, "bad", high=20,
                                                         repeated_share=0.05))
    sign_in(page, live_server, owner)
    page.goto(f"{live_server}/-/samples/{sample.id}")
    summary = page.locator(f'.qc-summary[data-file="{bad.files[0].id}"]')
    expect(summary.locator(".badge.fail")).to_have_text("Fail")
    check_accessibility(page)
    summary.get_by_role("link").click()
    expect(page.get_by_role("heading", level=1)).to_contain_text("QC of")
    expect(page.locator("#qc-worst .badge.fail")).to_be_visible()
    expect(page.get_by_role("img", name="Quality scores across all bases")).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-5-qc-report.png", full_page=True)


@pytest.fixture
def embedded_worker(app_config):
    """The worker loop the development server runs, in a thread of this process: it checks
    the uploaded files (QC) and runs analyses while the journey watches."""
    from seqcore.worker import start_embedded

    stop = start_embedded(app_config.registry)
    yield
    stop()


def drop_files(page, target, files):
    """Drop ``files`` (name -> text) on ``target`` as a drag from the desktop does."""
    transfer = page.evaluate_handle("""(files) => {
        const transfer = new DataTransfer();
        for (const [name, text] of Object.entries(files)) {
            transfer.items.add(new File([text], name, {type: "application/octet-stream"}));
        }
        return transfer;
    }""", files)
    page.dispatch_event(target, "dragenter", {"dataTransfer": transfer})
    page.dispatch_event(target, "drop", {"dataTransfer": transfer})


def test_upload_a_pair_and_watch_its_qc_verdicts(live_server, factories, db, tmp_path,
                                                  browser_page, embedded_worker):
    """A pair dropped on the project's upload area makes its sample (named after the
    files), a refused file says why beside it, and the sample page turns the pending QC
    into verdicts when the worker has checked the files, without a reload."""
    from playwright.sync_api import expect

    from seqcore.testing.uploads import fastq

    page = browser_page
    owner = factories.user(username="sequencer")
    project = factories.project(owner=owner, name="Campylobacter survey")
    sign_in(page, live_server, owner)
    page.goto(f"{live_server}/-/projects/{project.id}")
    area = page.locator(".upload-area")
    expect(area.get_by_role("heading", name="Add samples from FASTQ files")).to_be_visible()
    expect(area.get_by_text("Or drop the files here.")).to_be_visible()
    check_accessibility(page)

    reads = {"CAMP-01_S1_L001_R1_001.fastq": fastq(reads=400, length=100, seed=11).decode(),
             "CAMP-01_S1_L001_R2_001.fastq": fastq(reads=400, length=100, seed=12).decode(),
             "notes_R1.fastq": "these are not reads\n"}
    drop_files(page, ".upload-area .dropzone", reads)
    rows = area.locator(".upload-list li")
    expect(rows).to_have_count(3)
    forward = rows.filter(has_text="CAMP-01_S1_L001_R1_001.fastq")
    expect(forward.locator(".upload-status")).to_contain_text("Stored: QC runs now")
    expect(forward.locator("progress")).to_have_attribute("aria-label",
                                                          "Upload of CAMP-01_S1_L001_R1_001.fastq")
    expect(rows.filter(has_text="notes_R1.fastq").locator(".upload-status")).to_contain_text(
        "Refused: notes_R1.fastq:")
    check_accessibility(page)
    area.screenshot(path=ARTIFACTS / "web-6-upload.png")

    forward.get_by_role("link", name="CAMP-01").click()
    expect(page.get_by_role("heading", name="CAMP-01", level=1)).to_be_visible()
    check_accessibility(page)
    # The worker checks the pair; the files' frame refreshes itself until the verdicts show.
    verdicts = page.locator("#sample-files .qc-summary")
    expect(verdicts).to_have_count(2, timeout=90_000)
    expect(page.locator("#sample-files [data-pending]")).to_have_count(0)
    check_accessibility(page)

    # The sample's own area takes a single-end file from the file chooser.
    page.get_by_label("FASTQ files").set_input_files(files=[{
        "name": "CAMP-01_extra.fastq", "mimeType": "application/octet-stream",
        "buffer": fastq(reads=50, seed=13)}])
    page.locator(".upload-area").get_by_role("button", name="Upload").click()
    expect(page.locator(".upload-list li.stored")).to_have_count(1)
    expect(page.locator("#sample-files .qc-summary")).to_have_count(3, timeout=90_000)
    check_accessibility(page)

    # A file above the area's threshold takes the direct-upload path: its MD5 computed in
    # the browser, announced, PUT to storage, then attached to the sample.
    threshold = int(page.locator(".upload-area").get_attribute("data-upload-direct-bytes-value"))
    record = fastq(reads=100, length=100, seed=15)
    big = record * (threshold // len(record) + 2)
    page.get_by_label("FASTQ files").set_input_files(files=[{
        "name": "CAMP-01_long.fastq", "mimeType": "application/octet-stream", "buffer": big}])
    page.locator(".upload-area").get_by_role("button", name="Upload").click()
    expect(page.locator(".upload-list li.stored")).to_have_count(2, timeout=60_000)
    expect(page.locator("#sample-files .qc-summary")).to_have_count(4, timeout=120_000)
    check_accessibility(page)
    from sqlalchemy import select

    from seqcore.models.attachment import Attachment

    db.expire_all()
    assert [a.file.file_name for a in db.scalars(select(Attachment))] == ["CAMP-01_long.fastq"]


ASSEMBLY_TESTS = Path(__file__).resolve().parents[2] / "plugins" / "seqcore-assembly" / "tests"


def simulated_pair(directory, name):
    """30x of 2x150 bp reads from a random 30 kb genome without repeats, as the assembly
    plugin's own tests make them (its ``simulate`` module): MEGAHIT assembles them in
    seconds."""
    import importlib.util
    import sys

    simulate = sys.modules.get("assembly_simulate")
    if simulate is None:
        spec = importlib.util.spec_from_file_location("assembly_simulate",
                                                      ASSEMBLY_TESTS / "simulate.py")
        simulate = sys.modules["assembly_simulate"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(simulate)
    genome = simulate.random_genome(30_000, seed=41, families=())
    r1, r2 = directory / f"{name}_R1.fastq", directory / f"{name}_R2.fastq"
    simulate.simulate_reads(genome.sequence, 30.0, r1, r2, seed=141)
    return [(r1.name, r1.read_bytes()), (r2.name, r2.read_bytes())]


@pytest.fixture
def assembly_site(seqcore_settings, tmp_path):
    """The application with the assembly plugins, on a database of its own (SQLite, or
    PostgreSQL as the suite's is: the suite's has no assembly tables), served on loopback
    with the worker loop the development server runs; its URL and factories."""
    from waitress.server import create_server

    import seqcore_assemblies.plugin
    import seqcore_assembly.plugin
    import seqcore_sequencefiles.plugin
    from seqcore.config import configure
    from seqcore.db.migrations import upgrade
    from seqcore.services import ISessionFactory, registry_service
    from seqcore.testing.database import make_engine, test_database_url
    from seqcore.testing.factories import Factories
    from seqcore.worker import start_embedded

    url = test_database_url(tmp_path, "assembly_journey")
    engine = make_engine(url)
    config = configure({**seqcore_settings, "sqlalchemy.url": url, "seqcore.engine": engine,
                        "seqcore.storage.path": str(tmp_path / "storage"),
                        "seqcore.analysis.work_path": str(tmp_path / "work"),
                        "seqcore.assembly.memory_gb": 2},
                       plugins=[seqcore_sequencefiles.plugin, seqcore_assembly.plugin,
                                seqcore_assemblies.plugin])
    upgrade(config.get_settings(), config.registry.pm, engine=engine)
    server = create_server(config.make_wsgi_app(), host="127.0.0.1", port=0, threads=4)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    stop = start_embedded(config.registry)
    kinds = config.registry.get("seqcore.file_kinds", {}).values()
    factories = Factories(registry_service(config.registry, ISessionFactory),
                          config.get_settings(), {kind.name: kind for kind in kinds})
    try:
        yield f"http://127.0.0.1:{server.effective_port}", factories
    finally:
        stop()
        server.close()
        thread.join(timeout=5)
        engine.dispose()


def test_launch_an_assembly_from_the_table_and_open_its_result(assembly_site, tmp_path,
                                                                browser_page):
    """Select a sample in the project's table, launch an assembly (MEGAHIT, the quicker
    assembler) from the bulk actions, watch the analysis page reach COMPLETED by itself,
    and read the assembly's result view (its contigs' statistics and plot)."""
    from playwright.sync_api import expect

    server, factories = assembly_site
    page = browser_page
    owner = factories.user(username="assembler")
    project = factories.project(owner=owner, name="Listeria assemblies")
    sample = factories.sample(project, name="LIS-ASM-1")
    factories.sample(project, name="LIS-ASM-2")
    factories.sequencing_object(sample, "pairs",
                                files=simulated_pair(tmp_path, "LIS-ASM-1"))
    sign_in(page, server, owner)

    page.goto(f"{server}/-/projects/{project.id}")
    check_accessibility(page)
    page.get_by_label("Select LIS-ASM-1").check()
    expect(page.locator("[data-selection-target=count]")).to_have_text("1")
    page.get_by_role("button", name="Launch an analysis").click()
    expect(page.get_by_role("heading", name="Launch an analysis")).to_be_visible()
    check_accessibility(page)
    page.get_by_label("Assembly and annotation", exact=True).check()
    page.get_by_role("button", name="Choose").click()
    page.locator("#parameter-assembler").select_option("megahit")
    check_accessibility(page)
    page.get_by_role("button", name="Launch", exact=True).click()

    expect(page.locator("#analysis-state-value")).to_have_text("Completed", timeout=240_000)
    check_accessibility(page)
    view = page.locator('.output-view[data-output="contigs-with-repeats"]')
    expect(view).to_be_visible()
    expect(view.get_by_role("img").first).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-7-assembly-result.png", full_page=True)


def test_bots_and_import_pages_pass_the_accessibility_check(live_server, factories,
                                                             browser_page):
    """The project's bot accounts and its spreadsheet import, as their owner sees them."""
    from playwright.sync_api import expect

    page = browser_page
    owner = factories.user(username="curator")
    project = factories.project(owner=owner, name="Shigella surveillance")
    sign_in(page, live_server, owner)
    page.goto(f"{live_server}/-/projects/{project.id}/manage/bots")
    expect(page.get_by_role("heading", level=1)).to_be_visible()
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-8-bots.png", full_page=True)
    page.goto(f"{live_server}/-/projects/{project.id}/import")
    expect(page.get_by_role("heading", level=1)).to_contain_text("Import samples and metadata")
    check_accessibility(page)
    page.screenshot(path=ARTIFACTS / "web-9-import.png", full_page=True)
