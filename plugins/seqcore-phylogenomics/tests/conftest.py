import sys
from pathlib import Path

import pytest

import seqcore_phylogenomics.plugin

sys.path.insert(0, str(Path(__file__).parent))  # the data generator


@pytest.fixture(scope="session")
def seqcore_plugins():
    import seqcore_assemblies.plugin
    import seqcore_sequencefiles.plugin

    return [seqcore_phylogenomics.plugin, seqcore_sequencefiles.plugin,
            seqcore_assemblies.plugin]


@pytest.fixture(scope="session")
def dataset(tmp_path_factory):
    """Five isolates on a 150 kb reference with two repeat families, 44 known SNVs outside
    repeats (two inside a region iso5 lacks), 4 inside repeats; reads at 40x."""
    import simulate

    root = tmp_path_factory.mktemp("phylo-data")
    truth = simulate.make_truth()
    reference = root / "reference.fasta"
    simulate.write_fasta(truth.reference, reference)
    reads = {}
    for i, name in enumerate(truth.names):
        r1, r2 = root / f"{name}_R1.fastq", root / f"{name}_R2.fastq"
        simulate.simulate_reads(truth.genomes[name], 40, r1, r2, seed=100 + i)
        reads[name] = (r1.read_bytes(), r2.read_bytes())
    return {"truth": truth, "reference": reference.read_bytes(), "reads": reads}
