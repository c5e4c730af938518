"""The baseline pipeline: read counts of each input beside the baseline's (from ctx.data)."""


def _reads(path):
    with open(path) as fh:
        return sum(1 for _ in fh) // 4


def compare(ctx):
    baseline = sum(_reads(path) for path in ctx.data["files"])
    rows = [f"baseline\t{ctx.data['name']}\t{baseline}"]
    rows += [f"input\t{item.sample_name}\t{sum(_reads(p) for p in item.files)}"
             for item in ctx.inputs]
    out = ctx.output_path("report.tsv")
    out.write_text("\n".join(rows) + "\n")
    return {"report": out}
