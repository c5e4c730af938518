"""The wheel's build step for browser assets: copy the npm files seqcore serves into the
package, so an installed seqcore needs neither npm nor internet access.

``setup.py`` hooks :class:`BuildPy` in as setuptools' ``build_py``. The files and licences
to copy are listed in ``seqcore/web/vendored.py`` (read by path: seqcore's dependencies are
not installed while it builds). They come from ``node_modules`` beside this file (``npm ci``
installs them from ``package-lock.json``; ``./dev`` runs it), or from the directory named by
``SEQCORE_NODE_MODULES``. A missing file fails the build, naming it: a wheel without them
would answer ``/graphiql`` with 503. Editable installs copy nothing (the checkout serves
``node_modules`` itself).
"""

from __future__ import annotations

import os
import runpy
import shutil
from pathlib import Path

from setuptools.command.build_py import build_py
from setuptools.errors import SetupError

HERE = Path(__file__).resolve().parent
TABLE = HERE / "seqcore" / "web" / "vendored.py"
ENVIRONMENT = "SEQCORE_NODE_MODULES"


def node_modules() -> Path:
    configured = os.environ.get(ENVIRONMENT)
    return Path(configured) if configured else HERE / "node_modules"


def copy_assets(target: Path, source: Path | None = None) -> list[str]:
    """Copy every asset and licence of the table from ``source`` into ``target``; return
    the names copied. Raises :class:`SetupError` naming what is missing."""
    table = runpy.run_path(str(TABLE))
    source = source or node_modules()
    wanted = {name: asset.source for name, asset in table["ASSETS"].items()}
    wanted.update(table["LICENCES"])
    missing = [relative for relative in wanted.values() if not (source / relative).is_file()]
    if missing:
        raise SetupError(
            f"browser assets missing from {source}: {', '.join(missing)}. Run `npm ci` in "
            f"the source tree (./dev does) or point {ENVIRONMENT} at a node_modules "
            "directory installed from package-lock.json.")
    target.mkdir(parents=True, exist_ok=True)
    for name, relative in wanted.items():
        shutil.copyfile(source / relative, target / name)
    return sorted(wanted)


class BuildPy(build_py):
    """setuptools' ``build_py``, then the assets into ``seqcore/web/vendor`` of the build."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        copied = copy_assets(Path(self.build_lib) / "seqcore" / "web" / "vendor")
        self.announce(f"copied browser assets: {', '.join(copied)}", level=2)
