"""Any name a client can upload a file under comes back exactly, in JSON and in a
``Content-Disposition`` that names it the RFC 6266 way and adds nothing else."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

from seqcore.files.disposition import ascii_fallback, content_disposition
from seqcore.models.sequencing import SequenceFile, SequencingObject
from seqcore.testing.uploads import fastq, multipart

NAMES = [
    "plain_R1.fastq",
    "Proben_Grüße_R1.fastq",                  # Latin-1
    "样本-甲_R1.fastq",                          # beyond Latin-1
    "genome_🧬_R1.fastq",                        # four UTF-8 bytes
    'quote"; filename="evil.sh',               # a quote that would add a parameter
    "semi;colon, comma=equals.fastq",
    "percent%20and%22escapes.fastq",
    "tab\there.fastq",
    "bell\x07and\x1bescape.fastq",
    "line\nfeed.fastq",                        # a raw LF inside the quoted file name
    "carriage\rreturn.fastq",
    "apostrophe's name (1).fastq",
]


TOKEN = r"[!#$%&'*+.^_`|~0-9A-Za-z-]+"
QUOTED = r'"(?:[^"\\\x00-\x1f\x7f]|\\[ -~])*"'
PARAMETER = re.compile(rf";[ \t]*({TOKEN})=({TOKEN}|{QUOTED})[ \t]*")


def parse_disposition(value: str) -> tuple[str, list[tuple[str, str]]]:
    """``(type, [(name, value), ...])`` of a Content-Disposition, read by RFC 6266's grammar
    (quoted values unescaped, ``filename*`` decoded); fails on anything outside it."""
    head = re.match(rf"[ \t]*({TOKEN})[ \t]*", value)
    assert head, value
    position, params = head.end(), []
    while position < len(value):
        found = PARAMETER.match(value, position)
        assert found, f"not a parameter at {value[position:]!r}"
        name, raw = found.group(1).lower(), found.group(2)
        if raw.startswith('"'):
            raw = re.sub(r"\\(.)", r"\1", raw[1:-1])
        if name.endswith("*"):
            charset, _, encoded = raw.partition("''")
            assert charset.upper() == "UTF-8", raw
            raw = unquote(encoded, encoding="utf-8", errors="strict")
        params.append((name, raw))
        position = found.end()
    return head.group(1).lower(), params


@pytest.fixture
def world(factories):
    owner = factories.user(username="owner")
    project = factories.project(owner=owner)
    sample = factories.sample(project, name="isolate-1")
    return sample, factories.headers(owner)


def upload(testapp, sample, headers, name, content, status=201):
    body, content_type = multipart([("file", name, content, None)])
    return testapp.post(f"/api/samples/{sample.id}/unpaired", body,
                        headers={**headers, "Content-Type": content_type}, status=status)


@pytest.mark.parametrize("name", NAMES, ids=range(len(NAMES)))
def test_any_name_is_stored_and_downloaded_exactly(testapp, world, app_config, name):
    sample, headers = world
    reads = fastq(seed=len(name))
    res = upload(testapp, sample, headers, name, reads)
    assert res.json["resource"]["fileName"] == name
    location = res.headers["Location"]
    assert testapp.get(location, headers=headers).json["resource"]["fileName"] == name

    got = testapp.get(location, headers={**headers, "Accept": "application/fastq"})
    assert got.body == reads
    value = got.headers["Content-Disposition"]
    assert "\r" not in value and "\n" not in value
    value.encode("latin-1")  # a header WSGI can send
    kind, params = parse_disposition(value)
    assert kind == "attachment"
    assert [key for key, _ in params] == ["filename", "filename*"]
    fallback, exact = (v for _, v in params)
    assert exact == name
    assert fallback.isascii() and fallback.isprintable() and '"' not in fallback

    # On disk the file sits under a name with no control characters.
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    (stored,) = [p for p in root.rglob("*") if p.is_file()]
    assert stored.read_bytes() == reads
    assert all(ord(c) >= 32 for c in stored.name)


def test_names_of_a_pair_come_back_on_both_files(testapp, world):
    sample, headers = world
    names = ('x"y\nz_R1.fastq', 'x"y\nz_R2.fastq')
    body, content_type = multipart([("file1", names[0], fastq(seed=1), None),
                                    ("file2", names[1], fastq(seed=2), None)])
    res = testapp.post(f"/api/samples/{sample.id}/pairs", body,
                       headers={**headers, "Content-Type": content_type})
    pair = res.json["resource"]
    assert pair["forwardSequenceFile"]["fileName"] == names[0]
    assert pair["reverseSequenceFile"]["fileName"] == names[1]
    href = pair["reverseSequenceFile"]["links"][0]["href"]
    got = testapp.get(href, headers={**headers, "Accept": "application/fastq"})
    assert parse_disposition(got.headers["Content-Disposition"])[1][1] == ("filename*", names[1])


def test_a_name_of_255_bytes_is_stored_and_one_of_256_is_refused(testapp, world, db,
                                                                   app_config):
    sample, headers = world
    longest = "é" * 123 + "_R1.fastqx"  # 246 + 10 = 256 bytes: too long
    assert len(longest.encode()) == 256
    res = upload(testapp, sample, headers, longest, fastq(), status=400)
    assert "longer than 255 bytes" in res.json["message"]
    assert db.query(SequencingObject).count() == 0
    root = Path(app_config.get_settings()["seqcore.storage.path"])
    assert [p for p in root.rglob("*") if p.is_file() or p.name != "tmp"] == []

    fits = "é" * 123 + "_R1.fastq"  # 246 + 9 = 255 bytes
    assert len(fits.encode()) == 255
    res = upload(testapp, sample, headers, fits, fastq())
    assert res.json["resource"]["fileName"] == fits
    got = testapp.get(res.headers["Location"], headers={**headers, "Accept": "application/fastq"})
    assert parse_disposition(got.headers["Content-Disposition"])[1][1] == ("filename*", fits)
    assert db.query(SequenceFile).one().file_name == fits


def test_a_long_path_is_cut_to_its_name_before_the_limit_applies(testapp, world):
    sample, headers = world
    name = "/".join(["d" * 200] * 5) + "/isolate_R1.fastq"
    res = upload(testapp, sample, headers, name, fastq())
    assert res.json["resource"]["fileName"] == "isolate_R1.fastq"


def test_the_header_value_for_names_of_every_kind():
    assert content_disposition("a.fastq") == (
        "attachment; filename=\"a.fastq\"; filename*=UTF-8''a.fastq")
    assert content_disposition("ü b.fq") == (
        "attachment; filename=\"u b.fq\"; filename*=UTF-8''%C3%BC%20b.fq")
    assert ascii_fallback('a"b\\c%d\r\ne') == "a_b_c_d__e"
    assert ascii_fallback("样本") == "__"
    evil = 'x"; filename*=UTF-8\'\'evil; a="\r\nSet-Cookie: y'
    value = content_disposition(evil)
    assert value.isascii() and value.isprintable()
    assert parse_disposition(value) == ("attachment", [
        ("filename", "x_; filename*=UTF-8''evil; a=___Set-Cookie: y"), ("filename*", evil)])
