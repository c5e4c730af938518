"""The French catalogue translates every message the pages mark, and the compiled ``.mo``
files are those of the ``.po`` files beside them (a stale ``.mo`` would show old words)."""

import io
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

ROOT = Path(__file__).resolve().parents[2]
LOCALE = ROOT / "seqcore" / "web" / "locale"


def extracted():
    method_map = [("seqcore/web/**.py", "python"), ("seqcore/web/templates/**.mako", "mako")]
    found = set()
    for _file, _line, message, _comments, _context in extract_from_dir(
            str(ROOT), method_map, keywords={"_": None}, options_map={
                "seqcore/web/templates/**.mako": {"input_encoding": "utf-8"}}):
        found.add(message)
    return found


def test_every_marked_message_has_a_french_translation():
    with open(LOCALE / "fr" / "LC_MESSAGES" / "seqcore.po", "rb") as handle:
        catalog = read_po(handle, locale="fr")
    translated = {message.id for message in catalog if message.id and message.string}
    missing = sorted(extracted() - translated)
    assert not missing, f"untranslated (run pybabel extract/update, docs/web.md): {missing}"


def test_compiled_catalogues_match_their_sources():
    for lang in ("en", "fr"):
        directory = LOCALE / lang / "LC_MESSAGES"
        with open(directory / "seqcore.po", "rb") as handle:
            source = {m.id: m.string for m in read_po(handle, locale=lang) if m.id}
        compiled = {m.id: m.string for m in read_mo(io.BytesIO(
            (directory / "seqcore.mo").read_bytes())) if m.id}
        assert compiled == {key: value for key, value in source.items() if value}, lang
