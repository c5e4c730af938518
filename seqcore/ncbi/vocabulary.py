"""What an NCBI submission may say: instrument models, library strategies, sources and
selections, and the BioSample packages with their mandatory attributes.

The built-in lists are IRIDA's (its ``NcbiInstrumentModel``, ``NcbiPlatform``,
``NcbiLibraryStrategy``, ``NcbiLibrarySource`` and ``NcbiLibrarySelection``, with three of its
model names corrected: ``HiSeq X Ten``, and no trailing space on ``DNBSEQ-T7`` and
``AB 3730xL Genetic Analyzer``), and three BioSample packages public-health laboratories
use, with the attributes NCBI makes mandatory in each. NCBI adds models and packages from
time to time: ``seqcore.ncbi.vocabulary`` names a JSON file whose keys replace the built-in
lists one by one (``docs/ncbi.md``). The file is read and checked when the application
starts; a bad one stops the start with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

INSTRUMENT_MODELS: dict[str, tuple[str, ...]] = {
    "BGISEQ": ("BGISEQ-500", "DNBSEQ-G50", "DNBSEQ-G400", "DNBSEQ-T7", "MGISEQ-2000RS"),
    "CAPILLARY": ("AB 310 Genetic Analyzer", "AB 3130 Genetic Analyzer",
                  "AB 3130xL Genetic Analyzer", "AB 3730 Genetic Analyzer",
                  "AB 3730xL Genetic Analyzer"),
    "HELICOS": ("Helicos HeliScope",),
    "ILLUMINA": ("HiSeq X Five", "HiSeq X Ten", "Illumina Genome Analyzer",
                 "Illumina Genome Analyzer II", "Illumina Genome Analyzer IIx",
                 "Illumina HiScanSQ", "Illumina HiSeq 1000", "Illumina HiSeq 1500",
                 "Illumina HiSeq 2000", "Illumina HiSeq 2500", "Illumina HiSeq 3000",
                 "Illumina HiSeq 4000", "Illumina HiSeq X", "Illumina iSeq 100",
                 "Illumina MiSeq", "Illumina MiniSeq", "Illumina NovaSeq 6000",
                 "NextSeq 500", "NextSeq 550", "NextSeq 1000", "NextSeq 2000"),
    "ION_TORRENT": ("Ion GeneStudio S5", "Ion GeneStudio S5 Plus", "Ion GeneStudio S5 Prime",
                    "Ion Torrent PGM", "Ion Torrent Proton", "Ion Torrent S5",
                    "Ion Torrent S5 XL", "unspecified"),
    "LS454": ("454 GS", "454 GS 20", "454 GS FLX", "454 GS FLX Titanium", "454 GS FLX+",
              "454 GS Junior"),
    "OXFORD_NANOPORE": ("GridION", "MinION", "PromethION"),
    "PACBIO_SMRT": ("PacBio RS", "PacBio RS II", "Sequel", "Sequel II"),
}

LIBRARY_STRATEGIES = (
    "WGS", "AMPLICON", "Bisulfite-Seq", "CLONEEND", "CLONE", "CTS", "ChIP-Seq",
    "DNase-Hypersensitivity", "EST", "FINISHING", "FL-cDNA", "MBD-Seq", "MNase-Seq",
    "MRE-Seq", "MeDIP-Seq", "OTHER", "POOLCLONE", "RNA-Seq", "WCS", "WXS")

LIBRARY_SOURCES = ("GENOMIC", "METAGENOMIC", "METATRANSCRIPTOMIC", "OTHER", "SYNTHETIC",
                   "TRANSCRIPTOMIC", "VIRAL RNA")

LIBRARY_SELECTIONS = (
    "RANDOM", "5-methylcytidine antibody", "CAGE", "CF-H", "CF-M", "CF-S", "CF-T", "ChIP",
    "DNAse", "HMPR", "Hybrid Selection", "MBD2 protein methyl-CpG binding domain", "MF",
    "MNase", "MSLL", "PCR", "RACE", "RANDOM PCR", "RT-PCR", "Reduced Representation",
    "Restriction Digest", "cDNA", "other", "size fractionation", "unspecified")


@dataclass(frozen=True)
class Package:
    """A BioSample package: the attributes every sample must have (``required``) and the
    groups of which each sample needs at least one (``one_of``: strain or isolate)."""

    name: str
    required: tuple[str, ...]
    one_of: tuple[tuple[str, ...], ...] = ()


PACKAGES = {package.name: package for package in (
    Package("Pathogen.cl.1.0",
            ("sample_name", "organism", "collected_by", "collection_date", "geo_loc_name",
             "host", "host_disease", "isolation_source", "lat_lon"),
            (("strain", "isolate"),)),
    Package("Pathogen.env.1.0",
            ("sample_name", "organism", "collected_by", "collection_date", "geo_loc_name",
             "isolation_source", "lat_lon"),
            (("strain", "isolate"),)),
    Package("Microbe.1.0",
            ("sample_name", "organism", "collection_date", "geo_loc_name", "sample_type"),
            (("strain", "isolate"), ("host", "isolation_source"))),
)}


@dataclass(frozen=True)
class Vocabulary:
    """The values a submission's library fields may take and the packages it may name."""

    instrument_models: Mapping[str, tuple[str, ...]] = field(
        default_factory=lambda: MappingProxyType(INSTRUMENT_MODELS))
    library_strategies: tuple[str, ...] = LIBRARY_STRATEGIES
    library_sources: tuple[str, ...] = LIBRARY_SOURCES
    library_selections: tuple[str, ...] = LIBRARY_SELECTIONS
    packages: Mapping[str, Package] = field(default_factory=lambda: MappingProxyType(PACKAGES))
    origin: str = "built in"

    @property
    def models(self) -> tuple[str, ...]:
        """Every instrument model, platform by platform."""
        return tuple(model for models in self.instrument_models.values() for model in models)

    def platform(self, model: str) -> str | None:
        for platform, models in self.instrument_models.items():
            if model in models:
                return platform
        return None

    def as_dict(self) -> dict[str, Any]:
        """The vocabulary in the file format (what a client may send)."""
        return {
            "instrumentModels": {k: list(v) for k, v in self.instrument_models.items()},
            "libraryStrategies": list(self.library_strategies),
            "librarySources": list(self.library_sources),
            "librarySelections": list(self.library_selections),
            "packages": {name: {"required": list(p.required),
                                "oneOf": [list(group) for group in p.one_of]}
                         for name, p in self.packages.items()},
        }


def _strings(value: Any, key: str) -> tuple[str, ...]:
    if (not isinstance(value, list) or not value
            or not all(isinstance(v, str) and v.strip() == v and v for v in value)):
        raise ValueError(f"'{key}' must be a non-empty list of strings without surrounding "
                         "spaces")
    return tuple(value)


def _packages(value: Any) -> dict[str, Package]:
    if not isinstance(value, dict) or not value:
        raise ValueError("'packages' must be an object of package name: {\"required\": [...], "
                         "\"oneOf\": [[...]]}")
    packages = {}
    for name, spec in value.items():
        if not isinstance(spec, dict) or set(spec) - {"required", "oneOf"}:
            raise ValueError(f"package {name!r} must be an object with 'required' and "
                             "optionally 'oneOf'")
        required = _strings(spec.get("required"), f"packages.{name}.required")
        groups = spec.get("oneOf", [])
        if not isinstance(groups, list):
            raise ValueError(f"'packages.{name}.oneOf' must be a list of lists")
        one_of = tuple(_strings(group, f"packages.{name}.oneOf") for group in groups)
        packages[name] = Package(name, required, one_of)
    return packages


def load_vocabulary(data: Mapping[str, Any], origin: str) -> Vocabulary:
    """A vocabulary from the file format; keys left out keep the built-in lists."""
    known = {"instrumentModels", "libraryStrategies", "librarySources", "librarySelections",
             "packages"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ValueError(f"unknown key(s) {', '.join(unknown)}; known: "
                         f"{', '.join(sorted(known))}")
    values: dict[str, Any] = {"origin": origin}
    if "instrumentModels" in data:
        models = data["instrumentModels"]
        if not isinstance(models, dict) or not models:
            raise ValueError("'instrumentModels' must be an object of platform: [models]")
        values["instrument_models"] = MappingProxyType(
            {platform: _strings(names, f"instrumentModels.{platform}")
             for platform, names in models.items()})
    for key, attr in (("libraryStrategies", "library_strategies"),
                      ("librarySources", "library_sources"),
                      ("librarySelections", "library_selections")):
        if key in data:
            values[attr] = _strings(data[key], key)
    if "packages" in data:
        values["packages"] = MappingProxyType(_packages(data["packages"]))
    return Vocabulary(**values)


def vocabulary_setting(value: Any) -> Vocabulary:
    """The ``seqcore.ncbi.vocabulary`` setting: empty for the built-in vocabulary, else the
    path of a JSON file in the format of :meth:`Vocabulary.as_dict`."""
    if isinstance(value, Vocabulary):
        return value
    text = str(value or "").strip()
    if not text:
        return Vocabulary()
    path = Path(text)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ValueError(f"cannot read {path}: {err.strerror}") from err
    except json.JSONDecodeError as err:
        raise ValueError(f"{path} is not JSON: {err}") from err
    if not isinstance(data, dict):
        raise ValueError(f"{path} must hold a JSON object")
    return load_vocabulary(data, str(path))


vocabulary_setting.type_name = "path of a JSON file"  # type: ignore[attr-defined]


def one_of(allowed: Sequence[str]) -> str:
    return ", ".join(repr(value) for value in allowed)
