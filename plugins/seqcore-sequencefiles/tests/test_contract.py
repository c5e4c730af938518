from seqcore.testing.contracts import FileKindContract
from seqcore.testing.uploads import fastq, gz


class TestUnpairedContract(FileKindContract):
    segment = "unpaired"
    collection_rel = "sample/sequenceFiles/unpaired"

    def good_files(self):
        return [("isolate_S1_L001_R1_001.fastq.gz", gz(fastq(seed=3)))]

    def bad_content(self):
        return b">not fastq\nACGT\n"


class TestPairsContract(FileKindContract):
    segment = "pairs"
    collection_rel = "sample/sequenceFiles/pairs"
    files = 2

    def good_files(self):
        return [("x_R1.fastq", fastq(seed=1)), ("x_R2.fastq", fastq(seed=2))]

    def bad_content(self):
        return b"@r1\nACGT\n+\nII\n"
