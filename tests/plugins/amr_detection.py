"""A small AMR detection analysis for the IRIDA StarAMR exporter's test
(``tests/e2e/test_irida_staramr_results.py``): the name and the output rels IRIDA gives
staramr's workflow, so ``irida-staramr-results`` finds it unchanged.

The exporter keeps a project's completed submissions whose analysis has
``analysisType.type == "AMR_DETECTION"`` (seqcore upper-cases the type's name and turns ``-``
into ``_``), and reads the outputs by the rels ``outputFile/staramr-<name>`` (and each
output's ``label``, the file name). The pipeline (:mod:`tests.plugins.amr_detection_pipeline`)
computes staramr-format tables from the reads against a small built-in panel of synthetic
genes: it is no staramr, and its panel names no real gene.
"""

from seqcore.plugin import AnalysisType, OutputRel, hookimpl

NAME = "amr-detection"
# Output key → the file staramr writes (and IRIDA's workflow keeps under the same name).
OUTPUTS = {
    "resfinder": "staramr-resfinder.tsv",
    "detailed_summary": "staramr-detailed-summary.tsv",
    "settings": "staramr-settings.txt",
    "summary": "staramr-summary.tsv",
    "plasmidfinder": "staramr-plasmidfinder.tsv",
    "mlst": "staramr-mlst.tsv",
    "excel": "staramr-excel.xlsx",
}
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"

AMR_DETECTION = AnalysisType(
    name=NAME, label="AMR detection (staramr format, test panel)",
    workflow_id="amr-detection-test-1", version="0.1",
    pipeline="tests.plugins.amr_detection_pipeline:detect", inputs=("pairs",),
    samples="one",
    description="Resistance genes and plasmid replicons of a synthetic test panel, found by "
                "exact 21-mer coverage of the reads, written as staramr's tables.")


@hookimpl
def register_analysis_types():
    return [AMR_DETECTION]


@hookimpl
def register_output_rels():
    return [OutputRel(NAME, f"outputFile/{file_name}", key, file_name,
                      XLSX if file_name.endswith(".xlsx") else "text/plain")
            for key, file_name in OUTPUTS.items()]
