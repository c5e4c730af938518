"""Browser assets that come from npm packages, and where a running seqcore finds them.

One table for the wheel's build step and for the views that serve the files: the build step
(``build_web_assets.py`` beside ``pyproject.toml``) copies every asset and licence listed
here from ``node_modules`` into the package's ``vendor/`` directory, so an installed seqcore
serves them without npm or internet; a source checkout serves them from ``node_modules``
(``npm ci``, run by ``./dev``). This module imports only the standard library: the build step
reads it by path, before seqcore's dependencies exist.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


class Asset(NamedTuple):
    """A file served under its name: where it lies in ``node_modules``, and its type."""

    source: str
    media_type: str


ASSETS: dict[str, Asset] = {
    # GraphiQL (/graphiql) and the React it runs on.
    "graphiql.min.js": Asset("graphiql/graphiql.min.js", "application/javascript"),
    "graphiql.min.css": Asset("graphiql/graphiql.min.css", "text/css"),
    "react.production.min.js": Asset("react/umd/react.production.min.js",
                                     "application/javascript"),
    "react-dom.production.min.js": Asset("react-dom/umd/react-dom.production.min.js",
                                         "application/javascript"),
    # Redoc (/redoc), the OpenAPI description's reader.
    "redoc.standalone.js": Asset("redoc/bundles/redoc.standalone.js", "application/javascript"),
    # Hotwire: Turbo (links and frames without full reloads, streams for live state) and
    # Stimulus (the small controllers of the pages), loaded as ES modules by every page.
    "turbo.es2017-esm.js": Asset("@hotwired/turbo/dist/turbo.es2017-esm.js",
                                 "application/javascript"),
    "stimulus.js": Asset("@hotwired/stimulus/dist/stimulus.js", "application/javascript"),
    # hash-wasm's MD5 (WebAssembly): the checksum the browser's direct uploads announce, which
    # Web Crypto does not compute.
    "hash-wasm-md5.umd.min.js": Asset("hash-wasm/dist/md5.umd.min.js", "application/javascript"),
}

LICENCES: dict[str, str] = {
    # The licence texts of the npm packages above, shipped beside them (NOTICE lists them).
    "graphiql.LICENSE": "graphiql/LICENSE",
    "react.LICENSE": "react/LICENSE",
    "react-dom.LICENSE": "react-dom/LICENSE",
    "redoc.LICENSE": "redoc/LICENSE",
    "stimulus.LICENSE": "@hotwired/stimulus/LICENSE.md",
    "hash-wasm.LICENSE": "hash-wasm/LICENSE",
    # Turbo's npm package ships no licence file: its MIT notice heads turbo.es2017-esm.js.
}

PACKAGED = Path(__file__).resolve().parent / "vendor"
"""Where the wheel's build step puts them (absent in a source checkout)."""

SOURCE_NODE_MODULES = Path(__file__).resolve().parents[2] / "node_modules"
"""A source checkout's ``npm ci`` target."""


def asset_path(name: str, node_modules: str | Path | None = None) -> Path | None:
    """The file of asset ``name``: from ``node_modules`` when one is configured, else from
    the package, else from the source checkout's ``node_modules``; ``None`` when it is not
    an asset or is not there."""
    asset = ASSETS.get(name)
    if asset is None:
        return None
    if node_modules:
        candidates = [Path(node_modules) / asset.source]
    else:
        candidates = [PACKAGED / name, SOURCE_NODE_MODULES / asset.source]
    return next((path for path in candidates if path.is_file()), None)


def missing_assets(names: list[str], node_modules: str | Path | None = None) -> list[str]:
    """Which of ``names`` cannot be served."""
    return [name for name in names if asset_path(name, node_modules) is None]
