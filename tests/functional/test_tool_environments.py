"""Tool environments: a site plugin declares one, ``seqcore tools list`` shows it missing,
``seqcore tools install`` creates it from the configured package index (a real virtualenv,
a real pip), and the tool's interpreter runs with the declared packages and without the
server's."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from seqcore.analysis.toolenvs import ToolEnvironment, ensure, environment_python, is_installed

# seqcore tools install and the site's ini name no database but a SQLite file of their own.
pytestmark = pytest.mark.database_independent

PLUGIN = '''
from seqcore import hookimpl
from seqcore.analysis.toolenvs import ToolEnvironment


@hookimpl
def register_tool_environments():
    return [ToolEnvironment("six-tool", ("six",), "a tool that needs six")]
'''
SEQCORE = Path(sys.executable).parent / "seqcore"


def seqcore(tmp_path, *args, ok=True):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    env.pop("SEQCORE_TOOLS_PATH", None)
    done = subprocess.run([str(SEQCORE), "-c", str(tmp_path / "site.ini"), *args],
                          capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    if ok:
        assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_declared_listed_installed_and_used(tmp_path):
    (tmp_path / "sixtool_site.py").write_text(PLUGIN)
    tools = tmp_path / "tools"
    (tmp_path / "site.ini").write_text(
        "[app:main]\nuse = egg:seqcore-server\n"
        f"sqlalchemy.url = sqlite:///{tmp_path / 'site.sqlite'}\n"
        f"seqcore.tools.path = {tools}\n"
        "seqcore.plugins.modules = sixtool_site\n"
        # No installed plugin: `seqcore tools install` (all of them) would create theirs too
        # (the serotyper's SISTR, minutes of pip; its own tests create it).
        "seqcore.plugins.enabled = sixtool_site\n")
    listed = seqcore(tmp_path, "tools", "list").stdout.splitlines()
    assert f"six-tool\tmissing\t{tools / 'six-tool'}\tsix" in listed

    unknown = seqcore(tmp_path, "tools", "install", "nope", ok=False)
    assert unknown.returncode == 2 and "no tool environment 'nope'" in unknown.stderr
    assert not (tools / "six-tool").exists()

    out = seqcore(tmp_path, "tools", "install", "six-tool").stdout
    python = tools / "six-tool" / "bin" / "python"
    assert f"six-tool: {python}" in out
    assert f"six-tool\tinstalled\t{tools / 'six-tool'}\tsix" in \
        seqcore(tmp_path, "tools", "list").stdout.splitlines()
    # The tool's interpreter has its packages, and not the server's.
    done = subprocess.run([str(python), "-c", "import six, importlib.util; "
                           "print(importlib.util.find_spec('seqcore') is None)"],
                          capture_output=True, text=True, timeout=60, env={}, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == "True", done.stderr
    # Installed is left alone (no pip run): the marker is unchanged.
    marker = tools / "six-tool" / "seqcore-requirements.txt"
    before = marker.stat().st_mtime_ns
    assert "six-tool: " in seqcore(tmp_path, "tools", "install").stdout
    assert marker.stat().st_mtime_ns == before


def test_a_changed_declaration_or_a_broken_install_is_rebuilt(tmp_path):
    settings = {"seqcore.tools.path": str(tmp_path)}
    first = ToolEnvironment("six-tool", ("six",))
    python = ensure(first, settings)
    assert python == environment_python(first, settings) and is_installed(first, settings)
    pinned = ToolEnvironment("six-tool", ("six", "setuptools<81"))
    assert not is_installed(pinned, settings)  # a new declaration: not this environment
    (tmp_path / "six-tool" / "seqcore-requirements.txt").unlink()  # an interrupted install
    assert not is_installed(first, settings)


def test_pip_failure_is_an_error_with_the_reason(tmp_path):
    from seqcore.analysis.toolenvs import ToolEnvironmentError

    broken = ToolEnvironment("broken", ("seqcore-no-such-package-anywhere==0.0.1",))
    with pytest.raises(ToolEnvironmentError) as err:
        ensure(broken, {"seqcore.tools.path": str(tmp_path)})
    assert "could not create the tool environment 'broken'" in str(err.value)
    assert "seqcore-no-such-package-anywhere" in str(err.value)
    assert not is_installed(broken, {"seqcore.tools.path": str(tmp_path)})


def test_bad_declarations_are_refused():
    with pytest.raises(ValueError, match="one directory name"):
        ToolEnvironment("../escape", ("six",))
    with pytest.raises(ValueError, match="no requirements"):
        ToolEnvironment("empty", ())


TINY_PLUGIN = '''
from seqcore import hookimpl
from seqcore.analysis.toolenvs import ToolEnvironment


@hookimpl
def register_tool_environments():
    return [ToolEnvironment("tiny-tool", ("seqcore-tiny-probe==1.0",), "a tool in one wheel")]
'''


def tiny_wheel(directory):
    """A one-module wheel, written as pip would read it: the only package the test's pip
    may install (no index, no network)."""
    import base64
    import hashlib
    import zipfile

    info = "seqcore_tiny_probe-1.0.dist-info"
    files = {"seqcore_tiny_probe.py": "VALUE = 1\n",
             f"{info}/METADATA": "Metadata-Version: 2.1\nName: seqcore-tiny-probe\n"
                                 "Version: 1.0\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: seqcore-tests\n"
                              "Root-Is-Purelib: true\nTag: py3-none-any\n"}

    def digest(text):
        raw = hashlib.sha256(text.encode()).digest()
        return "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    files[f"{info}/RECORD"] = "".join(f"{path},{digest(text)},{len(text.encode())}\n"
                                      for path, text in files.items()) + f"{info}/RECORD,,\n"
    directory.mkdir()
    with zipfile.ZipFile(directory / "seqcore_tiny_probe-1.0-py3-none-any.whl", "w") as wheel:
        for path, text in files.items():
            wheel.writestr(path, text)


def test_install_shows_progress_on_a_terminal_only(tmp_path):
    """On a terminal ``seqcore tools install`` names each step (creating the environment,
    installing the requirements, what pip processes and installs) and the time it took; in
    a pipe it writes only its two lines, as before."""
    from tests.terminal import on_a_terminal

    (tmp_path / "tinytool_site.py").write_text(TINY_PLUGIN)
    tiny_wheel(tmp_path / "wheels")
    tools = tmp_path / "tools"
    (tmp_path / "site.ini").write_text(
        "[app:main]\nuse = egg:seqcore-server\n"
        f"sqlalchemy.url = sqlite:///{tmp_path / 'site.sqlite'}\n"
        f"seqcore.tools.path = {tools}\n"
        "seqcore.plugins.modules = tinytool_site\nseqcore.plugins.enabled = tinytool_site\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path]),
           "PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(tmp_path / "wheels")}
    env.pop("SEQCORE_TOOLS_PATH", None)
    command = [str(SEQCORE), "-c", str(tmp_path / "site.ini"), "tools", "install", "--force"]

    done, drawn = on_a_terminal(command, text=True, env=env, cwd=tmp_path, timeout=300)
    python = tools / "tiny-tool" / "bin" / "python"
    assert done.returncode == 0, drawn
    assert done.stdout.splitlines() == [f"tiny-tool: {python}"]
    assert f"tiny-tool: creating the environment {tools / 'tiny-tool'}" in drawn
    assert "tiny-tool: installing 1 requirement: seqcore-tiny-probe==1.0" in drawn
    assert "processing seqcore_tiny_probe-1.0-py3-none-any.whl" in drawn  # pip's own step
    assert "tiny-tool: pip is installing seqcore-tiny-probe" in drawn
    assert re.search(r"tiny-tool: installed in [0-9.]+ s", drawn), drawn
    assert subprocess.run([str(python), "-c", "import seqcore_tiny_probe"], env={},
                          timeout=60).returncode == 0

    piped = subprocess.run(command, capture_output=True, text=True, env=env, cwd=tmp_path,
                           check=False, timeout=300)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout.splitlines() == [
        f"creating the tool environment {tools / 'tiny-tool'} (seqcore-tiny-probe==1.0)",
        f"tiny-tool: {python}"]
    assert piped.stderr == ""


def test_a_watched_install_that_fails_says_why(tmp_path, monkeypatch):
    """With progress, pip's output is read as it comes: a failure still ends in an error
    with pip's reason, after the steps were reported, and leaves nothing installed."""
    from seqcore.analysis.toolenvs import ToolEnvironmentError, install

    class Seen:
        def __init__(self):
            self.phases, self.statuses = [], []

        def phase(self, text):
            self.phases.append(text)

        def status(self, text):
            self.statuses.append(text)

    monkeypatch.setenv("PIP_NO_INDEX", "1")  # no network: nothing can be found
    settings = {"seqcore.tools.path": str(tmp_path)}
    broken = ToolEnvironment("broken", ("seqcore-no-such-package-anywhere==0.0.1",))
    seen = Seen()
    with pytest.raises(ToolEnvironmentError) as err:
        install(broken, settings, progress=seen)
    assert "could not create the tool environment 'broken'" in str(err.value)
    assert "seqcore-no-such-package-anywhere" in str(err.value)
    assert seen.phases == [
        f"creating the environment {tmp_path / 'broken'}",
        "installing 1 requirement: seqcore-no-such-package-anywhere==0.0.1"]
    assert not is_installed(broken, settings)
