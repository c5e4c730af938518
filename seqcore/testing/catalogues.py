"""Checks of a plugin's own catalogues (``ViewAssets(..., translations=...)``): every message
its views mark has a translation in every language but English, and each compiled ``.mo`` is
its ``.po`` (a stale ``.mo`` shows old words). A plugin's test calls both::

    from seqcore.testing.catalogues import stale_catalogues, untranslated

    def test_the_views_speak_french():
        assert untranslated(PACKAGE, "phylogenomics") == []
        assert stale_catalogues(PACKAGE, "phylogenomics") == []

Messages are found as Babel finds them: ``_("...")`` in the Mako templates under
``templates/``, ``_("...")`` and ``translate("...")`` (``ViewInput.translate``) in the
package's Python files. They need Babel, which the plugin's tests install beside pytest and
WebTest (``docs/writing_plugins.md``).
"""

from __future__ import annotations

import io
from pathlib import Path

from babel.messages.extract import extract_from_dir
from babel.messages.mofile import read_mo
from babel.messages.pofile import read_po

from seqcore.web.i18n import DEFAULT, LANGUAGES

KEYWORDS = {"_": None, "translate": None}


def marked(package: Path) -> set[str]:
    """Every message the package's templates and Python files mark."""
    method_map = [("**.py", "python"), ("templates/**.mako", "mako")]
    return {message if isinstance(message, str) else message[0]
            for _file, _line, message, _comments, _context in extract_from_dir(
                str(package), method_map, keywords=KEYWORDS,
                options_map={"templates/**.mako": {"input_encoding": "utf-8"}})}


def _po(package: Path, domain: str, lang: str) -> Path:
    return package / "locale" / lang / "LC_MESSAGES" / f"{domain}.po"


def untranslated(package: Path, domain: str) -> dict[str, list[str]]:
    """By language (English aside), the marked messages its catalogue leaves untranslated;
    empty when every language translates every message."""
    found = marked(package)
    missing: dict[str, list[str]] = {}
    for lang in LANGUAGES:
        if lang == DEFAULT:
            continue
        with _po(package, domain, lang).open("rb") as handle:
            translated = {m.id for m in read_po(handle, locale=lang) if m.id and m.string}
        if found - translated:
            missing[lang] = sorted(found - translated)
    return missing


def stale_catalogues(package: Path, domain: str) -> list[str]:
    """The languages whose compiled ``.mo`` does not hold what its ``.po`` says."""
    stale = []
    for lang in LANGUAGES:
        source_path = _po(package, domain, lang)
        with source_path.open("rb") as handle:
            source = {m.id: m.string for m in read_po(handle, locale=lang) if m.id}
        compiled_path = source_path.with_suffix(".mo")
        compiled = {m.id: m.string for m in read_mo(io.BytesIO(compiled_path.read_bytes()))
                    if m.id} if compiled_path.is_file() else None
        if compiled != {key: value for key, value in source.items() if value}:
            stale.append(lang)
    return stale


__all__ = ["marked", "stale_catalogues", "untranslated"]
