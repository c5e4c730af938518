"""``seqcore import``: copy projects from another install (IRIDA's REST API, IRIDA Next's
GraphQL API; seqcore speaks both) into this one (``docs/sync.md``)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import click

from seqcore.cli.base import Env, main, pass_env


@main.group("import")
def import_group() -> None:
    """Copy projects from another install into this one."""


class ProgressBar:
    """Projects, samples and bytes copied so far, on one line of stderr (when it is a
    terminal; silent otherwise), redrawn at most five times a second."""

    def __init__(self, totals: dict[str, int]) -> None:
        self.totals = totals
        self.done = dict.fromkeys(totals, 0)
        self.shown = 0.0
        self.live = sys.stderr.isatty()

    def advance(self, what: str, amount: int = 1) -> None:
        self.done[what] = self.done.get(what, 0) + amount
        now = time.monotonic()
        if self.live and now - self.shown > 0.2:
            self.shown = now
            self.draw()

    def draw(self) -> None:
        mb = self.done.get("bytes", 0) / 1e6
        total_mb = self.totals.get("bytes", 0) / 1e6
        sys.stderr.write(f"\rprojects {self.done['projects']}/{self.totals['projects']}  "
                         f"samples {self.done['samples']}/{self.totals['samples']}  "
                         f"{mb:.1f}/{total_mb:.1f} MB ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.live:
            self.draw()
            sys.stderr.write("\n")


def read_member_map(path: str | None) -> dict[str, str]:
    """A JSON object, or lines ``remote,local`` (or separated by white space): the other
    install's user name or e-mail, and the local account's user name or e-mail."""
    if path is None:
        return {}
    text = Path(path).read_text()
    if text.lstrip().startswith("{"):
        return {str(k): str(v) for k, v in json.loads(text).items()}
    pairs = {}
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.replace(",", " ").split()
        if len(parts) != 2:
            raise click.UsageError(f"{path}:{number}: expected 'remote local'")
        pairs[parts[0]] = parts[1]
    return pairs


def _run(env: Env, kind: str, url: str, projects: tuple[str, ...], everything: bool,
         dry_run: bool, strict: bool, owner: str | None, member_map: str | None,
         credentials: dict[str, Any]) -> None:
    from pyramid.paster import get_app
    from pyramid.scripting import prepare

    from seqcore.imports.remote import Remote, RemoteError
    from seqcore.imports.runner import UnknownOwner, copy, read

    if bool(projects) == everything:
        raise click.UsageError("name projects with --project, or give --all")
    if not dry_run and owner is None:
        raise click.UsageError("--owner names the local account that owns what is imported")
    if not credentials["token"] and not (credentials["client_id"] and
                                         credentials["username"]):
        raise click.UsageError("give --token, or --client-id, --username and --password")
    mapping = read_member_map(member_map)
    remote = Remote(url, basic=kind == "irida-next", **credentials)
    app = get_app(env.ini, "main")
    prepared = prepare(registry=app.registry)
    try:
        request = prepared["request"]
        try:
            plan = read(request, remote, kind, mapping, list(projects) or None)
        except RemoteError as err:
            raise click.ClickException(str(err)) from None
        for line in plan.describe():
            click.echo(line)
        if dry_run:
            return
        if strict and plan.problems:
            raise click.ClickException("problems found (--strict): nothing imported")
        bar = ProgressBar({"projects": len(plan.projects), "samples": plan.samples,
                           "bytes": plan.new.get("bytes", 0)})
        try:
            outcome = copy(request, remote, plan, owner or "", bar)
        except UnknownOwner as err:
            raise click.UsageError(f"no account {err} here") from None
        finally:
            bar.close()
    finally:
        prepared["closer"]()
    copied = {k: v for k, v in outcome.copied.items() if v}
    click.echo("copied: " + (", ".join(f"{v} {k.replace('_', ' ')}" for k, v in
                                       copied.items()) if copied else "nothing new"))
    for failure in outcome.failures:
        click.echo(f"failed: {failure}", err=True)
    if outcome.failures:
        raise click.ClickException(f"{len(outcome.failures)} object(s) not copied; run the "
                                   "same command again to retry them")


def _options(func: Any) -> Any:
    decorators = [
        click.argument("url"),
        click.option("--project", "projects", multiple=True,
                     help="The other install's project id (repeat for more)."),
        click.option("--all", "everything", is_flag=True,
                     help="Every project the account reads there."),
        click.option("--dry-run", is_flag=True,
                     help="Print what would be copied and every problem; write nothing."),
        click.option("--strict", is_flag=True,
                     help="Import nothing when any problem is found (an unmapped member too)."),
        click.option("--owner", help="The local account that owns the imported projects."),
        click.option("--member-map", type=click.Path(exists=True, dir_okay=False),
                     help="Remote user name or e-mail → local one (JSON, or 'remote,local' "
                          "lines); others map by user name, then e-mail."),
        click.option("--token", envvar="SEQCORE_IMPORT_TOKEN",
                     help="A bearer token of the other install (or SEQCORE_IMPORT_TOKEN)."),
        click.option("--client-id", help="OAuth2 client id (password grant)."),
        click.option("--client-secret", envvar="SEQCORE_IMPORT_CLIENT_SECRET", default="",
                     help="Its secret (or SEQCORE_IMPORT_CLIENT_SECRET)."),
        click.option("--username", help="The account read there (password grant)."),
        click.option("--password", envvar="SEQCORE_IMPORT_PASSWORD",
                     help="Its password (or SEQCORE_IMPORT_PASSWORD)."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@import_group.command("irida")
@_options
@pass_env
def import_irida(env: Env, url: str, projects: tuple[str, ...], everything: bool,
                 dry_run: bool, strict: bool, owner: str | None, member_map: str | None,
                 token: str | None, client_id: str | None, client_secret: str,
                 username: str | None, password: str | None) -> None:
    """Copy projects from an IRIDA install at URL, over IRIDA's REST API: names,
    descriptions, members, samples with their metadata, sequence files (checksums checked),
    assemblies and completed analyses. Run it again to resume or to copy what is new."""
    _run(env, "irida", url, projects, everything, dry_run, strict, owner, member_map,
         {"token": token, "client_id": client_id, "client_secret": client_secret,
          "username": username, "password": password})


@import_group.command("irida-next")
@_options
@pass_env
def import_irida_next(env: Env, url: str, projects: tuple[str, ...], everything: bool,
                      dry_run: bool, strict: bool, owner: str | None, member_map: str | None,
                      token: str | None, client_id: str | None, client_secret: str,
                      username: str | None, password: str | None) -> None:
    """Copy groups and projects from an IRIDA Next install at URL, over its GraphQL API:
    the group structure, PUIDs, samples with their metadata and attached files. --project
    takes a project's PUID or full path; --token a personal access token, sent with
    --username (the account's e-mail) as IRIDA Next's clients send it. Run it again to
    resume or to copy what is new."""
    _run(env, "irida-next", url, projects, everything, dry_run, strict, owner, member_map,
         {"token": token, "client_id": client_id, "client_secret": client_secret,
          "username": username, "password": password})
