"""How many of the core's modules each plugin's source imports (issue 17's figure).

``python -m bench.plugin_imports`` prints, per plugin under ``plugins/`` (and ``examples/``),
the number of distinct ``seqcore`` modules its ``src/`` imports and which. A plugin written
against the public API imports one: ``seqcore.plugin``. It reads source files only (no
application is built); ``--tiny`` is accepted, as by every benchmark, and changes nothing.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def core_modules(source_dir: Path) -> set[str]:
    """The ``seqcore`` modules (``seqcore`` itself included) imported anywhere under
    ``source_dir``; the plugins' own packages (``seqcore_*``) are not the core."""
    found: set[str] = set()
    for path in source_dir.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            else:
                continue
            found.update(name for name in names
                         if name == "seqcore" or name.startswith("seqcore."))
    return found


def figures(root: Path = ROOT) -> dict[str, set[str]]:
    """Plugin directory name → the core modules its ``src/`` imports."""
    return {src.parent.name: core_modules(src)
            for parent in ("plugins", "examples")
            for src in sorted((root / parent).glob("*/src"))}


def main() -> int:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tiny", action="store_true", help="the same (it is quick)")
    parser.parse_args()
    for name, modules in figures().items():
        print(f"{name:28} {len(modules):3}  {', '.join(sorted(modules))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
