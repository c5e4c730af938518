from seqcore.testing.contracts import AnalysisPluginContract


class TestReadcountContract(AnalysisPluginContract):
    analysis_type = "readcount"
    aliases = ("countreads",)
    output_rels = {"outputFile/counts", "outputFile/summary"}
