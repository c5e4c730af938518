"""The consolidation rules and formats on hand-made evidence (no tools needed)."""

import gzip
import re
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
    # reference AA, a CG, b AG: a and reference are the pair furthest apart (2), so they
    # come first, in name order; then b.
    assert (tmp_path / "m.tsv").read_text() == (
        "strain\ta\treference\tb\t\na\t0\t2\t1\t\nreference\t2\t0\t1\t\n"
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


def vcf2snv_case(case):
    """One of SNVPhyl's ``vcf2snv_alignment.pl`` test cases (tests/data/snvphyl/vcf2snv,
    see the README there) as seqcore's inputs: the reference, each isolate's evidence and
    the invalid positions, with the isolates in name order (SNVPhyl's columns).

    Each isolate's record at a position, as SNVPhyl's Streaming.pm reads it (the first
    record there; the status is the first FILTER value): PASS gives its ALT, or the
    reference base for ``.``, a variant when it has an ALT; ``mpileup`` (the callers
    disagree) is N; ``coverage``, or no record, is -. The invalid positions are read as
    InvalidPositions.pm reads them: text after ``#`` dropped, whitespace-separated
    ``chrom start end``, both ends included, either order."""
    calls = [line.split("\t") for line in (case / "calls.tsv").read_text().splitlines()[1:]]
    if (case / "reference.fasta").exists():
        ref = snv.read_fasta(case / "reference.fasta")
    else:  # the 2.9 and 5.4 Mb references: only the bases the records hold are used
        rows = [line.split("\t") for line in (case / "reference.lengths").read_text()
                .splitlines()]
        ref = snv.Reference([r[0] for r in rows], [int(r[1]) for r in rows],
                            np.full(sum(int(r[1]) for r in rows), N, dtype=np.uint8))
        for _, chrom, pos, ref_base, _, _ in calls:
            at = int(ref.offsets[ref.names.index(chrom)]) + int(pos) - 1
            ref.codes[at] = CODE[ref_base.upper()]
    names = sorted({c[0] for c in calls}, key=str.encode)
    evidence = []
    for name in names:
        base = np.full(ref.size, GAP, dtype=np.uint8)
        variant = np.zeros(ref.size, dtype=bool)
        seen = set()
        for isolate, chrom, pos, _, alt, filters in calls:
            at = int(ref.offsets[ref.names.index(chrom)]) + int(pos) - 1
            if isolate != name or at in seen:
                continue
            seen.add(at)
            status = filters.split(";")[0]
            assert status in ("PASS", "mpileup", "coverage"), status
            if status == "PASS":
                base[at] = ref.codes[at] if alt == "." else CODE[alt]
                variant[at] = alt != "."
            elif status == "mpileup":
                base[at] = N
        evidence.append(snv.Evidence(np.full(ref.size, 30, dtype=np.int32), base, variant))
    listed = case / "invalid-positions.tsv"
    mask = invalid_mask(listed.read_text() if listed.exists() else "", ref)
    return ref, names, evidence, mask, listed.exists()


def invalid_mask(text, ref):
    """An invalid-positions file as SNVPhyl's InvalidPositions.pm reads it, as a mask:
    text after ``#`` dropped, whitespace-separated ``chrom start end`` (other lines
    skipped), both ends included, either order; a position listed twice is one position."""
    mask = np.zeros(ref.size, dtype=bool)
    for line in text.splitlines():
        body = line.split("#", 1)[0]
        fields = re.split(r"\s+", body)
        if not body or len(fields) < 3 or not fields[0] or not (
                fields[1].isdigit() and fields[2].isdigit()):
            continue
        lo, hi = sorted((int(fields[1]), int(fields[2])))
        if fields[0] in ref.names:
            start = int(ref.offsets[ref.names.index(fields[0])])
            mask[start + lo - 1:start + hi] = True
    return mask


VCF2SNV = sorted((SNVPHYL / "vcf2snv").iterdir())


def test_vcf2core_and_table_reproduce_every_vcf2snv_alignment_case(tmp_path):
    """Every case of snvphyl-tools' ``t/variant_calls.t`` (``t/input/*``: 26 cases and 7
    ``noN`` variants) and ``t/regression.t`` (``t/regression/1`` and ``2``): from the
    same calls and invalid positions, seqcore's ``vcf2core.tsv`` is SNVPhyl's
    ``expected_core.csv`` and its ``snvTable.tsv`` is ``expected.positions.tsv``, byte for
    byte. Among them: two contigs of which one is wholly invalid (15, 16: NaN), invalid
    files with comments and mixed separators (21-23), an empty invalid file (regression
    1: contigs N/A, ``all`` 0), N from mpileup beside - (24), a 2.9 Mb contig with 11
    records (25, 26), a mpileup record without ALT (regression 2)."""
    assert len(VCF2SNV) == 35
    for case in VCF2SNV:
        ref, names, evidence, mask, invalid_file = vcf2snv_case(case)
        result = snv.consolidate(ref, evidence, mask, None, names)
        snv.write_core(result, ref, tmp_path / "vcf2core.tsv", invalid_file)
        snv.write_table(result, ref, names, tmp_path / "snvTable.tsv")
        assert (tmp_path / "vcf2core.tsv").read_text() == (
            case / "expected_core.csv").read_text(), case.name
        assert (tmp_path / "snvTable.tsv").read_text() == (
            case / "expected.positions.tsv").read_text(), case.name


def test_vcf2core_reproduces_snvphyl_s_published_runs(tmp_path):
    """The vcf2core.tsv of SNVPhyl's two published example runs (snvphyl-galaxy
    docs/examples/data). Listeria: its invalid positions (``filter_density_and_repeats.bed``,
    217 ranges of 406021 positions in all, overlapping: both copies of each repeat and the
    dense regions) are 81553 positions once each, the count SNVPhyl wrote; with its core
    count, seqcore's file is SNVPhyl's byte for byte. E. coli (seven contigs, two wholly
    invalid): from each contig's length, invalid and core counts as SNVPhyl wrote them,
    seqcore writes the same file (name order, NaN, the percentages, the ``all`` row)."""
    runs = SNVPHYL / "runs"
    listeria = (runs / "listeria-monocytogenes-vcf2core.tsv").read_text()
    name, length, _, _, core_count = listeria.splitlines()[1].split("\t")[:5]
    ref = snv.Reference([name], [int(length)], np.zeros(int(length), dtype=np.uint8))
    invalid = invalid_mask((runs / "listeria-monocytogenes-invalid.bed").read_text(), ref)
    assert int(invalid.sum()) == 81553
    core = np.zeros(ref.size, dtype=bool)
    core[np.flatnonzero(~invalid)[:int(core_count)]] = True
    result = snv.Consolidated(np.zeros(0, np.int64), np.zeros(0, str), np.zeros((0, 0)),
                              invalid, core)
    snv.write_core(result, ref, tmp_path / "vcf2core.tsv")
    assert (tmp_path / "vcf2core.tsv").read_text() == listeria

    ecoli = (runs / "escherichia-coli-vcf2core.tsv").read_text()
    rows = [line.split("\t") for line in ecoli.splitlines()[1:-1]]
    rows = [rows[i] for i in (3, 0, 6, 1, 5, 2, 4)]  # not in name order in the reference
    ref = snv.Reference([r[0] for r in rows], [int(r[1]) for r in rows],
                        np.zeros(sum(int(r[1]) for r in rows), dtype=np.uint8))
    invalid = np.zeros(ref.size, dtype=bool)
    core = np.zeros(ref.size, dtype=bool)
    for start, row in zip(ref.offsets, rows, strict=False):
        bad, good = int(row[2]), int(row[4])
        invalid[start:start + bad] = True
        core[start + bad:start + bad + good] = True
    result = snv.Consolidated(np.zeros(0, np.int64), np.zeros(0, str), np.zeros((0, 0)),
                              invalid, core)
    snv.write_core(result, ref, tmp_path / "vcf2core.tsv")
    assert (tmp_path / "vcf2core.tsv").read_text() == ecoli


def test_vcf2core_percentages_divide_then_multiply_as_snvphyl_does(tmp_path):
    """SNVPhyl's print_stats writes ``sprintf("%.2f", core / total * 100)``: 23 core
    positions of 160 is 14.374999999999998 there, so ``14.37`` (``100 * 23 / 160`` would
    be exactly 14.375 and print ``14.38``); 49 of 160 is ``30.63``. Values checked
    against the script's own arithmetic in Perl."""
    ref = snv.Reference(["a", "b"], [160, 170], np.zeros(330, dtype=np.uint8))
    invalid = np.zeros(330, dtype=bool)
    invalid[160:170] = True  # b: 160 valid positions of 170
    core = np.zeros(330, dtype=bool)
    core[:23] = True
    core[170:219] = True
    result = snv.Consolidated(np.zeros(0, np.int64), np.zeros(0, str), np.zeros((2, 0)),
                              invalid, core)
    snv.write_core(result, ref, tmp_path / "vcf2core.tsv")
    assert (tmp_path / "vcf2core.tsv").read_text() == CORE_HEADER + (
        "a\t160\tN/A\t160\t23\t14.37\t14.37\n"
        "b\t170\t10\t160\t49\t30.63\t28.82\n"
        "all\t330\t10\t320\t72\t22.50\t21.82\n")


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


def read_phylip(text):
    """Names and rows of a PHYLIP file, sequential or interleaved (blocks of ten bases);
    the quotes SNVPhyl's alignment writer puts around names are dropped, as its workflow
    does before ``snv_matrix.pl``."""
    lines = [line for line in text.splitlines()[1:] if line.strip()]
    count = int(text.split()[0])
    names, parts = [], [[] for _ in range(count)]
    for index, line in enumerate(lines):
        if index < count:
            name, line = line.split(None, 1)
            names.append(name.strip("'"))
        parts[index % count].append(line.replace(" ", ""))
    return names, np.vstack([np.frombuffer("".join(p).encode(), dtype=np.uint8)
                             for p in parts])


def test_matrix_reproduces_snv_matrix_pl_expected_files():
    """snv_matrix.pl's own tests: 13 alignments (a column with N or Y is left out; the
    order follows the distances: in case 7, a-c and b-c are 3 apart, so a, c, then b;
    in case 5, e differs from every other, so a, e, b, c, d) and the expected matrices,
    byte for byte."""
    cases = sorted((SNVPHYL / "matrix").glob("snv_align-*.phy"))
    assert len(cases) == 13
    for case in cases:
        names, rows = read_phylip(case.read_text())
        expected = (case.parent / f"{case.name}.out").read_text()
        assert snv.snv_matrix(names, rows) == expected, case.name


def test_matrix_reproduces_snvphyl_s_published_runs():
    """The E. coli (10 genomes, 350 sites) and Listeria (32 genomes, 131 sites) example
    results SNVPhyl publishes (snvphyl-galaxy docs/examples/data): snvMatrix.tsv from
    snvAlignment.phy, byte for byte."""
    for run in ("escherichia-coli", "listeria-monocytogenes"):
        names, rows = read_phylip((SNVPHYL / "runs" / f"{run}.phy").read_text())
        assert snv.snv_matrix(names, rows) == (
            SNVPHYL / "runs" / f"{run}-matrix.tsv").read_text(), run


def test_matrix_order_comes_from_the_distances_not_the_input():
    """Whatever order the isolates come in, the same rows and columns; names in Perl's
    ``cmp`` order (bytes: upper case before lower case) break ties."""
    names = ["zeta", "Alpha", "beta", "reference"]
    rows = np.array([list(b"ACGT"), list(b"ACGA"), list(b"TCGA"), list(b"ACGT")],
                    dtype=np.uint8)
    text = snv.snv_matrix(names, rows)
    shuffled = snv.snv_matrix([names[i] for i in (2, 0, 3, 1)], rows[[2, 0, 3, 1]])
    assert text == shuffled
    # beta-reference and beta-zeta are 2 apart: beta, reference, zeta; then Alpha.
    assert text.splitlines()[0] == "strain\tbeta\treference\tzeta\tAlpha\t"
    assert text.splitlines()[4] == "Alpha\t1\t1\t1\t0\t"


def snv_matrix_pl(labels, rows):
    """snv_matrix.pl restated step by step: the sequences joined by name (Perl's ``cmp``),
    read column by column; a column is grouped by its characters as they are (``a`` is
    not ``A``) and skipped with fewer than two or with any character outside
    ``ACTGactg``; every pair of groups adds one to each pair of their names. Then the
    name pairs (a, b), b not before a, are filed under their count (no count: 0), and
    from the highest count down each pair places a, then b, once."""
    seqs = dict(zip(labels, rows, strict=True))
    accessions = sorted(seqs, key=str.encode)
    matrix = {}
    for x in range(len(rows[0]) if rows else 0):
        strain = {}
        for acc in accessions:
            strain.setdefault(seqs[acc][x], []).append(acc)
        if len(strain) < 2 or any(c not in "ACTGactg" for c in strain):
            continue
        chars = list(strain)
        for i, snv1 in enumerate(chars):
            for snv2 in chars[i + 1:]:
                for acc1 in strain[snv1]:
                    for acc2 in strain[snv2]:
                        matrix[acc1, acc2] = matrix.get((acc1, acc2), 0) + 1
                        matrix[acc2, acc1] = matrix.get((acc2, acc1), 0) + 1
    sorter, seen = {}, set()
    for a in accessions:
        for b in accessions:
            if (b, a) not in seen:
                sorter.setdefault(matrix.get((a, b), 0), []).append((a, b))
            seen.add((a, b))
    order = []
    for value in sorted(sorter, reverse=True):
        for pair in sorter[value]:
            for acc in pair:
                if acc not in order:
                    order.append(acc)
    lines = ["strain\t" + "\t".join(order) + "\t\n"]
    lines += [acc + "\t" + "\t".join(str(matrix.get((acc, b), 0)) for b in order) + "\t\n"
              for acc in order]
    return "".join(lines)


def test_matrix_follows_snv_matrix_pl_on_generated_alignments():
    """Random alignments (1-9 names from a pool with case and digits, 1-30 columns; some
    alphabets with N, - and lower case, some with few letters so that distances tie):
    seqcore's snvMatrix.tsv writer gives what snv_matrix.pl's steps give. The same
    generator was run against the Perl script itself (BioPerl's PHYLIP reader stubbed)
    with no difference."""
    rng = np.random.default_rng(41)
    pool = ["reference", "Alpha", "alpha", "b2", "B1", "iso-a", "iso_b", "Z", "10", "9"]
    for _ in range(400):
        labels = list(rng.choice(pool, rng.integers(1, 10), replace=False))
        alphabet = rng.choice(["ACGT", "AC", "ACGTN-", "ACGTacgt", "AAAAC"])
        width = int(rng.integers(1, 31))
        base = rng.choice(list(alphabet), width)
        rows = ["".join(c if rng.random() < 0.6 else rng.choice(list(alphabet)) for c in base)
                for _ in labels]
        letters = np.array([list(r.encode()) for r in rows], dtype=np.uint8)
        assert snv.snv_matrix(labels, letters) == snv_matrix_pl(labels, rows), (labels, rows)


def test_matrix_compares_letters_as_they_are():
    """snv_matrix.pl groups a column by its characters: ``a`` in one genome and ``A`` in
    another is a difference (both are allowed letters), and ``N`` drops the column."""
    rows = np.array([list(b"AcGN"), list(b"aCGA"), list(b"ACGT")], dtype=np.uint8)
    assert snv.snv_matrix(["x", "y", "z"], rows) == (
        "strain\tx\ty\tz\t\n"
        "x\t0\t2\t1\t\n"
        "y\t2\t0\t1\t\n"
        "z\t1\t1\t0\t\n")


# -- vcf2snv_alignment.pl's walk, restated, on generated evidence ---------------------------

def invalid_positions(lines):
    """SNVPhyl's InvalidPositions: ``chrom start end`` lines (``#`` starts a comment), both
    ends included, in either order; each position counted once per contig."""
    found = {}
    for line in lines:
        body = line.split("#", 1)[0].split()
        if len(body) < 3:
            continue
        lo, hi = sorted((int(body[1]), int(body[2])))
        found.setdefault(body[0], set()).update(range(lo, hi + 1))
    return found


def snvphyl_walk(ref, names, evidence, invalid):
    """vcf2snv_alignment.pl position by position, on each isolate's record there: PASS with
    its base (a variant when it differs), ``mpileup`` (SNVPhyl's callers disagree: always
    a SNV call of mpileup's) or ``coverage``; isolates in name order. Returns the listed
    rows (chrom, 1-based position, status) and each contig's core count."""
    columns = sorted(range(len(names)), key=lambda i: names[i].encode())
    rows, core = [], {}
    for chrom in sorted(ref.names, key=str.encode):
        c = ref.names.index(chrom)
        core[chrom] = 0
        for pos in range(1, ref.lengths[c] + 1):
            at = int(ref.offsets[c]) + pos - 1
            status = ["PASS" if evidence[i].base[at] < N else
                      "mpileup" if evidence[i].base[at] == N else "coverage" for i in columns]
            variant = [bool(evidence[i].variant[at]) for i in columns]
            is_invalid = pos in invalid.get(chrom, ())
            if any(variant) or "mpileup" in status:
                if all(s == "PASS" for s in status):
                    rows.append((chrom, pos, "filtered-invalid" if is_invalid else "valid"))
                    core[chrom] += not is_invalid
                elif any(v and s == "PASS" for v, s in zip(variant, status, strict=True)):
                    first = next(s for s in status if s != "PASS")
                    rows.append((chrom, pos, "filtered-invalid" if is_invalid
                                 else f"filtered-{first}"))
                    core[chrom] += not is_invalid and "coverage" not in status
            elif all(s == "PASS" for s in status) and not is_invalid:
                core[chrom] += 1
    return rows, core


def snvphyl_core_rows(ref, core, invalid):
    """print_stats: per contig in name order, then ``all``."""
    def pct(part, whole):
        return "NaN" if whole == 0 else f"{part / whole * 100:.2f}"

    lines, total_length, total_invalid, total_core = [], 0, 0, 0
    for chrom in sorted(ref.names, key=str.encode):
        length = ref.lengths[ref.names.index(chrom)]
        bad = len(invalid[chrom]) if chrom in invalid else None
        valid = length - (bad or 0)
        lines.append("\t".join(map(str, [chrom, length, "N/A" if bad is None else bad, valid,
                                          core[chrom], pct(core[chrom], valid),
                                          pct(core[chrom], length)])))
        total_length, total_invalid = total_length + length, total_invalid + (bad or 0)
        total_core += core[chrom]
    valid = total_length - total_invalid
    lines.append("\t".join(map(str, ["all", total_length, total_invalid, valid, total_core,
                                      pct(total_core, valid), pct(total_core, total_length)])))
    return CORE_HEADER + "".join(line + "\n" for line in lines)


def test_table_and_vcf2core_follow_snvphyl_s_walk_on_generated_evidence(tmp_path):
    """Random evidence for five isolates on three contigs (variants, N and - cells, dense
    stretches) with a self-alignment of the reference: seqcore's statuses, snvTable.tsv
    order and vcf2core.tsv equal what vcf2snv_alignment.pl's walk gives, with the invalid
    positions read as SNVPhyl reads its file (the repeats find-repeats.pl keeps, then
    filter_snv_density's regions). An isolate's N beside another's - takes the status of
    whichever comes first by name."""
    rng = np.random.default_rng(41)
    names = ["iso-b", "Iso-c", "iso-a", "reference_1", "b2"]
    ref = snv.Reference(["ctgB", "ctgA", "ctg_c"], [900, 700, 400],
                        rng.integers(0, 4, 2000).astype(np.uint8))
    evidence = []
    for _ in names:
        base = ref.codes.copy()
        variant = np.zeros(ref.size, dtype=bool)
        sites = rng.choice(ref.size, 15, replace=False)
        base[sites] = (base[sites] + rng.integers(1, 4, sites.size)) % 4
        variant[sites] = True
        base[rng.choice(ref.size, 150, replace=False)] = N
        base[rng.choice(ref.size, 150, replace=False)] = GAP
        variant &= base < N
        evidence.append(snv.Evidence(np.full(ref.size, 30, np.int32), base, variant))
    # ctgA:650: iso-a's variant, Iso-c (first by name) N, iso-b (first given) -.
    at = 900 + 649
    for isolate, cell in ((0, GAP), (1, N), (3, int(ref.codes[at])), (4, int(ref.codes[at]))):
        evidence[isolate].base[at], evidence[isolate].variant[at] = cell, False
    evidence[2].base[at], evidence[2].variant[at] = (ref.codes[at] + 1) % 4, True
    coords = "\n".join([
        "1\t900\t1\t900\t900\t900\t100.00\tctgB\tctgB",      # the contig onto itself
        "101\t300\t1\t200\t200\t200\t95.00\tctgB\tctgA",     # a repeat on two contigs
        "500\t650\t500\t700\t151\t201\t91.00\tctgB\tctgB",   # same start: SNVPhyl skips it
        "10\t160\t390\t240\t151\t151\t92.00\tctg_c\tctg_c",  # reversed copy on one contig
    ])
    repeats = snv.parse_self_alignment(coords, ref)
    result = snv.consolidate(ref, evidence, repeats, (50, 3), names)
    snv.write_table(result, ref, names, tmp_path / "snvTable.tsv")
    snv.write_core(result, ref, tmp_path / "vcf2core.tsv")

    # find-repeats.pl's output, then filter_snv_density's regions per isolate (its queue:
    # drop the head while last - first > window; dense at >= threshold SNVs).
    kept = [line.split("\t") for line in coords.splitlines()]
    lines = [f"{f[7]}\t{f[0]}\t{f[1]}\n{f[8]}\t{f[2]}\t{f[3]}" for f in kept
             if not (f[7] == f[8] and (f[0] == f[2] or f[1] == f[3]))]
    for e in evidence:
        for chrom in ref.names:
            c = ref.names.index(chrom)
            start = int(ref.offsets[c])
            snvs = [int(p) - start + 1 for p in np.flatnonzero(e.variant)
                    if start <= p < start + ref.lengths[c]]
            queue, region = [], None
            for p in snvs:
                queue.append(p)
                while queue[-1] - queue[0] > 50:
                    if region:
                        lines.append(f"{chrom}\t{region[0]}\t{region[1]}")
                        region = None
                    queue.pop(0)
                if len(queue) >= 3:
                    region = (queue[0], queue[-1])
                elif region:
                    lines.append(f"{chrom}\t{region[0]}\t{region[1]}")
                    region = None
            if region:
                lines.append(f"{chrom}\t{region[0]}\t{region[1]}")
    lines.append("#Calculation and writing of high density regions has completed.")
    invalid = invalid_positions("\n".join(lines).splitlines())
    rows, core = snvphyl_walk(ref, names, evidence, invalid)

    table = [line.split("\t") for line in (tmp_path / "snvTable.tsv").read_text().splitlines()]
    ours = sorted((r[0], int(r[1]), r[2]) for r in table[1:])
    assert ours == sorted(rows)
    assert ("ctgA", 650, "filtered-mpileup") in rows
    statuses = {r[2] for r in rows}
    assert statuses == {"valid", "filtered-invalid", "filtered-coverage", "filtered-mpileup"}
    assert (tmp_path / "vcf2core.tsv").read_text() == snvphyl_core_rows(ref, core, invalid)
