"""Every hook is documented with its exact signature."""

import inspect
from pathlib import Path

import pytest

from seqcore.framework import hookspecs

pytestmark = pytest.mark.database_independent

DOC = Path(__file__).resolve().parents[2] / "docs" / "plugin_hooks.md"
SPECS = [fn for _, fn in inspect.getmembers(hookspecs, inspect.isfunction)
         if hasattr(fn, "seqcore_spec")]


def test_there_are_hooks():
    assert len(SPECS) >= 19


@pytest.mark.parametrize("spec", SPECS, ids=lambda fn: fn.__name__)
def test_hook_documented_with_signature(spec):
    signature = f"{spec.__name__}({', '.join(inspect.signature(spec).parameters)})"
    assert f"## `{signature}`" in DOC.read_text()


@pytest.mark.parametrize("spec", SPECS, ids=lambda fn: fn.__name__)
def test_hook_has_docstring_saying_what_it_returns(spec):
    assert spec.__doc__ and len(spec.__doc__.strip()) > 40
