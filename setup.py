"""seqcore's build steps; everything else about the package is in pyproject.toml."""

import sys
from pathlib import Path

from setuptools import setup

sys.path.insert(0, str(Path(__file__).resolve().parent))

from build_web_assets import BuildPy, Sdist

setup(cmdclass={"build_py": BuildPy, "sdist": Sdist})
