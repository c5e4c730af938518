"""The services of an application, each behind an interface.

Storage, the QC engine, the link service, the analysis registry, the executors and the
database are registered with ``pyramid_services`` against the interfaces below, so code finds
them by what they do, not by a registry key, and a test or a deployment swaps one by
registering another object for the same interface (``seqcore.testing.services``).

In a request, ask the request: ``request.find_service(IStorage)``. The workers, the CLI and
start-up code have no request; they use :func:`registry_service`. Every service registered
by the core is built without a request, so both ways find the same object.
"""

from __future__ import annotations

from typing import Any

from pyramid.registry import Registry
from pyramid_services import IServiceRegistry
from zope.interface import Attribute, Interface


class IStorage(Interface):
    """Where uploaded and generated files live (:class:`seqcore.storage.service.Storage`):
    a local directory, or an object store (``seqcore.storage.backend``). Code that needs a
    file on disk asks for :meth:`local_copy` (the file itself, or a staged copy); code that
    can stream asks for :meth:`open`; :meth:`path` answers only for a local directory."""

    root = Attribute("The storage directory (a pathlib.Path); an object store's scratch "
                     "directory.")
    is_local = Attribute("Whether stored files are files under root (path answers).")

    def path(relative: str) -> Any:
        """The absolute path of a stored file (a local directory only)."""

    def local_copy(relative: str) -> Any:
        """A context manager giving a local file with a stored file's bytes."""

    def open(relative: str) -> Any:
        """A stored file's bytes as a binary stream."""

    def location(relative: str) -> Any:
        """Where a stored file is, for representations (a path, ``s3://bucket/key``)."""

    def signed_url(relative: str, method: str = "GET", seconds: Any = None) -> Any:
        """A short-lived URL of the object store for the file; ``None`` for a directory."""

    def store_file(source: Any, name: str, manager: Any) -> Any:
        """Move ``source`` into storage, joined to ``manager``'s transaction."""

    def remove_after_commit(relatives: list[str], manager: Any) -> None:
        """Delete files once the transaction that forgot them commits."""


class IQCEngine(Interface):
    """Computes a FastQC-compatible report of a FASTQ file (:mod:`seqcore.qc`)."""

    label = Attribute("The engine's name, recorded with every report.")

    def run(path: Any) -> Any:
        """A :class:`seqcore.qc.QCReport` of the file at ``path``."""


class ILinkService(Interface):
    """The one authority for hypermedia links (:class:`seqcore.framework.links.LinkService`)."""

    def add(spec: Any, after: Any = ()) -> None:
        """Register a :class:`seqcore.framework.contrib.LinkSpec` (done by config actions); with
        ``after`` (rels), right after the last of those already registered."""

    def specs_for(context_type: type) -> list[Any]:
        """The specs registered on exactly ``context_type``."""
        raise NotImplementedError  # an interface: the service implements it


class IAnalysisRegistry(Interface):
    """The analysis types, output rels and executors of the application
    (:class:`seqcore.analysis.registry.AnalysisRegistry`)."""

    def type(name: str) -> Any:
        """The analysis type called ``name`` (or an alias of it), or ``None``."""


class IExecutor(Interface):
    """Runs analysis jobs (see :mod:`seqcore.analysis.executors`); one named service per
    registered :class:`seqcore.framework.contrib.Executor`, built anew on every lookup because an
    executor keeps state about the jobs it started."""

    name = Attribute("The executor's name (``local``, ``celery``).")

    def submit(work_dir: Any) -> str:
        """Start the job in ``work_dir``; returns the executor's id for it."""
        raise NotImplementedError  # an interface: the executor implements it

    def poll(remote_id: str, work_dir: Any) -> Any:
        """A :class:`seqcore.analysis.executors.JobStatus`."""

    def cancel(remote_id: str) -> None:
        """Stop the job."""


class IDatabaseEngine(Interface):
    """The SQLAlchemy engine of the application's database."""


class ISessionFactory(Interface):
    """Makes SQLAlchemy sessions on the application's database (``sessionmaker``)."""


def registry_service(registry: Registry, iface: type[Interface], name: str = "") -> Any:
    """The service registered for ``iface`` (and ``name``), found without a request.

    Works once the configuration is committed (``config.commit()`` or
    ``make_wsgi_app()``); raises :class:`LookupError` when nothing is registered.
    """
    services = registry.queryUtility(IServiceRegistry)
    factory = services.find_factory(iface, name=name) if services is not None else None
    if factory is None:
        raise LookupError(f"no service registered for {iface.__name__}"
                          + (f" named {name!r}" if name else "")
                          + ("" if services is not None else
                             " (the configuration is not committed yet)"))
    return factory.factory(None, None)
