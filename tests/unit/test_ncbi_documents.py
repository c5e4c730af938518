"""``submission.xml`` against the Submission Portal's documented element tree, NCBI's
``report.xml`` as NCBI writes it, and the vocabulary file."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from datetime import date

import pytest

from seqcore.models.ncbi import ExportUploadState
from seqcore.ncbi.documents import (
    Contact,
    ReportError,
    RunDocument,
    SampleDocument,
    SubmissionDocument,
    latest_report,
    parse_report,
    submission_xml,
)
from seqcore.ncbi.schema import check_submission
from seqcore.ncbi.vocabulary import Vocabulary, vocabulary_setting

pytestmark = pytest.mark.database_independent

LIBRARY = {"instrument_model": "Illumina MiSeq", "library_name": "L1",
           "library_strategy": "WGS", "library_source": "GENOMIC",
           "library_selection": "RANDOM", "library_construction_protocol": ""}


def document(*samples, release=date(2027, 1, 31)):
    return SubmissionDocument(
        bio_project="PRJNA1", organization="Lab & Co <North>",
        contact=Contact("a@lab.example", "Ada", "Lovelace"), namespace="LAB",
        package="Pathogen.env.1.0", release_date=release, comment="test", samples=samples)


def sample(spuid="S1", bio_sample=None, runs=None):
    return SampleDocument(
        spuid=spuid, title="sample 1", bio_sample=bio_sample, organism="Listeria monocytogenes",
        attributes=[("strain", "L-1"), ("isolation_source", 'cheese "brie"')],
        library=LIBRARY,
        runs=runs or [RunDocument(f"{spuid}-r1", "PAIRED", ["1.fastq.gz", "2.fastq.gz"])])


def test_a_new_biosample_and_its_run_follow_the_tree():
    root = ET.fromstring(submission_xml(document(sample())))
    assert check_submission(root) == []
    assert [child.tag for child in root] == ["Description", "Action", "Action"]
    assert root.find("Description/Organization/Name").text == "Lab & Co <North>"
    assert root.find("Description/Hold").get("release_date") == "2027-01-31"
    add_data = root.find("Action/AddData")
    assert add_data.get("target_db") == "BioSample"
    biosample = add_data.find("Data/XmlContent/BioSample")
    assert [c.tag for c in biosample] == ["SampleId", "Descriptor", "Organism", "BioProject",
                                          "Package", "Attributes"]
    assert biosample.find("Attributes/Attribute[@attribute_name='isolation_source']").text \
        == 'cheese "brie"'
    assert add_data.find("Identifier/SPUID").get("spuid_namespace") == "LAB"
    add_files = root.find("Action/AddFiles")
    assert [f.get("file_path") for f in add_files.findall("File")] == ["1.fastq.gz",
                                                                      "2.fastq.gz"]
    assert {a.get("name") for a in add_files.findall("Attribute")} == {
        "instrument_model", "library_name", "library_strategy", "library_source",
        "library_selection", "library_layout"}  # an empty protocol is left out
    ref = add_files.find("AttributeRefId[@name='BioSample']/RefId/SPUID")
    assert (ref.text, ref.get("spuid_namespace")) == ("S1", "LAB")
    assert add_files.find("Identifier/SPUID").text == "S1-r1"


def test_an_existing_biosample_is_referenced_by_accession_and_not_created():
    root = ET.fromstring(submission_xml(document(sample(bio_sample="SAMN5"), release=None)))
    assert check_submission(root) == []
    assert root.find("Action/AddData") is None
    assert root.find("Description/Hold") is None
    assert root.find("Action/AddFiles/AttributeRefId[@name='BioSample']/RefId/PrimaryId"
                     ).text == "SAMN5"


@pytest.mark.parametrize(("mutate", "expected"), [
    (lambda r: r.remove(r.find("Description")), "needs at least 1 <Description>"),
    (lambda r: r.find("Description").remove(r.find("Description/Organization")),
     "needs at least 1 <Organization>"),
    (lambda r: r.find("Description/Organization").set("role", "boss"),
     "attribute role='boss' is not one of owner, participant"),
    (lambda r: r.find("Description/Hold").set("release_date", "31/01/2027"),
     "release_date='31/01/2027' is malformed"),
    (lambda r: r.find("Action/AddData/Data/XmlContent/BioSample").remove(
        r.find("Action/AddData/Data/XmlContent/BioSample/Package")),
     "needs at least 1 <Package>"),
    (lambda r: r.find("Action/AddFiles").remove(r.find("Action/AddFiles/Identifier")),
     "needs at least 1 <Identifier>"),
    (lambda r: r.find("Action/AddFiles").remove(
        r.find("Action/AddFiles/Attribute[@name='library_layout']")),
     "SRA attribute 'library_layout' is missing"),
    (lambda r: r.find("Action/AddFiles").remove(r.find("Action/AddFiles/File")),
     "a PAIRED run sends 2 files, not 1"),
    (lambda r: r.find("Action/AddFiles/File").set("extra", "1"),
     "attribute 'extra' is not allowed here"),
    (lambda r: ET.SubElement(r.find("Action"), "AddFiles", target_db="SRA"),
     "must hold exactly one of"),
    (lambda r: r.find("Action/AddData/Identifier/SPUID").attrib.clear(),
     "attribute 'spuid_namespace' is required"),
    (lambda r: setattr(r.find("Action/AddData/Data/XmlContent/BioSample/Organism/"
                              "OrganismName"), "text", " "), "must not be empty"),
    (lambda r: r.insert(0, ET.Element("Action")), "<Description> is not allowed here"),
])
def test_the_checker_finds_departures_from_the_tree(mutate, expected):
    root = ET.fromstring(submission_xml(document(sample())))
    mutate(root)
    problems = check_submission(root)
    assert any(expected in problem for problem in problems), problems


REPORT = b"""<?xml version='1.0' encoding='utf-8'?>
<SubmissionStatus status="processing" submission_id="SUB815302">
  <Action status="processed-ok" action_id="SUB815302-inxt_sam_abc-n1" target_db="BioSample">
    <Response status="processed-ok">
      <Message severity="info">Successfully loaded</Message>
      <Object target_db="BioSample" object_id="2331553" status="new" accession="SAMN02331553"
              spuid="INXT_SAM_ABC-n1" spuid_namespace="LAB"/>
    </Response>
  </Action>
  <Action action_id="SUB815302-inxt_sam_abc-n1-r7" target_db="SRA" status="processing">
    <Response status="processing"/>
  </Action>
  <Action action_id="SUB815302-other" target_db="SRA" status="processed-error">
    <Response status="processed-error"><Message severity="error">Bad
      file</Message></Response>
  </Action>
</SubmissionStatus>
"""


def test_a_report_as_ncbi_writes_it():
    report = parse_report(REPORT)
    assert report.status is ExportUploadState.PROCESSING
    assert report.submission_id == "SUB815302"
    biosample = report.action_for("INXT_SAM_ABC-n1", "BioSample")
    assert (biosample.status, biosample.accession) == (ExportUploadState.PROCESSED_OK,
                                                       "SAMN02331553")
    run = report.action_for("INXT_SAM_ABC-n1-r7", "SRA")  # by action_id, case ignored
    assert (run.status, run.accession) == (ExportUploadState.PROCESSING, None)
    assert report.action_for("INXT_SAM_ABC-n1", "SRA") is None
    assert report.action_for("other", "SRA").messages == ("Bad file",)


@pytest.mark.parametrize("data", [b"<SubmissionStatus", b"<Other status='x'/>",
                                  b"<SubmissionStatus/>"])
def test_unreadable_reports(data):
    with pytest.raises(ReportError):
        parse_report(data)


def test_an_unknown_status_is_unknown():
    assert parse_report(b'<SubmissionStatus status="pondering"/>').status is \
        ExportUploadState.UNKNOWN


def test_the_latest_report():
    assert latest_report(["submission.xml", "report.1.xml", "report.xml"]) == "report.xml"
    assert latest_report(["report.2.xml", "report.10.xml", "report.x.xml"]) == "report.10.xml"
    assert latest_report(["submission.xml", "submit.ready"]) is None


def test_the_vocabulary_file_replaces_lists_one_by_one(tmp_path):
    path = tmp_path / "vocabulary.json"
    path.write_text(json.dumps({"instrumentModels": {"ILLUMINA": ["NovaSeq X"]},
                                "packages": {"Microbe.1.0": {"required": ["organism"]}}}))
    vocabulary = vocabulary_setting(str(path))
    assert vocabulary.models == ("NovaSeq X",)
    assert vocabulary.library_strategies == Vocabulary().library_strategies
    assert vocabulary.packages["Microbe.1.0"].required == ("organism",)
    assert vocabulary_setting("").origin == "built in"


@pytest.mark.parametrize(("content", "message"), [
    ("{", "is not JSON"),
    ("[]", "must hold a JSON object"),
    ('{"colours": []}', "unknown key(s) colours"),
    ('{"libraryStrategies": []}', "'libraryStrategies' must be a non-empty list"),
    ('{"libraryStrategies": [" WGS"]}', "without surrounding spaces"),
    ('{"packages": {"P": {"required": ["a"], "optional": []}}}', "package 'P' must be"),
])
def test_a_bad_vocabulary_file_is_refused(tmp_path, content, message):
    path = tmp_path / "vocabulary.json"
    path.write_text(content)
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        vocabulary_setting(str(path))
    with pytest.raises(ValueError, match="cannot read"):
        vocabulary_setting(str(tmp_path / "missing.json"))
