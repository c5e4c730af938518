"""What ``seqcore backup`` and ``seqcore check`` cost beside copying the same files.

A SQLite deployment with ``--files`` stored files of ``--size`` MiB each, then, in the same
run:

* the anchor: copying the storage directory and the database file with ``shutil.copytree``
  and syncing them to disk (what any file-level backup that survives a crash pays at least);
* a first backup into an empty directory (database snapshot, every file copied and hashed);
* a second backup after one more file arrived (incremental: one file copied);
* ``check`` (every stored file read and hashed against the database).

    .venv/bin/python bench/backup.py [--files 100] [--size 4] [--tiny]

``--tiny`` (2 files of 1 MiB) checks the benchmark runs; its figures mean little.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "bench"]
sys.path.insert(0, str(ROOT))


def timed(action) -> tuple[float, object]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=100)
    parser.add_argument("--size", type=int, default=4, help="MiB per file")
    parser.add_argument("--tiny", action="store_true",
                        help="2 files of 1 MiB: checks the benchmark runs")
    args = parser.parse_args()
    if args.tiny:
        args.files, args.size = 2, 1

    from bench.deployed import setup
    from seqcore.db.migrations import upgrade
    from seqcore.exports.backups import backup, check
    from seqcore.services import ISessionFactory, registry_service
    from seqcore.testing.factories import Factories

    with tempfile.TemporaryDirectory(dir=os.environ.get("TMPDIR")) as name:
        tmp = Path(name)
        url = f"sqlite:///{tmp / 'seqcore.sqlite'}"
        settings = {"sqlalchemy.url": url, "seqcore.storage.path": str(tmp / "storage"),
                    "seqcore.analysis.work_path": str(tmp / "work"),
                    "seqcore.session.secret": "bench-secret-bench-secret-bench-secret"}
        config = setup(settings)
        upgrade(config.get_settings(), config.registry.pm)
        kinds = config.registry.get("seqcore.file_kinds", {}).values()
        factories = Factories(registry_service(config.registry, ISessionFactory),
                              config.get_settings(), {kind.name: kind for kind in kinds})
        project = factories.project()
        block = os.urandom(1 << 20)
        content = block * args.size
        for n in range(args.files):
            sample = factories.sample(project=project)
            factories.sequencing_object(sample, kind="unpaired",
                                        files=[(f"s{n}.fastq", content + n.to_bytes(4))])
        total = args.files * args.size
        os.sync()

        anchor, _ = timed(lambda: (shutil.copytree(tmp / "storage", tmp / "anchor"),
                                   shutil.copy2(tmp / "seqcore.sqlite", tmp / "anchor.sqlite"),
                                   os.sync()))
        first, report = timed(lambda: backup(url, tmp / "storage", tmp / "backup"))
        sample = factories.sample(project=project)
        factories.sequencing_object(sample, kind="unpaired", files=[("new.fastq", content)])
        second, again = timed(lambda: backup(url, tmp / "storage", tmp / "backup"))
        checking, found = timed(lambda: check(url, tmp / "storage"))
        assert not found.problems and again.copied == 1 and report.copied == args.files

        print(f"{args.files} files, {total} MiB")
        print(f"anchor copytree:        {anchor:7.2f} s  ({total / anchor:7.0f} MiB/s)")
        print(f"first backup:           {first:7.2f} s  ratio {first / anchor:5.2f} x anchor")
        print(f"incremental (+1 file):  {second:7.2f} s  ratio {second / anchor:5.3f} x anchor"
              f"  ({again.copied} of {again.files} files copied)")
        print(f"check (hash all):       {checking:7.2f} s  ratio {checking / anchor:5.2f} x "
              "anchor")


if __name__ == "__main__":
    main()
