"""Render ``docs/plugin_hooks.md`` from :mod:`seqcore.framework.hookspecs`.

``python -m seqcore.framework.hookdocs > docs/plugin_hooks.md`` after changing a hookspec; a
meta-test fails while the page and the specs disagree.
"""

from __future__ import annotations

import inspect

from seqcore.framework import hookspecs

INTRO = """# Plugin hooks

A seqcore plugin is a module (or object) with functions decorated `@hookimpl` (`from
seqcore.plugin import hookimpl`), named after the hooks below, found through the `seqcore`
entry-point group. Call conventions:

- hooks are called with keyword arguments only; an implementation may accept any subset of
  a hook's arguments;
- `register_*` hooks run once while the application is configured and return declarations
  from `seqcore.plugin` (`docs/plugin_api.md`); two plugins claiming the same rel, path or
  name fail at start-up with both plugin names in the error;
- `select_*`/`resolve_*` hooks stop at the first non-`None` answer;
- notifications (past-tense and -ing names) must not raise.

`tests/meta/test_hooks_documented.py` fails when a hook below is missing or its signature
differs from `seqcore/framework/hookspecs.py` (regenerate with `python -m
seqcore.framework.hookdocs`).
"""


def render() -> str:
    parts = [INTRO]
    for name, fn in inspect.getmembers(hookspecs, inspect.isfunction):
        if not hasattr(fn, "seqcore_spec"):
            continue
        params = ", ".join(inspect.signature(fn).parameters)
        doc = (inspect.getdoc(fn) or "").replace(".. versionadded:: 26.11", "*Added in 26.11.*")
        parts.append(f"## `{name}({params})`\n\n{doc}\n")
    return "\n".join(parts)


if __name__ == "__main__":
    print(render(), end="")
