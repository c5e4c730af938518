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
    owner = factories.user(username="owner")
    sample = factories.sample(factories.project(owner=owner), name="isolate-1")
    headers = factories.headers(owner)
    body, content_type = multipart([("file", "a.fastq", fastq(reads=50, length=40, seed=3),
                                     None)])
    res = testapp.post(f"/api/samples/{sample.id}/unpaired", body,
                       headers={**headers, "Content-Type": content_type})
    file_url = res.headers["Location"].replace("http://localhost", "")

    assert Worker(app_config.registry).run_until_idle() == 1

    assert len(engine.paths) == 1
    assert db.scalars(select(QCRecord.engine)).all() == ["recording test engine"]
    qc = testapp.get(file_url + "/qc", headers=headers).json["resource"]
    assert (qc["totalSequences"], qc["minLength"]) == (50, 40)


def test_the_swap_ends_with_the_test(app_config):
    engine = registry_service(app_config.registry, IQCEngine)
    assert isinstance(engine, FastQCCompatibleEngine)
