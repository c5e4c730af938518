"""Real object stores on loopback for tests and benchmarks: an S3-compatible server (moto in
server mode, ``moto[server]`` in the ``test`` extra) and Azure Blob storage (Azurite,
Microsoft's emulator, an npm devDependency: ``node_modules/.bin/azurite-blob``).

Each runs as a process of its own on a free port, in a temporary directory;
:func:`start_s3` and :func:`start_azurite` answer a :class:`StoreServer` (the
``seqcore.storage.*`` settings of a fresh bucket or container in it, and ``stop``), or
raise :class:`StoreUnavailable` naming what is missing, which fixtures turn into a skip.
"""

from __future__ import annotations

import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]

#: Azurite's well-known development account (published by Microsoft; not a secret).
AZURITE_ACCOUNT = "devstoreaccount1"
AZURITE_KEY = ("Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/"
               "KBHBeksoGMGw==")
S3_KEY_ID, S3_SECRET = "seqcore-test", "seqcore-test-secret"


class StoreUnavailable(Exception):
    """The store's program is not installed; the message says how to get it."""


@dataclass
class StoreServer:
    """A running store: ``kind`` (``s3``, ``azure``), its endpoint, its process."""

    kind: str
    endpoint: str
    process: subprocess.Popen[bytes]
    directory: Path
    buckets: list[str] = field(default_factory=list)

    def settings(self, bucket: str | None = None) -> dict[str, Any]:
        """The ``seqcore.storage.*`` settings of a new, empty bucket (container) here."""
        bucket = bucket or f"seqcore-{secrets.token_hex(6)}"
        self.create_bucket(bucket)
        key_id, secret = ((S3_KEY_ID, S3_SECRET) if self.kind == "s3"
                          else (AZURITE_ACCOUNT, AZURITE_KEY))
        return {"seqcore.storage.backend": self.kind, "seqcore.storage.bucket": bucket,
                "seqcore.storage.endpoint": self.endpoint,
                "seqcore.storage.access_key_id": key_id,
                "seqcore.storage.secret_access_key": secret}

    def create_bucket(self, bucket: str) -> None:
        if self.kind == "s3":
            self.boto3_client().create_bucket(Bucket=bucket)
        else:
            self.blob_service().create_container(bucket)
        self.buckets.append(bucket)

    def boto3_client(self) -> Any:
        """The store's own Python client (boto3), for tests and the benchmark's anchor."""
        import boto3

        return boto3.client("s3", endpoint_url=self.endpoint, aws_access_key_id=S3_KEY_ID,
                            aws_secret_access_key=S3_SECRET, region_name="us-east-1")

    def blob_service(self) -> Any:
        """Azure's own Python client (azure-storage-blob)."""
        from azure.storage.blob import BlobServiceClient

        return BlobServiceClient.from_connection_string(
            f"DefaultEndpointsProtocol=http;AccountName={AZURITE_ACCOUNT};"
            f"AccountKey={AZURITE_KEY};BlobEndpoint={self.endpoint};")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        shutil.rmtree(self.directory, ignore_errors=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_listening(port: int, process: subprocess.Popen[bytes], what: str,
                    log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{what} exited at start: {log.read_text()[-2000:]}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"{what} did not listen on port {port} within 60 s")


def start_s3() -> StoreServer:
    """moto's S3 server on a free loopback port."""
    try:
        import boto3  # noqa: F401
        import moto.server  # noqa: F401
    except ImportError:
        raise StoreUnavailable("moto[server] and boto3 are not installed (the test "
                               "extra: pip install -e .[test])") from None
    port = free_port()
    directory = Path(tempfile.mkdtemp(prefix="seqcore-s3-"))
    log = directory / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([sys.executable, "-m", "moto.server", "-H", "127.0.0.1",
                                    "-p", str(port)], stdout=out, stderr=subprocess.STDOUT,
                                   cwd=directory)
    _wait_listening(port, process, "moto's S3 server", log)
    return StoreServer("s3", f"http://127.0.0.1:{port}", process, directory)


def azurite_command() -> str | None:
    """Azurite's blob server: the project's npm install, else one on the PATH."""
    local = ROOT / "node_modules" / ".bin" / "azurite-blob"
    return str(local) if local.exists() else shutil.which("azurite-blob")


def start_azurite() -> StoreServer:
    """Azurite's blob service on a free loopback port, keeping its data in a temporary
    directory."""
    command = azurite_command()
    if command is None:
        raise StoreUnavailable("Azurite is not installed (npm devDependency: npm ci, which "
                               "./dev test runs)")
    try:
        import azure.storage.blob  # noqa: F401
    except ImportError:
        raise StoreUnavailable("azure-storage-blob is not installed (the test extra)") from None
    port = free_port()
    directory = Path(tempfile.mkdtemp(prefix="seqcore-azurite-"))
    log = directory / "server.log"
    with open(log, "wb") as out:
        process = subprocess.Popen([command, "--blobHost", "127.0.0.1", "--blobPort",
                                    str(port), "--location", str(directory / "data"),
                                    "--silent", "--skipApiVersionCheck", "--loose"],
                                   stdout=out, stderr=subprocess.STDOUT, cwd=directory)
    _wait_listening(port, process, "Azurite", log)
    return StoreServer("azure", f"http://127.0.0.1:{port}/{AZURITE_ACCOUNT}", process,
                       directory)


def start(kind: str) -> StoreServer:
    return start_s3() if kind == "s3" else start_azurite()
