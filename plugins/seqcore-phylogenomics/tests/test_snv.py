"""The consolidation rules and formats on hand-made evidence (no tools needed)."""

import numpy as np

from seqcore_phylogenomics import snv

A, C, G, T, N, GAP = 0, 1, 2, 3, snv.N_CODE, snv.GAP_CODE


def reference(length=2000):
    return snv.Reference(["c1", "c2"], [length // 2, length // 2],
                         np.zeros(length, dtype=np.uint8))


def evidence(size, calls, gaps=(), ns=()):
    base = np.zeros(size, dtype=np.uint8)
    variant = np.zeros(size, dtype=bool)
    for pos, b in calls.items():
        base[pos], variant[pos] = b, True
    for pos in gaps:
        base[pos] = GAP
    for pos in ns:
        base[pos] = N
    return snv.Evidence(np.full(size, 30, dtype=np.int32), base, variant)


def test_status_order_invalid_then_coverage_then_mpileup():
    ref = reference()
    repeats = np.zeros(ref.size, dtype=bool)
    repeats[100:200] = True
    one = evidence(ref.size, {150: C, 300: G, 400: T, 500: A + 1}, gaps=(), ns=())
    two = evidence(ref.size, {}, gaps=(150, 300), ns=(400,))
    result = snv.consolidate(ref, [one, two], repeats, None)
    assert dict(zip(result.positions.tolist(), result.status.tolist(), strict=True)) == {
        150: snv.INVALID, 300: snv.COVERAGE, 400: snv.MPILEUP, 500: snv.VALID}


def test_density_filter_masks_more_than_the_threshold_per_isolate():
    ref = reference()
    # Three SNVs within 500 bp in one isolate: masked; two: kept; windows stop at contigs.
    dense = evidence(ref.size, {10: C, 200: C, 400: C, 700: C, 1100: C, 990: C})
    result = snv.consolidate(ref, [dense, evidence(ref.size, {})], np.zeros(ref.size, bool),
                             (500, 2))
    status = dict(zip(result.positions.tolist(), result.status.tolist(), strict=True))
    assert status[10] == status[200] == status[400] == snv.INVALID
    assert status[700] == status[990] == status[1100] == snv.VALID


def test_self_alignment_masks_both_copies_but_not_the_identity_hit():
    ref = reference()
    coords = "\n".join(["1\t1000\t1\t1000\t1000\t1000\t100.00\tc1\tc1",
                         "101\t300\t1000\t801\t200\t200\t95.00\tc1\tc2"])
    mask = snv.parse_self_alignment(coords, ref)
    assert mask[100:300].all() and not mask[99] and not mask[300]
    assert mask[1000 + 800:1000 + 1000].all() and mask.sum() == 400


def test_matrix_and_mapping_quality_formats(tmp_path):
    ref = reference()
    one = evidence(ref.size, {5: C, 600: G})
    two = evidence(ref.size, {600: G})
    result = snv.consolidate(ref, [one, two], np.zeros(ref.size, bool), None)
    snv.write_matrix(result, ref, ["a", "b"], tmp_path / "m.tsv")
    assert (tmp_path / "m.tsv").read_text() == (
        "strain\treference\ta\tb\t\nreference\t0\t2\t1\t\na\t2\t0\t1\t\n"
        "b\t1\t1\t0\t\n")
    low = snv.write_mapping_quality(ref, ["a", "b", "c"], [99.0, 12.5612, 50.0], 15, 80,
                                    tmp_path / "q.txt")
    assert low == ["b", "c"]
    assert (tmp_path / "q.txt").read_text().splitlines()[-2:] == ["b : 12.56%", "c : 50.00%"]
