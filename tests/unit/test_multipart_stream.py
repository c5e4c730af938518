"""The multipart parser finds every part and byte whatever the block boundaries are, including
data that looks like the start of a delimiter, and refuses malformed framing."""

from __future__ import annotations

import os
import random

import pytest

from seqcore.rest.multipart_stream import MultipartError, MultipartStream, find

pytestmark = pytest.mark.database_independent

BOUNDARY = b"B0undary"


def body(parts: list[tuple[bytes, bytes]], preamble: bytes = b"", epilogue: bytes = b"",
         padding: bytes = b"") -> bytes:
    out = preamble
    for headers, data in parts:
        out += b"--" + BOUNDARY + padding + b"\r\n" + headers + b"\r\n" + data + b"\r\n"
    return out + b"--" + BOUNDARY + b"--\r\n" + epilogue


def parse(raw: bytes, sizes: list[int] | None = None) -> list[tuple[dict, bytes]]:
    parts: list[tuple[dict, bytearray]] = []
    ends: list[int] = []

    def on_part(headers: dict) -> None:
        assert len(ends) == len(parts)  # the previous part was ended first
        parts.append((headers, bytearray()))

    parser = MultipartStream(BOUNDARY, on_part, lambda chunk: parts[-1][1].extend(chunk),
                             lambda: ends.append(len(parts)))
    position, k = 0, 0
    while position < len(raw):
        size = sizes[k % len(sizes)] if sizes else len(raw)
        parser.feed(raw[position:position + size])
        position += size
        k += 1
    parser.finish()
    assert ends == list(range(1, len(parts) + 1))
    return [(h, bytes(d)) for h, d in parts]


def tricky_data(rng: random.Random, size: int) -> bytes:
    """Random bytes salted with every proper prefix of the delimiter (never completed: a
    prefix is followed by a byte that is not the delimiter's next)."""
    delimiter = b"\r\n--" + BOUNDARY
    pieces = []
    total = 0  # kept as it grows: summing the pieces on every turn was quadratic
    while total < size:
        pieces.append(rng.randbytes(rng.randrange(0, 40)).replace(b"\r", b"."))
        pieces.append(delimiter[:rng.randrange(1, len(delimiter))] + b".")
        total += len(pieces[-2]) + len(pieces[-1])
    return b"".join(pieces)[:size]


FILE_HEADERS = (b'Content-Disposition: form-data; name="file1"; filename="r1.fastq"\r\n'
                b"Content-Type: application/octet-stream\r\n")
PARAM_HEADERS = b'Content-Disposition: form-data; name="parameters1"\r\n'


@pytest.mark.parametrize("sizes", [None, [1], [2, 3], [7, 13, 1], [4095, 4097, 11],
                                   [65536], [300_000]])
def test_every_split_gives_the_same_parts(sizes):
    rng = random.Random(sizes[0] if sizes else 0)
    file_data = tricky_data(rng, 200_000)
    raw = body([(FILE_HEADERS, file_data), (PARAM_HEADERS, b'{"a": 1}'),
                (b'Content-Disposition: form-data; name="empty"\r\n', b"")],
               preamble=b"ignored preamble\r\n", epilogue=b"ignored epilogue")
    parts = parse(raw, sizes)
    assert [p[1] for p in parts] == [file_data, b'{"a": 1}', b""]
    assert parts[0][0] == {
        b"content-disposition": b'form-data; name="file1"; filename="r1.fastq"',
        b"content-type": b"application/octet-stream"}


def test_random_splits_of_random_bodies():
    rng = random.Random(7)
    for _ in range(200):
        datas = [tricky_data(rng, rng.randrange(0, 3000)) for _ in range(rng.randrange(1, 4))]
        raw = body([(PARAM_HEADERS, d) for d in datas])
        sizes = [rng.randrange(1, 64) for _ in range(5)]
        assert [p[1] for p in parse(raw, sizes)] == datas


def test_data_that_ends_a_block_with_a_delimiter_start():
    data = os.urandom(5000) + b"\r\n--B0und"
    raw = body([(PARAM_HEADERS, data)])
    assert parse(raw, [len(raw) - len(b"ary\r\n--B0undary--\r\n") - 2])[0][1] == data


def test_transport_padding_and_headerless_parts():
    raw = body([(b"", b"no headers"), (PARAM_HEADERS, b"x")], padding=b" \t ")
    assert parse(raw) == [({}, b"no headers"), ({b"content-disposition":
                                                   b'form-data; name="parameters1"'}, b"x")]


@pytest.mark.parametrize("raw, message", [
    (b"--B0undary\r\nno colon here\r\n\r\ndata\r\n--B0undary--", "Name: value"),
    (b"--B0undary junk\r\n\r\ndata\r\n--B0undary--", "unexpected bytes"),
    (b"--B0undary\r\n" + b"X-Long: " + b"a" * 20_000 + b"\r\n\r\n", "exceed"),
])
def test_malformed_framing(raw, message):
    parser = MultipartStream(BOUNDARY, lambda h: None, lambda c: None, lambda: None)
    with pytest.raises(MultipartError, match=message):
        parser.feed(raw)


@pytest.mark.parametrize("cut", [0, 5, 14, 60, 80])
def test_a_truncated_body_is_not_ended(cut):
    raw = body([(PARAM_HEADERS, b"0123456789" * 3)])
    parser = MultipartStream(BOUNDARY, lambda h: None, lambda c: None, lambda: None)
    parser.feed(raw[:len(raw) - 1 - cut] if cut else raw[:-4])
    assert not parser.ended
    with pytest.raises(MultipartError, match="before its closing boundary"):
        parser.finish()


def test_find_agrees_with_bytes_find():
    rng = random.Random(3)
    haystack = rng.randbytes(1 << 20)
    for needle in (b"\r\n--B0undary", haystack[777_000:777_012], haystack[-12:],
                   haystack[5000:5036]):
        for start in (0, 4096, 777_000, 777_001, len(haystack) - 12):
            assert find(haystack, needle, start) == haystack.find(needle, start)
