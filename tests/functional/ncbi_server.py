"""A stand-in for NCBI's submission FTP account: a real FTP server (pyftpdlib) on loopback,
whose directory the test fills with NCBI-shaped ``report.xml`` answers, and which can cut a
connection in the middle of a transfer, as a lost network does.

It records what clients did: every ``STOR`` (name and restart offset) and how many bytes
each file received over all connections, so a test can tell a resumed upload from a
repeated one.
"""

from __future__ import annotations

import logging
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import quoteattr

from pyftpdlib.authorizers import DummyAuthorizer
from pyftpdlib.handlers import DTPHandler, FTPHandler
from pyftpdlib.servers import ThreadedFTPServer

USER = "ncbi-centre"
PASSWORD = "ftp-Secret-for-the-NCBI-account-7"
SUBMIT = "submit/Test"


@dataclass
class Record:
    stors: list[tuple[str, int]] = field(default_factory=list)
    received: Counter = field(default_factory=Counter)
    drops: list[str] = field(default_factory=list)
    # name -> bytes after which the connection is cut, once
    cut_after: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


class CuttingDTPHandler(DTPHandler):
    """Counts what each file receives; cuts the control and data connections once a file
    named in ``record.cut_after`` has received that many bytes."""

    record: Record

    def handle_read(self) -> None:
        before = self.tot_bytes_received
        super().handle_read()
        name = Path(getattr(self.file_obj, "name", "") or "").name
        record = self.record
        with record.lock:
            record.received[name] += self.tot_bytes_received - before
            limit = record.cut_after.get(name)
            cut = limit is not None and self.tot_bytes_received >= limit
            if cut:
                del record.cut_after[name]
                record.drops.append(name)
        if cut:
            self.file_obj.flush()
            self.cmd_channel.close()  # the client's control connection dies with the data

    handle_read_event = handle_read  # pyftpdlib calls this name (an alias in its class)


class RecordingHandler(FTPHandler):
    record: Record

    def ftp_STOR(self, file: str, mode: str = "w") -> object:
        with self.record.lock:
            self.record.stors.append((Path(file).name, self._restart_position))
        return super().ftp_STOR(file, mode)


class NcbiFtpServer:
    """The server, its home directory, and what it saw."""

    def __init__(self, home: Path) -> None:
        self.home = home
        (home / SUBMIT).mkdir(parents=True)
        self.record = Record()
        authorizer = DummyAuthorizer()
        authorizer.add_user(USER, PASSWORD, str(home), perm="elradfmwMT")
        dtp = type("DTP", (CuttingDTPHandler,), {"record": self.record})
        handler = type("Handler", (RecordingHandler,), {
            "record": self.record, "authorizer": authorizer, "dtp_handler": dtp,
            "passive_ports": None, "banner": "NCBI stand-in"})
        logging.getLogger("pyftpdlib").setLevel(logging.WARNING)
        self.server = ThreadedFTPServer(("127.0.0.1", 0), handler)
        self.port = self.server.address[1]
        self.thread = threading.Thread(target=self.server.serve_forever,
                                       kwargs={"timeout": 0.05}, daemon=True)

    def start(self) -> NcbiFtpServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.close_all()
        self.thread.join(timeout=10)

    def settings(self) -> dict[str, object]:
        return {"seqcore.ncbi.ftp_host": "127.0.0.1", "seqcore.ncbi.ftp_port": self.port,
                "seqcore.ncbi.ftp_user": USER, "seqcore.ncbi.ftp_password": PASSWORD,
                "seqcore.ncbi.ftp_directory": SUBMIT, "seqcore.ncbi.ftp_timeout": 10,
                "seqcore.ncbi.retry_seconds": 0, "seqcore.ncbi.poll_seconds": 0}

    def directory(self, name: str) -> Path:
        return self.home / SUBMIT / name

    def answer(self, name: str, xml: str, numbered: int | None = None) -> None:
        """NCBI writes its answer into the submission's directory (``report.xml``, or
        ``report.<n>.xml``)."""
        target = "report.xml" if numbered is None else f"report.{numbered}.xml"
        (self.directory(name) / target).write_text(xml, encoding="utf-8")


def report_xml(ncbi_id: str, status: str, actions: list[dict[str, str | None]]) -> str:
    """A ``report.xml`` shaped as NCBI writes them: ``SubmissionStatus`` with one ``Action``
    per action (``spuid``, ``db``, ``status``, and an ``accession`` once assigned, or an
    error ``message``)."""
    lines = ["<?xml version='1.0' encoding='utf-8'?>",
             f'<SubmissionStatus status="{status}" submission_id="{ncbi_id}" '
             'last_update="2026-11-26T13:11:03.819535">']
    for action in actions:
        spuid = str(action["spuid"])
        db = str(action["db"])
        action_id = quoteattr(f"{ncbi_id}-{spuid.lower()}")
        lines.append(f'  <Action action_id={action_id} target_db="{db}" '
                     f'status="{action["status"]}" notify_submitter="true">')
        lines.append(f'    <Response status="{action["status"]}">')
        if action.get("message"):
            lines.append(f'      <Message severity="error">{action["message"]}</Message>')
        if action.get("accession"):
            lines.append(f'      <Object target_db="{db}" object_id="1" status="new" '
                         f'accession="{action["accession"]}" spuid={quoteattr(spuid)} '
                         f'spuid_namespace="PHL"/>')
        lines.append("    </Response>")
        lines.append("  </Action>")
    lines.append("</SubmissionStatus>")
    return "\n".join(lines) + "\n"
