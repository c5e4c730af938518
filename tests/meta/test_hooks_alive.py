"""Every hookspec has a caller in the core: a hook nobody calls is a promise to plugin
authors that silently does nothing."""

import inspect
from pathlib import Path

import pytest

import seqcore
from seqcore.framework import hookspecs

pytestmark = pytest.mark.database_independent

CORE = Path(seqcore.__file__).resolve().parent
SPECS = [name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction)
         if hasattr(fn, "seqcore_spec")]


def core_source() -> str:
    return "\n".join(path.read_text() for path in CORE.rglob("*.py")
                     if path.name not in ("hookspecs.py", "hookdocs.py"))


@pytest.mark.parametrize("name", SPECS)
def test_hook_is_called(name):
    source = core_source()
    # Called as pm.hook.<name>(...) or, for declarations, collected by name.
    assert f"hook.{name}" in source or f'"{name}"' in source, (
        f"no caller of the hook {name!r} in seqcore/: implement a caller or remove the spec")
