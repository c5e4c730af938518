"""The consolidation rules and formats on hand-made evidence (no tools needed)."""

import gzip
from pathlib import Path

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


def snvphyl_density_case():
    """The SNVs of SNVPhyl's own density test (snvphyl-tools t/snv_density/input/1.vcf,
    1-based, one isolate) on contigs named as there."""
    names = ["2", "20", "3", "4", "5"]
    ref = snv.Reference(names, [400] * 5, np.zeros(2000, dtype=np.uint8))
    vcf = {"2": [101, 114, 115], "20": [3, 5, 59, 80, 81, 95, 273, 274, 278],
           "3": [10, 15], "4": [21], "5": [22]}
    positions = [400 * names.index(c) + p - 1 for c, ps in vcf.items() for p in ps]
    return ref, np.array(positions)


def regions(mask, ref):
    """The masked runs as SNVPhyl writes them: contig, first, last (1-based)."""
    found, run = [], None
    for i in [*np.flatnonzero(mask).tolist(), None]:
        if run and i == run[1] + 1:
            run[1] = i
            continue
        if run:
            c = int(ref.contig_index(np.array([run[0]]))[0])
            found.append((ref.names[c], run[0] - 400 * c + 1, run[1] - 400 * c + 1))
        run = [i, i] if i is not None else None
    return found


def test_density_filter_is_snvphyl_s():
    """SNVPhyl's filter_snv_density.t expects, for these SNVs: window 150 threshold 2 ->
    2:101-115, 20:3-95, 20:273-278; threshold 4 -> only 20:3-95 (the 3 SNVs of contig 2
    are not enough: at least `threshold`, not more than); window 300 -> 20:3-278 (273 - 3
    = 270 <= 300: the span may equal the window) and 3:10-15. Single SNVs (contigs 4 and
    5) and windows across contigs are never dense."""
    ref, positions = snvphyl_density_case()
    assert regions(snv.density_mask([positions], ref, 150, 2), ref) == [
        ("2", 101, 115), ("20", 3, 95), ("20", 273, 278), ("3", 10, 15)]
    assert regions(snv.density_mask([positions], ref, 150, 4), ref) == [("20", 3, 95)]
    assert regions(snv.density_mask([positions], ref, 300, 2), ref) == [
        ("2", 101, 115), ("20", 3, 278), ("3", 10, 15)]
    # The boundary: two SNVs exactly `window` apart are dense, one more bp apart are not.
    assert regions(snv.density_mask([np.array([500, 650])], ref, 150, 2), ref) == [
        ("20", 101, 251)]
    assert regions(snv.density_mask([np.array([500, 651])], ref, 150, 2), ref) == []


def test_density_filter_works_per_isolate():
    ref = reference()
    # Two SNVs within 500 bp in one isolate (SNVPhyl's default threshold 2): masked from
    # the first to the last; the same sites split between two isolates: kept.
    dense = evidence(ref.size, {10: C, 400: C, 1100: C})
    other = evidence(ref.size, {700: C})
    lone = evidence(ref.size, {990: C})
    result = snv.consolidate(ref, [dense, other, lone], np.zeros(ref.size, bool), (500, 2))
    status = dict(zip(result.positions.tolist(), result.status.tolist(), strict=True))
    assert status[10] == status[400] == snv.INVALID
    assert status[700] == status[990] == status[1100] == snv.VALID
    assert result.invalid[10:401].all() and not result.invalid[9] and not result.invalid[401]


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


# -- SNVPhyl's own test cases (snvphyl-tools, see tests/data/snvphyl/README.md) ------------

SNVPHYL = Path(__file__).parent / "data" / "snvphyl"
CODE = {"A": A, "C": C, "G": G, "T": T, "N": N, "-": GAP}


def case_reference(contigs):
    names = list(contigs)
    codes = np.array([CODE[b] for seq in contigs.values() for b in seq.upper()], np.uint8)
    return snv.Reference(names, [len(s) for s in contigs.values()], codes)


def case_evidence(ref, isolate):
    """An isolate's pileup as SNVPhyl's test describes it, contig by contig: its base at
    every position (N where its two callers disagree, - where it is not covered); the
    variants are its covered, called bases that differ from the reference."""
    base = np.array([CODE[b] for seq in isolate.values() for b in seq], np.uint8)
    variant = (base < N) & (base != ref.codes)
    return snv.Evidence(np.full(ref.size, 30, dtype=np.int32), base, variant)


def snvphyl_case(tmp_path, contigs, isolates, invalid=(), invalid_file=True):
    ref = case_reference(contigs)
    mask = np.zeros(ref.size, dtype=bool)
    for name, first, last in invalid:
        start = int(ref.offsets[ref.names.index(name)])
        mask[start + first - 1:start + last] = True
    names = list(isolates)
    evidence = [case_evidence(ref, isolates[n]) for n in names]
    result = snv.consolidate(ref, evidence, mask, None)
    snv.write_table(result, ref, names, tmp_path / "snvTable.tsv")
    snv.write_core(result, ref, tmp_path / "vcf2core.tsv", invalid_file)
    return ((tmp_path / "snvTable.tsv").read_text(), (tmp_path / "vcf2core.tsv").read_text())


CORE_HEADER = (
    "#Reference name\tTotal length\tTotal invalid and excluded positions\tTotal valid and "
    "included positions\tTotal valid and included positions in core genome\tPercentage of "
    "valid and included positions in core genome\tPercentage of all positions that are "
    "valid, included, and part of the core genome\n")


def test_vcf2core_and_table_reproduce_snvphyl_case_20(tmp_path):
    """snvphyl-tools t/input/20: two contigs; ref1 5-6 invalid; v2 disagrees (N) at 5 and
    is below the depth at 7 and 8. Its expected.positions.tsv and expected_core.csv: a
    contig without invalid positions reads N/A; ref1's core is 1-4 (5-6 invalid, 7-8 not
    covered in v2)."""
    table, core = snvphyl_case(
        tmp_path, {"ref1": "atgcccgt", "ref2": "gcataagt"},
        {"v1": {"ref1": "AAGCACTT", "ref2": "GCTTAAGT"},
         "v2": {"ref1": "AAGCNC--", "ref2": "GCATAAGT"}}, invalid=[("ref1", 5, 6)])
    assert table == ("#Chromosome\tPosition\tStatus\tReference\tv1\tv2\n"
                     "ref1\t2\tvalid\tT\tA\tA\n"
                     "ref1\t5\tfiltered-invalid\tC\tA\tN\n"
                     "ref1\t7\tfiltered-coverage\tG\tT\t-\n"
                     "ref2\t3\tvalid\tA\tT\tA\n")
    assert core == CORE_HEADER + ("ref1\t8\t2\t6\t4\t66.67\t50.00\n"
                                  "ref2\t8\tN/A\t8\t8\t100.00\t100.00\n"
                                  "all\t16\t2\t14\t12\t85.71\t75.00\n")


def test_vcf2core_reproduces_snvphyl_cases_15_12_and_8(tmp_path):
    # 15: a contig entirely invalid: NaN of its valid positions, 0.00 of all.
    _, core = snvphyl_case(tmp_path, {"ref1": "atgc", "ref2": "gcat"},
                           {"v1": {"ref1": "AAGC", "ref2": "GCTT"},
                            "v2": {"ref1": "AAGC", "ref2": "GCTT"}},
                           invalid=[("ref2", 1, 4)])
    assert core == CORE_HEADER + ("ref1\t4\tN/A\t4\t4\t100.00\t100.00\n"
                                  "ref2\t4\t4\t0\t0\tNaN\t0.00\n"
                                  "all\t8\t4\t4\t4\t100.00\t50.00\n")
    # 12 (no invalid-positions file): a filtered-mpileup site (N in v2) is in the core,
    # the filtered-coverage one and the uncovered last base are not.
    table, core = snvphyl_case(tmp_path, {"ref1": "atgcccgt", "ref2": "gcataagt"},
                               {"v1": {"ref1": "AAGCACTT", "ref2": "GCTTAAGT"},
                                "v2": {"ref1": "AAGCNC--", "ref2": "GCATAAGT"}},
                               invalid_file=False)
    assert table.splitlines()[2] == "ref1\t5\tfiltered-mpileup\tC\tA\tN"
    assert core == CORE_HEADER + ("ref1\t8\tN/A\t8\t6\t75.00\t75.00\n"
                                  "ref2\t8\tN/A\t8\t8\t100.00\t100.00\n"
                                  "all\t16\tN/A\t16\t14\t87.50\t87.50\n")
    # 8: contigs are written in name order whatever the reference's order.
    _, core = snvphyl_case(tmp_path, {"b": "atgc", "a": "gcat"},
                           {"v1": {"b": "AAGT", "a": "GCAT"}, "v2": {"b": "ATGN", "a": "GCAT"}})
    assert [line.split("\t")[0] for line in core.splitlines()] == ["#Reference name", "a",
                                                                    "b", "all"]
    assert core.splitlines()[2] == "b\t4\tN/A\t4\t4\t100.00\t100.00"


def test_filter_stats_reproduces_snvphyl_s_expected_files():
    """filter-stats.pl's own tests: input1 (9623 sites, three contigs) with -a gives
    expected1, without -a expected2; input2 without -a gives expected3. The isolate order
    differs between contigs in expected1, as SNVPhyl sorts each contig's isolates by their
    count of N and -."""
    input1 = gzip.decompress((SNVPHYL / "filter-stats-input1.tsv.gz").read_bytes()).decode()
    input2 = (SNVPHYL / "filter-stats-input2.tsv").read_text()
    assert snv.filter_stats(input1) == (SNVPHYL / "filter-stats-expected1.txt").read_text()
    assert snv.filter_stats(input1, all_invalid=False) == (
        SNVPHYL / "filter-stats-expected2.txt").read_text()
    assert snv.filter_stats(input2, all_invalid=False) == (
        SNVPHYL / "filter-stats-expected3.txt").read_text()


def test_filter_stats_with_every_site_as_the_workflow_runs_it(tmp_path):
    """input2 with -a (SNVPhyl's workflow; no expected file there), worked by hand: the 7
    sites on NC_002127 are all filtered-invalid, and now counted: a - in duplicate-0 at 5
    of them (482, 1282, 1635, 2222, 2538), in variant-0 at 2 (482, 1282), so 5 of 7 sites
    (71.43 %) have an N or -; the summary counts all 20 sites, 13 of them invalid, 2
    coverage, 1 mpileup: 16 filtered (80.00 %), 4 used."""
    text = snv.filter_stats((SNVPHYL / "filter-stats-input2.tsv").read_text())
    first = text.split("\n\n")[0].splitlines()
    assert first[1].split("\t")[:4] == ["gi|10955262|ref|NC_002127.1|", "ALL",
                                        "e_coli_sakai_w_plasmids-duplicate-0",
                                        "e_coli_sakai_w_plasmids-variant-0"]
    assert first[2].split("\t") == ["Total number of N's and -'s", "5", "5", "2", "1", "0"]
    assert first[3].split("\t")[:3] == ["Total percent of N's and -'s", "71.43", "71.43"]
    assert first[4] == "Total number of unfiltered variants in chromosome: 7"
    assert text.endswith("Number of sites used to generate phylogeny: 4\n"
                         "Total number of sites identified: 20\n"
                         "Number of sites filtered: 16\n"
                         "Percentage of sites filtered: 80.00\n"
                         "Coverage filtered: 2\n"
                         "mpileup filtered: 1\n"
                         "Invalid filtered: 13\n")
