"""``seqcore worker``: the job loop (processing, analyses, exports, NCBI, retention)."""

from __future__ import annotations

import os
import sys

import click

from seqcore.cli.base import Env, main, pass_env

# -- worker -----------------------------------------------------------------------------------


@main.command("worker")
@click.option("--once", is_flag=True, help="Process what is waiting, then exit.")
@click.option("--interval", default=2.0, show_default=True,
              help="Seconds between looks at the queue when idle.")
@click.option("--only", envvar="SEQCORE_WORKER_ONLY", default="",
              help="Run only these rounds, separated by commas (processing, analyses, ncbi, "
                   "exports, blobs, trash, memberships, mail, tokens, sync); default: all.")
@pass_env
def worker(env: Env, once: bool, interval: float, only: str) -> None:
    """Process uploads (checksum, decompression, QC), drive analyses and NCBI submissions,
    prepare and purge data exports, remove expired memberships, until stopped."""
    import signal
    import threading

    from pyramid.paster import setup_logging

    from seqcore.config import configure
    from seqcore.observability.logconfig import apply as apply_logging
    from seqcore.worker import WorkerLoop

    if os.path.exists(env.ini):
        setup_logging(env.ini)
    config = configure(env.settings, origin=f"ini file {env.ini}")
    config.commit()
    apply_logging(config.get_settings())  # seqcore.log.format, as the web server's
    rounds = [name.strip() for name in only.split(",") if name.strip()] or None
    try:
        runner = WorkerLoop(config.registry, only=rounds)
    except ValueError as err:
        raise click.BadParameter(str(err), param_hint="--only") from err
    if once:
        if "processing" in runner.rounds:
            click.echo(f"processed {runner.processing.run_until_idle()} object(s)")
        if "analyses" in runner.rounds:
            runner.analyses.run_until_idle()
        if "ncbi" in runner.rounds:
            runner.ncbi.run_once()  # upload waiting NCBI submissions, read the reports due
        if "exports" in runner.rounds:
            while runner.exports.run_once():  # purge expired exports, build the waiting ones
                pass
        if "memberships" in runner.rounds:
            runner.memberships.run_once()  # remove the memberships that expired
        if "sync" in runner.rounds:
            runner.sync.run_once()  # synchronize the projects that are due
        return
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    click.echo(f"worker {runner.name} running")
    sys.stdout.flush()
    runner.run_forever(stop, interval=interval)
