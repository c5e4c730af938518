"""The wheel's build step for browser assets: copy the npm files seqcore serves into the
package, so an installed seqcore needs neither npm nor internet access.

``setup.py`` hooks :class:`BuildPy` in as setuptools' ``build_py``. The files and licences
to copy are listed in ``seqcore/web/vendored.py`` (read by path: seqcore's dependencies are
not installed while it builds). They come from ``node_modules`` beside this file (``npm ci``
installs them from ``package-lock.json``; ``./dev`` runs it), or from the directory named by
``SEQCORE_NODE_MODULES``. A missing file fails the build, naming it: a wheel without them
would answer ``/graphiql`` with 503. Editable installs copy nothing (the checkout serves
``node_modules`` itself).

The source distribution carries the copied assets (:class:`Sdist` writes them into its
``seqcore/web/vendor``), so building seqcore from it needs neither npm nor a network:
:class:`BuildPy` takes them from there when no ``node_modules`` is at hand.
"""

from __future__ import annotations

import os
import runpy
import shutil
from pathlib import Path

from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.errors import SetupError

HERE = Path(__file__).resolve().parent
TABLE = HERE / "seqcore" / "web" / "vendored.py"
ENVIRONMENT = "SEQCORE_NODE_MODULES"
#: Where a source distribution keeps the assets it was made with.
SHIPPED = HERE / "seqcore" / "web" / "vendor"


def wanted_files() -> dict[str, str]:
    """Each asset and licence the package serves: its name there and its path in
    ``node_modules``."""
    table = runpy.run_path(str(TABLE))
    wanted = {name: asset.source for name, asset in table["ASSETS"].items()}
    wanted.update(table["LICENCES"])
    return wanted


def node_modules() -> Path:
    configured = os.environ.get(ENVIRONMENT)
    return Path(configured) if configured else HERE / "node_modules"


def shipped() -> bool:
    """Whether this source tree is a source distribution that carries every asset."""
    return (not os.environ.get(ENVIRONMENT) and not (HERE / "node_modules").is_dir()
            and all((SHIPPED / name).is_file() for name in wanted_files()))


def copy_assets(target: Path, source: Path | None = None) -> list[str]:
    """Copy every asset and licence of the table from ``source`` into ``target``; return
    the names copied. Raises :class:`SetupError` naming what is missing."""
    source = source or node_modules()
    wanted = wanted_files()
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
        target = Path(self.build_lib) / "seqcore" / "web" / "vendor"
        if shipped():  # a source distribution: the assets it carries
            target.mkdir(parents=True, exist_ok=True)
            for name in wanted_files():
                shutil.copyfile(SHIPPED / name, target / name)
            self.announce("browser assets from the source distribution", level=2)
            return
        copied = copy_assets(target)
        self.announce(f"copied browser assets: {', '.join(copied)}", level=2)


class Sdist(sdist):
    """setuptools' ``sdist``, with the assets (from ``node_modules``) in its
    ``seqcore/web/vendor``, so the source distribution builds without npm."""

    def make_release_tree(self, base_dir: str, files: list[str]) -> None:
        super().make_release_tree(base_dir, files)
        target = Path(base_dir) / "seqcore" / "web" / "vendor"
        if shipped():  # made from a source distribution: pass its assets on
            target.mkdir(parents=True, exist_ok=True)
            for name in wanted_files():
                shutil.copyfile(SHIPPED / name, target / name)
            return
        copy_assets(target)
