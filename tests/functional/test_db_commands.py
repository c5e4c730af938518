"""``seqcore db revision`` and ``db downgrade``: a plugin author's migration workflow.

The command runs in its own process, as an author runs it, so that only the plugin named in
the ini contributes models (the test process has mapped many more).
"""

import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import create_engine, inspect

PLUGIN = '''
"""A site plugin with one table and a migration branch that starts empty."""
from pathlib import Path

from sqlalchemy import ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from seqcore import hookimpl
from seqcore.framework.contrib import MigrationSource
from seqcore.db import Base


class Widget(Base):
    __tablename__ = "widgets_widget"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("project.id", ondelete="CASCADE"))
    label: Mapped[str] = mapped_column(String(80))


@hookimpl
def register_models():
    return [Widget]


@hookimpl
def register_migrations():
    return [MigrationSource("widgets", str(Path(__file__).parent / "widgets_versions"))]
'''


def seqcore(tmp_path, *args, ok=True):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    result = subprocess.run(
        [sys.executable, "-c", "from seqcore.cli import main; main()",
         "-c", str(tmp_path / "site.ini"), *args],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)
    if ok:
        assert result.returncode == 0, result.stdout + result.stderr
    return result


def test_plugin_author_writes_upgrades_and_downgrades_a_branch(tmp_path):
    (tmp_path / "widgets_site.py").write_text(PLUGIN)
    db = tmp_path / "site.sqlite"
    (tmp_path / "site.ini").write_text(
        "[app:main]\nuse = egg:seqcore-server\n"
        f"sqlalchemy.url = sqlite:///{db}\n"
        "seqcore.plugins.modules = widgets_site\n")
    seqcore(tmp_path, "db", "upgrade")
    engine = create_engine(f"sqlite:///{db}")
    assert "widgets_widget" not in inspect(engine).get_table_names()

    first = Path(seqcore(tmp_path, "db", "revision", "--plugin", "widgets_site",
                         "-m", "widget table", "--autogenerate").stdout.split()[-1])
    assert first.parent == tmp_path / "widgets_versions"
    text = first.read_text()
    assert "branch_labels = ('widgets',)" in text
    core_head = seqcore(tmp_path, "db", "heads").stdout.split()
    assert any(f"depends_on = {head!r}" in text for head in core_head)
    assert "op.create_table('widgets_widget'" in text
    assert "op.drop_table('widgets_widget')" in text
    # Only the plugin's table: the core's schema already matches its models.
    assert text.count("op.create_table(") == 1

    seqcore(tmp_path, "db", "upgrade")
    tables = set(inspect(engine).get_table_names())
    assert {"widgets_widget", "project", "user"} <= tables

    second = Path(seqcore(tmp_path, "db", "revision", "--plugin", "widgets",
                          "-m", "nothing yet").stdout.split()[-1])
    first_id = text.split("revision = ")[1].split("\n")[0]
    assert f"down_revision = {first_id}" in second.read_text()

    seqcore(tmp_path, "db", "upgrade")
    seqcore(tmp_path, "db", "downgrade", "widgets@base")
    tables = set(inspect(engine).get_table_names())
    assert "widgets_widget" not in tables
    assert {"project", "user"} <= tables
    engine.dispose()

    unknown = seqcore(tmp_path, "db", "revision", "--plugin", "nope", "-m", "x", ok=False)
    assert unknown.returncode == 2
    assert "no installed plugin ships a migration branch 'nope'" in unknown.stderr
    assert "widgets" in unknown.stderr


INSTALLED = '''
"""A plugin installed from a wheel: its package (and its revisions) in site-packages."""
from seqcore.plugin import MigrationSource, hookimpl


@hookimpl
def register_migrations():
    return [MigrationSource("gadgets", "gadgets:migrations/versions")]
'''


def test_a_revision_is_never_written_into_an_installed_plugin(tmp_path):
    installed = tmp_path / "venv" / "lib" / "python3" / "site-packages" / "gadgets"
    source = tmp_path / "checkout" / "src" / "gadgets"
    for package in (installed, source):
        (package / "migrations" / "versions").mkdir(parents=True)
        (package / "__init__.py").write_text(INSTALLED)
    (tmp_path / "site.ini").write_text(
        "[app:main]\nuse = egg:seqcore-server\n"
        f"sqlalchemy.url = sqlite:///{tmp_path / 'site.sqlite'}\n"
        "seqcore.plugins.modules = gadgets\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(installed.parent), *sys.path])}

    def run(*args):
        return subprocess.run(
            [sys.executable, "-c", "from seqcore.cli import main; main()",
             "-c", str(tmp_path / "site.ini"), "db", "revision", "--plugin", "gadgets",
             "-m", "gadget table", *args],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)

    refused = run()
    assert refused.returncode == 2, refused.stdout + refused.stderr
    assert "in an installed copy" in refused.stderr and "--path" in refused.stderr
    assert "pip install -e" in refused.stderr
    assert list((installed / "migrations" / "versions").iterdir()) == []

    written = run("--path", str(source / "migrations" / "versions"))
    assert written.returncode == 0, written.stdout + written.stderr
    path = Path(written.stdout.split()[-1])
    assert path.parent == source / "migrations" / "versions"
    assert "branch_labels = ('gadgets',)" in path.read_text()
    assert list((installed / "migrations" / "versions").iterdir()) == []
