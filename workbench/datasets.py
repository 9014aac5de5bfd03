"""The papers' worked examples, shipped as data in the repository's top-level ``datasets/`` folder.

    >>> from workbench import datasets
    >>> table9 = datasets.load("seed000-table9")
    >>> table9.params, table9.printed["System Output 4"]["R≺"]
    ({'n': 10, 'wn': 0.8}, 0.95)
    >>> print(table9.gold.format())
    d1 {d2 d3 d4}
    {d4 d5} {d6 d7}
    {d6 d7}

``.org`` files hold a gold standard and outputs in the papers' notation (:class:`Example`); ``.csv`` files
load as pandas DataFrames with ``attrs["title"]`` and ``attrs["source"]``. The folder is the repository's
(a source checkout or an editable install, ``pip install -e .``), or the copy a wheel carries as
``workbench/examples/`` (``setup.py`` maps ``datasets/`` there at build time), or wherever the environment
variable ``WORKBENCH_DATASETS`` points.

Real campaigns are fetched: ``fetch("trec-robust-2003")`` makes a public sample's files in the user's cache (once,
each checked by SHA-256: downloaded from its repository pinned to a commit, cut from public files, or copied from
the package) and returns its folder; ``fetchable()`` lists the names (:mod:`workbench.data.samples`).
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from workbench.data.samples import (  # noqa: F401 (the public names of this module)
    ChecksumError,
    DownloadError,
    SampleError,
    fetch,
    fetchable,
    remove,
)
from workbench.errors import InputError, excerpt, quoted
from workbench.model import Organization, OrganizationError
from workbench.scalars import parse_scalar
from workbench.validation import Choices, FilePath, ListOf, Text, check, validate

__all__ = ["SUFFIXES", "DatasetError", "Example", "folder", "shared", "names", "path", "available", "load",
           "parse_example"]

if TYPE_CHECKING:
    import pandas as pd

SUFFIXES = (".org", ".csv")
_DIRECTIVE = re.compile(r"@(\w+)\s*(.*)")


class DatasetError(InputError):
    """An unknown dataset name, a missing folder, or a malformed file (with file and line)."""


@dataclass(frozen=True)
class Example:
    """A worked example: one gold standard, named outputs, and the values the paper prints for each.

    ``printed`` maps ``"gold"`` or an output's name to ``{measure: value}``; ``params`` holds the
    parameters the paper used (e.g. ``n=10, wn=0.8``).
    """

    name: str
    title: str
    source: str
    gold: Organization
    outputs: dict[str, Organization]
    params: dict[str, object] = field(default_factory=dict)
    printed: dict[str, dict[str, float]] = field(default_factory=dict)

    def __repr__(self) -> str:
        """Each field as :func:`~workbench.errors.quoted` shows it: never fails (a parameter of 5,000 digits is
        named by its size) and stays short."""
        shown = ", ".join(f"{f.name}={quoted(getattr(self, f.name), limit=200)}" for f in dataclasses.fields(self))
        return f"Example({shown})"

    def printed_frame(self) -> pd.DataFrame:
        """The printed values as a tidy table ``output, measure, printed``."""
        import pandas as pd

        rows = [(block, measure, value) for block, values in self.printed.items()
                for measure, value in values.items()]
        return pd.DataFrame(rows, columns=["output", "measure", "printed"])


def folder() -> Path:
    """The examples' folder: ``$WORKBENCH_DATASETS`` if set, else the copy an installed wheel carries
    (``workbench/examples``), else the repository's ``datasets/`` beside the package."""
    where = os.environ.get("WORKBENCH_DATASETS")
    package = Path(__file__).resolve().parent
    installed = package / "examples"
    path = Path(where) if where else installed if installed.is_dir() else package.parent / "datasets"
    if not path.is_dir():
        raise DatasetError(f"no datasets folder at {path}: the examples ship in the wheel and the source "
                           "repository; elsewhere set WORKBENCH_DATASETS to a datasets/ folder")
    return path


@validate(parts=ListOf(Text(), what="path parts"))
def shared(*parts: str) -> Path | None:
    """A path inside the project's reference copies of the campaign samples, or None where absent: its tests and
    benchmarks read them in place. They are looked up in ``$WORKBENCH_SHARED_DATASETS`` if set, else in a
    ``shared/datasets`` folder beside the repository, as the project's own checkout has it. Notebooks and users
    :func:`fetch` the samples instead.

    >>> shared("no-such-sample") is None
    True
    """
    where = os.environ.get("WORKBENCH_SHARED_DATASETS")
    root = Path(where) if where else Path(__file__).resolve().parents[2] / "shared" / "datasets"
    candidate = root.joinpath(*parts)
    return candidate if candidate.exists() else None


def names() -> list[str]:
    """Every dataset name, sorted (``seed000-table1`` …)."""
    return sorted(p.stem for p in folder().iterdir() if p.suffix in SUFFIXES)


@validate(name=Text())
def path(name: str) -> Path:
    """The file behind a dataset name (one of :func:`names`)."""
    return _file(name, "path")


def _file(name: str, function: str) -> Path:
    """The file of ``name``, a name :func:`names` lists (else the error naming ``function``)."""
    check(name, Choices(tuple(names())), "name", function)
    return next(file for suffix in SUFFIXES if (file := folder() / f"{name}{suffix}").is_file())


def available() -> pd.DataFrame:
    """One row per dataset: ``name, kind`` (``organizations`` or ``table``), ``title, source``."""
    import pandas as pd

    rows = []
    for name in names():
        file = path(name)
        meta = _csv_meta(file)[0] if file.suffix == ".csv" else _org_meta(file)
        rows.append((name, "table" if file.suffix == ".csv" else "organizations", meta.get("title", ""),
                     meta.get("source", "")))
    return pd.DataFrame(rows, columns=["name", "kind", "title", "source"])


@validate(name=Text())
def load(name: str) -> Example | pd.DataFrame:
    """An :class:`Example` for an ``.org`` dataset, a DataFrame (``attrs``: title, source) for a ``.csv``."""
    file = _file(name, "load")
    return _load_csv(file) if file.suffix == ".csv" else parse_example(file.read_text(encoding="utf-8"),
                                                                       name=name, file=file)


# ------------------------------------------------------------------------------------------------ .csv
def _csv_meta(file: Path) -> tuple[dict[str, str], int]:
    meta: dict[str, str] = {}
    lines = file.read_text(encoding="utf-8").splitlines()
    skip = 0
    for line in lines:
        if not line.startswith("#"):
            break
        key, _, value = line[1:].partition(":")
        meta[key.strip()] = value.strip()
        skip += 1
    return meta, skip


def _load_csv(file: Path) -> pd.DataFrame:
    import pandas as pd

    meta, skip = _csv_meta(file)
    frame = pd.read_csv(file, skiprows=skip)
    frame.attrs.update(meta)
    return frame


# ------------------------------------------------------------------------------------------------ .org
def _org_meta(file: Path) -> dict[str, str]:
    meta = {}
    for line in file.read_text(encoding="utf-8").splitlines():
        match = _DIRECTIVE.fullmatch(line.strip())
        if match and match.group(1) in ("title", "source"):
            meta[match.group(1)] = match.group(2)
    return meta


@validate(text=Text(empty=True), name=Text(empty=True), file=FilePath(optional=True))
def parse_example(text: str, name: str = "", file: Path | str | None = None) -> Example:
    """Read the sectioned ``.org`` format (see ``datasets/README.md``): ``@title``, ``@source``,
    ``@params k=v…``, ``@gold`` and ``@output NAME`` blocks in the notation, each optionally followed by
    ``@printed measure=value…`` (a value may be a fraction such as ``6/7``). A parameter is read as
    :func:`~workbench.scalars.parse_scalar` reads it; one written as a finite number that no number holds (a
    5,000-digit integer, ``1e999``) is refused with its line."""
    meta: dict[str, str] = {}
    params: dict[str, object] = {}
    blocks: dict[str, tuple[int, list[str]]] = {}
    printed: dict[str, dict[str, float]] = {}
    current: str | None = None
    for line_no, line in enumerate(text.splitlines(), start=1):
        match = _DIRECTIVE.fullmatch(line.strip())
        if not match:
            if current is None and line.split("#", 1)[0].strip():
                raise DatasetError(f"text before any @gold or @output: {quoted(line)}", path=file, line=line_no)
            if current is not None:
                blocks[current][1].append(line)
            continue
        key, value = match.group(1), match.group(2).strip()
        if key not in ("title", "source"):
            value = value.split("#", 1)[0].strip()
        if key in ("title", "source"):
            meta[key] = value
        elif key == "params":
            for item in value.split():
                k, sep, v = item.partition("=")
                if not sep:
                    raise DatasetError(f"@params wants key=value items, got {quoted(item)}", path=file, line=line_no)
                params[k] = _param(k, v, file, line_no)
        elif key in ("gold", "output"):
            current = "gold" if key == "gold" else value
            if not current or current in blocks:
                raise DatasetError(f"an @output needs a new name: {quoted(line)}", path=file, line=line_no)
            blocks[current] = (line_no + 1, [])
        elif key == "printed":
            if current is None:
                raise DatasetError("@printed comes after a @gold or @output block", path=file, line=line_no)
            printed[current] = _printed(value, file, line_no)
        else:
            raise DatasetError(f"unknown directive @{key} (known: title, source, params, gold, output, printed)",
                               path=file, line=line_no)
    if "gold" not in blocks:
        raise DatasetError("no @gold block", path=file)
    orgs = {}
    for block, (first, body) in blocks.items():
        try:
            orgs[block] = Organization.parse("\n".join(body))
        except OrganizationError as error:
            raise DatasetError(error.message, path=file, line=first + error.line - 1 if error.line else None,
                               column=error.column, where=block) from None
    gold = orgs.pop("gold")
    return Example(name, meta.get("title", ""), meta.get("source", ""), gold, orgs, params, printed)


def _param(key: str, text: str, file: object, line: int) -> object:
    """A ``@params`` value (:func:`~workbench.scalars.parse_scalar`), refused where a number written finite is
    read as infinite (its digits past what Python reads as an integer or a double holds)."""
    value = parse_scalar(text)
    if isinstance(value, float) and not math.isfinite(value) and not re.fullmatch(
            r"\s*['\"]?[+-]?(inf(inity)?|nan)['\"]?\s*", text, re.IGNORECASE):
        raise DatasetError(f"@params {key}={excerpt(text.strip(), 20)} is a number too large to read (it reads as "
                           "inf): write it smaller, or as a word", path=file, line=line)
    return value


def _printed(text: str, file: object, line: int) -> dict[str, float]:
    values = {}
    for item in text.split():
        measure, sep, value = item.partition("=")
        try:
            number = float(Fraction(value)) if sep and measure else None
        except (ValueError, ZeroDivisionError):
            number = None
        if number is None:
            raise DatasetError(f"@printed wants measure=number items, got {quoted(item)}", path=file, line=line)
        values[measure] = number
    return values
