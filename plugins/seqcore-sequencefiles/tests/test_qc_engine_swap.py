"""The worker runs whichever QC engine is registered for IQCEngine: a test (or a site
plugin) swaps the engine through the test kit, without touching the core."""

from sqlalchemy import select

from seqcore.plugin import FastQCCompatibleEngine, IQCEngine, QCRecord, registry_service
from seqcore.testing.uploads import fastq, multipart
from seqcore.testing.workers import Worker


class RecordingEngine:
    """The default engine's numbers, plus a list of the files it was asked about."""

    label = "recording test engine"

    def __init__(self):
        self.inner = FastQCCompatibleEngine(processes=1)
        self.paths = []

    def run(self, path):
        self.paths.append(path)
        return self.inner.run(path)


def test_the_worker_uses_the_swapped_engine(testapp, app_config, factories, db, swap_service):
    engine = swap_service(IQCEngine, RecordingEngine())
    qc = _qc_of_a_new_upload(testapp, app_config, factories)

    assert len(engine.paths) == 1
    assert db.scalars(select(QCRecord.engine)).all() == ["recording test engine"]
    assert (qc["totalSequences"], qc["minLength"]) == (50, 40)


def test_the_swap_ends_with_the_test(app_config):
    engine = registry_service(app_config.registry, IQCEngine)
    assert isinstance(engine, FastQCCompatibleEngine)


def _qc_of_a_new_upload(testapp, app_config, factories):
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    headers = factories.headers(owner)
    body, content_type = multipart([("file", "a.fastq", fastq(reads=50, length=40, seed=3),
                                     None)])
    res = testapp.post(f"/api/samples/{sample.id}/unpaired", body,
                       headers={**headers, "Content-Type": content_type})
    assert Worker(app_config.registry).run_until_idle() == 1
    return testapp.get(res.headers["Location"] + "/qc", headers=headers).json["resource"]


def test_the_qc_record_names_the_fastqc_version_its_numbers_match(testapp, app_config,
                                                                   factories):
    """seqcore's engine reproduces FastQC 0.11.9 (the version the QC tests compare with,
    the ``fastqc`` installed next to them when there is one)."""
    import shutil
    import subprocess

    qc = _qc_of_a_new_upload(testapp, app_config, factories)
    assert qc["fastqcVersion"] == FastQCCompatibleEngine.fastqc_version == "0.11.9"
    if shutil.which("fastqc"):
        out = subprocess.run(["fastqc", "--version"], capture_output=True, text=True).stdout
        assert out.strip() == f"FastQC v{qc['fastqcVersion']}"


class VersionlessEngine(RecordingEngine):
    label = "an engine that claims no FastQC version"


class VersionedEngine(RecordingEngine):
    label = "a site's FastQC 0.12.1 wrapper"
    fastqc_version = "0.12.1"


def test_another_engine_names_its_own_version_or_none(testapp, app_config, factories,
                                                      swap_service):
    swap_service(IQCEngine, VersionlessEngine())
    assert _qc_of_a_new_upload(testapp, app_config, factories)["fastqcVersion"] is None


def test_an_engine_declaring_a_version_is_believed(testapp, app_config, factories,
                                                   swap_service):
    swap_service(IQCEngine, VersionedEngine())
    assert _qc_of_a_new_upload(testapp, app_config, factories)["fastqcVersion"] == "0.12.1"
