"""What a FASTQ file's name says: the sample it belongs to and its mate, as IRIDA's
uploaders read sequencer output.

Illumina names files ``<sample>_S<n>_L<lane>_R<read>_<set>.fastq.gz``; other tools write
``<sample>_R1.fastq`` or ``<sample>_1.fq.gz``. The sample's name is what comes before the
read number, without the sample number and lane Illumina adds
(``S1_R1_001.fastq.gz`` and ``ecoli_S3_L001_R1_001.fastq.gz`` are samples ``S1`` and
``ecoli``); two files whose names differ only in ``R1``/``R2`` (or ``1``/``2``) are one
pair, forward first; any other file is single-end. Whether the files hold reads is the
upload's content check's to say, not the name's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

#: FASTQ extensions, compressed or not; other names lose their last extension only.
EXTENSION = re.compile(r"\.(?:fastq|fq)(?:\.gz)?$|\.[^.]+$", re.IGNORECASE)
#: The read number at the end of the name, with Illumina's set number after it.
READ = re.compile(r"^(?P<stem>.+?)_(?P<read>R?[12])(?P<set>_[0-9]{3})?$")
#: Illumina's sample number and lane, which are not part of the sample's name.
ILLUMINA = re.compile(r"(?:_S[0-9]+)?(?:_L[0-9]{3})?$")


@dataclass(frozen=True)
class FastqName:
    """One file's name, read: its sample, its read (1, 2, or ``None``: single-end) and the
    key its mate shares (the name with the read number taken out)."""

    file_name: str
    sample_name: str
    read: int | None
    mate_key: str


@dataclass(frozen=True)
class FileGroup:
    """Files that make one sequencing object of one sample: a pair (forward first) or one
    single-end file."""

    sample_name: str
    file_names: tuple[str, ...]

    @property
    def paired(self) -> bool:
        return len(self.file_names) == 2


def read_name(file_name: str) -> FastqName:
    """The sample and read a file's name gives."""
    extension = EXTENSION.search(file_name)
    base = file_name[:extension.start()] if extension and extension.start() else file_name
    suffix = file_name[len(base):]
    match = READ.match(base)
    if match is None:
        return FastqName(file_name, base, None, file_name)
    stem = match["stem"]
    sample = ILLUMINA.sub("", stem) or stem
    return FastqName(file_name, sample, int(match["read"][-1]),
                     f"{stem}\0{match['set'] or ''}\0{suffix}")


def group_files(file_names: Sequence[str]) -> list[FileGroup]:
    """The objects ``file_names`` make, in the order of their first file: two files of the
    same key, one read 1 and one read 2, are a pair; every other file stands alone."""
    names = [read_name(name) for name in file_names]
    mates: dict[str, list[FastqName]] = {}
    for name in names:
        if name.read is not None:
            mates.setdefault(name.mate_key, []).append(name)
    groups: list[FileGroup] = []
    done: set[str] = set()
    for name in names:
        if name.file_name in done:
            continue
        both = mates.get(name.mate_key, []) if name.read is not None else []
        if len(both) == 2 and {m.read for m in both} == {1, 2}:
            forward, reverse = sorted(both, key=lambda m: m.read or 0)
            groups.append(FileGroup(name.sample_name, (forward.file_name, reverse.file_name)))
            done.update((forward.file_name, reverse.file_name))
        else:
            groups.append(FileGroup(name.sample_name, (name.file_name,)))
            done.add(name.file_name)
    return groups


__all__ = ["FastqName", "FileGroup", "group_files", "read_name"]
