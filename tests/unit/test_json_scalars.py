"""``seqcore.rest.jsonscalars.scalar`` writes what ``json.dumps`` writes, value by value."""

from __future__ import annotations

import enum
import json

import pytest

from seqcore.rest.jsonscalars import scalar

pytestmark = pytest.mark.database_independent


class Level(enum.IntEnum):
    HIGH = 3


@pytest.mark.parametrize("value", [
    None, True, False, 0, -1, 2**70, Level.HIGH, 1.5, float("inf"), 1e100, "", "plain",
    "Ünïcode ✓ “quoted” \\ back", "line\nbreak\ttab\x00\x1f", "\ud800 lone surrogate",
    "emoji 🧬", "</script>", [1, "a"], {"k": None},
])
def test_scalar_is_json_dumps(value):
    assert scalar(value) == json.dumps(value)
