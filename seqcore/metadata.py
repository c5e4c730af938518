"""Sample metadata: the registry of value types and the rules every write obeys."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyramid.config import Configurator

from seqcore.contrib import MetadataType

TEXT = MetadataType("text", "Free text (the default).")
MAX_KEY = 255


def add_metadata_type(config: Configurator, metadata_type: MetadataType) -> None:
    def register() -> None:
        config.registry.setdefault("seqcore.metadata_types", {})[metadata_type.name] = (
            metadata_type)

    config.action(("seqcore.metadata_type", metadata_type.name), register)


def parse_metadata(body: Mapping[str, Any], types: Mapping[str, MetadataType],
                   allow_delete: bool) -> tuple[dict[str, tuple[str, str]], set[str],
                                                dict[str, list[str]]]:
    """Check a ``{field: {"value": ..., "type": ...}}`` body.

    Returns the entries to write (``field -> (value, type)``), the fields to delete (a
    ``null`` or empty value, when ``allow_delete``), and the problems by field. Values are
    strings; numbers are accepted and stored as their text.
    """
    entries: dict[str, tuple[str, str]] = {}
    deletions: set[str] = set()
    problems: dict[str, list[str]] = {}
    seen: dict[str, str] = {}  # field name -> the key that named it
    for raw_key, item in body.items():
        key = raw_key.strip()
        if not key:
            problems.setdefault(raw_key, []).append("Metadata field names must not be empty.")
            continue
        if key in seen:
            # " a" and "a " name one field: which to write (or whether to delete it) would
            # depend on key order, so the write is refused.
            problems.setdefault(raw_key, []).append(
                f"Names the same field as {seen[key]!r} (field names are trimmed); send each "
                "field once.")
            continue
        seen[key] = raw_key
        if len(key) > MAX_KEY:
            problems.setdefault(raw_key, []).append(
                f"Metadata field names must be at most {MAX_KEY} characters long.")
            continue
        if not isinstance(item, Mapping):
            problems.setdefault(raw_key, []).append(
                'Each metadata entry must be an object {"value": "...", "type": "text"}.')
            continue
        unknown = set(item) - {"value", "type"}
        if unknown:
            problems.setdefault(raw_key, []).append(
                f"Unknown keys in a metadata entry: {', '.join(sorted(unknown))}; "
                "only 'value' and 'type' are accepted.")
            continue
        value = item.get("value")
        kind = item.get("type", "text")
        if not isinstance(kind, str) or kind not in types:
            problems.setdefault(raw_key, []).append(
                f"Unknown metadata type {kind!r}; known types: {', '.join(sorted(types))}.")
            continue
        if value is None or value == "":
            if allow_delete:
                deletions.add(key)
            continue
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            problems.setdefault(raw_key, []).append(
                "Metadata values must be strings (numbers are accepted as text), not objects, "
                "lists or booleans.")
            continue
        text = value if isinstance(value, str) else repr(value)
        error = types[kind].validate(text)
        if error:
            problems.setdefault(raw_key, []).append(error)
            continue
        entries[key] = (text, kind)
    return entries, deletions, problems


def includeme(config: Configurator) -> None:
    config.add_directive("add_metadata_type", add_metadata_type)
