cwlVersion: v1.0
class: CommandLineTool
doc: >
  Reads the samplesheet, counts each sample's reads and bases in the FASTQ files it names,
  and writes IRIDA Next's iridanext.output.json.gz with per-sample metadata and files.
requirements:
  InitialWorkDirRequirement:
    listing:
      - entryname: readcount.py
        entry: |
          import argparse, csv, gzip, io, json, os, sys, time, urllib.parse, urllib.request
          parser = argparse.ArgumentParser()
          parser.add_argument("samplesheet")
          parser.add_argument("--min-length", type=int, default=0)
          parser.add_argument("--label", default="run")
          parser.add_argument("--mode", default="fast")
          parser.add_argument("--fail", action="store_true")
          parser.add_argument("--sleep", type=float, default=0)
          args = parser.parse_args()
          time.sleep(args.sleep)
          if args.fail:
              sys.stderr.write("readcount: refusing to count: fail was set\n")
              sys.exit(3)
          def records(path):
              # A path, or a URL (an object store's signed URL: no directory is shared).
              if urllib.parse.urlsplit(path).scheme in ("http", "https"):
                  with urllib.request.urlopen(path) as response:
                      raw = response.read()
                  name = urllib.parse.urlsplit(path).path
              else:
                  with open(path, "rb") as handle:
                      raw = handle.read()
                  name = path
              if name.endswith(".gz"):
                  raw = gzip.decompress(raw)
              lines = [line.rstrip("\n") for line in io.StringIO(raw.decode())]
              return [lines[i + 1] for i in range(0, len(lines) - 3, 4)]
          os.mkdir("output")
          manifest = {"files": {"global": [{"path": "summary.txt"}], "samples": {}},
                      "metadata": {"samples": {}}}
          summary = []
          with open(args.samplesheet) as handle:
              for row in csv.DictReader(handle):
                  reads = bases = 0
                  for column in ("fastq_1", "fastq_2"):
                      if row.get(column):
                          for seq in records(row[column]):
                              if len(seq) >= args.min_length:
                                  reads += 1
                                  bases += len(seq)
                  sample = row["sample"]
                  name = sample + ".counts.txt"
                  with open(os.path.join("output", name), "w") as out:
                      out.write("%s\t%d\t%d\n" % (row.get("sample_name", ""), reads, bases))
                  manifest["files"]["samples"][sample] = [{"path": name}]
                  manifest["metadata"]["samples"][sample] = {
                      "readcount": {"reads": reads, "bases": bases},
                      "readcount_organism_seen": row.get("organism") or "none",
                      "readcount_mode": args.mode}
                  summary.append("%s %s %d %d" % (args.label, sample, reads, bases))
          with open(os.path.join("output", "summary.txt"), "w") as out:
              out.write("\n".join(summary) + "\n")
          with gzip.open(os.path.join("output", "iridanext.output.json.gz"), "wt") as out:
              json.dump(manifest, out)
baseCommand: [python3, readcount.py]
inputs:
  input:
    type: File
    inputBinding: {position: 1}
  min_length:
    type: int?
    inputBinding: {prefix: --min-length}
  label:
    type: string?
    inputBinding: {prefix: --label}
  mode:
    type: string?
    inputBinding: {prefix: --mode}
  fail:
    type: boolean?
    inputBinding: {prefix: --fail}
  sleep:
    type: float?
    inputBinding: {prefix: --sleep}
outputs:
  output:
    type: Directory
    outputBinding: {glob: output}
