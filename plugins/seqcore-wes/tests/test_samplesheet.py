"""With an object-store backend the samplesheet's fastq columns hold the signed URLs the job
carries, so the WES server reads the store, not a shared disk."""

from seqcore_wes import samplesheet

SCHEMA = {"items": {"properties": {"sample": {}, "fastq_1": {}, "fastq_2": {}}}}


def test_fastq_columns_hold_the_signed_urls():
    urls = ["https://store.example/b/aa/r1.fastq.gz?X-Amz-Signature=1",
            "https://store.example/b/bb/r2.fastq.gz?X-Amz-Signature=2"]
    header, body = samplesheet.rows(SCHEMA, [{"sample_id": 7, "sample_name": "s7",
                                              "files": [], "urls": urls}], {}, {"7": "P7"})
    assert header == ["sample", "fastq_1", "fastq_2"]
    assert body == [["P7", *urls]]


def test_fastq_columns_hold_absolute_paths_without_urls(tmp_path):
    reads = tmp_path / "r1.fastq"
    _, body = samplesheet.rows(SCHEMA, [{"sample_id": 7, "sample_name": "s7",
                                         "files": [str(reads)]}], {}, {})
    assert body == [["7", str(reads.resolve()), ""]]
