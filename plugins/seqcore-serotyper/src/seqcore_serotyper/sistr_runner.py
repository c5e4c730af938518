"""``<SISTR's environment>/bin/python sistr_runner.py [sistr arguments]``: SISTR, never online.

The pipeline runs SISTR through this wrapper, by path, with the interpreter of SISTR's own
environment (:mod:`seqcore_serotyper.environment`; seqcore is not installed there, so the
wrapper and :mod:`seqcore_serotyper.database` use the standard library only). It checks the
database first (exit 3 with the reason when incomplete), and replaces sistr_cmd's download
functions with ones that fail, so that even a marker deleted between the check and the run
cannot make it fetch anything. ``--version`` prints the version and database line without
loading SISTR.
"""

from __future__ import annotations

import sys
from typing import NoReturn

try:
    from seqcore_serotyper.database import database_problem, describe
except ImportError:  # run by path in SISTR's environment: database.py lies beside this file
    from database import database_problem, describe  # type: ignore[no-redef, import-not-found]

DATABASE_MISSING = 3


def _refuse(*_args: object, **_kwargs: object) -> NoReturn:
    raise SystemExit("ERROR: sistr_cmd tried to download its database; seqcore runs SISTR "
                     "offline only: recreate its environment with `seqcore tools install --force "
                     "sistr_cmd-1.1.3` (sistr_cmd 1.1.3's wheel ships the database)")


def main(argv: list[str]) -> int:
    if argv[:1] == ["--version"]:
        print(describe())
        return 0
    problem = database_problem()
    if problem is not None:
        print(f"ERROR: {problem}", file=sys.stderr)
        return DATABASE_MISSING
    from sistr import sistr_cmd

    sistr_cmd.setup_sistr_dbs = _refuse
    sistr_cmd.download_to_file = _refuse
    sys.argv = ["sistr", *argv]
    sistr_cmd.main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
