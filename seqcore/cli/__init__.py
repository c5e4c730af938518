"""The ``seqcore`` command, a package of command groups.

``seqcore.cli.base`` holds the top-level group and what every command shares (the ini file,
settings, plugin manager and a database session); each other module adds one group or command
to it, and importing this package registers them all. The console script is
``seqcore.cli:main``.
"""

from seqcore.cli import (
    backups,
    bots,
    clients,
    database,
    imports,
    init,
    plugins,
    remotes,
    serve,
    storage,
    tokens,
    tools,
    users,
    worker,
)
from seqcore.cli.base import Env, main, pass_env
from seqcore.cli.serve import bootstrap

__all__ = ["Env", "backups", "bootstrap", "bots", "clients", "database", "imports", "init",
           "main", "pass_env", "plugins", "remotes", "serve", "storage", "tokens", "tools",
           "users", "worker"]
