"""The production gunicorn configuration of seqcore.

    gunicorn -c deploy/gunicorn.conf.py --paste production.ini

Workers x threads: one process per core plus one (``SEQCORE_WORKERS`` overrides), each with
``SEQCORE_THREADS`` threads (default 4). Python runs one thread of a process at a time, so
processes give the parallelism and threads cover the waits (database round trips, clients
that read slowly). ``gthread`` workers keep idle keep-alive connections open without holding
a thread, so many polling clients (dashboards, the uploader) reuse their connections.

Each worker process has its own SQLAlchemy connection pool, sized from the same
``SEQCORE_THREADS`` (setting ``seqcore.threads``): two connections per thread (a request holds
one connection, and a streamed collection one more after its transaction ends) plus 10
overflow (``seqcore.db.pool_size``, ``seqcore.db.max_overflow``). PostgreSQL must accept
``workers x (2 x threads + 10)`` connections, plus the processing workers'
(docs/operations.md).

Uploads are read from the socket by seqcore itself (``seqcore.rest.bodyreader``), so one
upload may take long: ``timeout`` bounds the longest.
"""

from __future__ import annotations

import multiprocessing
import os

# Where deploy/nginx/seqcore.conf and production.ini expect it (gunicorn reads no address
# from the paste file, and would listen on its own default, 8000).
bind = os.environ.get("SEQCORE_BIND", "127.0.0.1:6543")
workers = int(os.environ.get("SEQCORE_WORKERS", multiprocessing.cpu_count() + 1))
threads = int(os.environ.get("SEQCORE_THREADS", 4))
worker_class = "gthread"
# Longer than the uploader's and proxies' idle time, so connections are reused, not raced.
keepalive = 75
timeout = 3600
graceful_timeout = 30
# Waiting connections beyond workers x threads queue in the kernel.
backlog = 2048
forwarded_allow_ips = os.environ.get("SEQCORE_FORWARDED_ALLOW_IPS", "127.0.0.1")
