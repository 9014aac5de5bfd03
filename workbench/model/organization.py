"""The document organization of Amigó et al., SIGIR 2013, §3: priority levels of clusters, over an unlimited tail or a
finite rest.

An :class:`Organization` is what a gold standard and a system output both are. Ranking, filtering and
clustering are special cases (Amigó et al., SIGIR 2013, Tables 1–5)::

    >>> gold = Organization.parse("d1 {d2 d3 d4}\\n{d4 d5} {d6 d7}\\n{d6 d7}")
    >>> [sorted(cluster) for cluster in gold.levels[1]]    # a level: a tuple of clusters (frozensets)
    [['d4', 'd5'], ['d6', 'd7']]
    >>> Organization.from_filtering(["d1"], ["d2", "d3"]).format()
    'd1\\nrest: d2 d3'
"""

from __future__ import annotations

import numbers
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple, TypeVar

import numpy as np

from workbench.errors import quoted
from workbench.model.errors import OrganizationError
from workbench.model.notation import format_organization, parse_organization

__all__ = ["Occurrences", "natural_key", "Organization"]

if TYPE_CHECKING:
    import pandas as pd
    from _typeshed import ConvertibleToFloat

Cluster = frozenset[str]
Level = tuple[Cluster, ...]


class Occurrences(NamedTuple):
    """An organization flattened to arrays, one entry per occurrence (a finite rest last, as a bottom level
    of singleton clusters): ``document`` (str), ``level`` (0 = highest; the rest is ``len(levels)``),
    ``cluster`` (numbered across levels)."""

    document: np.ndarray
    level: np.ndarray
    cluster: np.ndarray


def natural_key(doc: str) -> tuple:
    """Sort key that puts ``d2`` before ``d10``."""
    return tuple(int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", doc))


@dataclass(frozen=True)
class Organization:
    """Priority levels (highest first), each a tuple of clusters (non-empty frozensets of document ids).

    ``rest`` is ``None`` for an unlimited tail below the levels (ranking, the general task), or the finite set
    of documents that are neither prioritised nor clustered (filtering, clustering of a closed collection).
    ``grades`` optionally labels each level with its relevance grade (graded qrels; ranking gains use it).
    A document may occur in several clusters and levels (overlap), but not twice in one cluster, nor both in a
    level and in the rest.
    """

    levels: tuple[Level, ...] = ()
    rest: frozenset[str] | None = None
    grades: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        for name, value in (("levels", self.levels), ("rest", self.rest), ("grades", self.grades)):
            if isinstance(value, str):
                raise OrganizationError(f"{name} must be a collection, got the string {value!r} (to read the "
                                        "notation use Organization.parse)", token=value)
        try:
            levels = tuple(tuple(frozenset(_members(cluster, i)) for cluster in level)
                           for i, level in enumerate(self.levels, start=1))
            rest = None if self.rest is None else frozenset(self.rest)
        except TypeError as error:
            raise OrganizationError(f"levels are tuples of clusters (sets of document ids): {error}") from None
        object.__setattr__(self, "levels", levels)
        object.__setattr__(self, "rest", rest)
        if self.grades is not None:
            grades = tuple(_grade(g, i) for i, g in enumerate(self.grades, start=1))
            if len(grades) != len(levels):
                raise OrganizationError(f"{len(grades)} grades given for {len(levels)} levels")
            object.__setattr__(self, "grades", grades if levels else None)  # no level, no grade to carry
        for i, level in enumerate(levels, start=1):
            if not level:
                raise OrganizationError(f"level {i} has no cluster", line=i)
            for cluster in level:
                if not cluster:
                    raise OrganizationError(f"level {i} has an empty cluster", line=i)
                for doc in cluster:
                    if not isinstance(doc, str) or not doc:
                        raise OrganizationError(f"document ids must be non-empty strings, got {doc!r}", line=i)
        if rest:
            for doc in rest:
                if not isinstance(doc, str) or not doc:
                    raise OrganizationError(f"document ids must be non-empty strings, got {doc!r} in the rest",
                                            line=len(levels) + 1)
            clash = rest & self.prioritised
            if clash:
                doc = min(clash, key=natural_key)
                raise OrganizationError(f"document {doc!r} is both in a level and in rest:", token=doc)

    # ----------------------------------------------------------------------------------------- views
    @property
    def finite(self) -> bool:
        """True when a finite rest (possibly empty) replaces the unlimited tail."""
        return self.rest is not None

    @cached_property
    def prioritised(self) -> frozenset[str]:
        """The documents that occur in some level."""
        return frozenset(doc for level in self.levels for cluster in level for doc in cluster)

    @cached_property
    def documents(self) -> frozenset[str]:
        """Every document the organization names: its levels and its finite rest."""
        return self.prioritised | (self.rest or frozenset())

    @property
    def n_occurrences(self) -> int:
        """Number of (document, cluster) memberships in the levels."""
        return sum(len(cluster) for level in self.levels for cluster in level)

    @cached_property
    def occurrences(self) -> Occurrences:
        """The flat arrays the metric kernels read (computed once: organizations are immutable)."""
        clusters = [cluster for level in self.levels for cluster in level]
        sizes = np.fromiter(map(len, clusters), dtype=np.int64, count=len(clusters))
        level_of_cluster = np.fromiter((i for i, level in enumerate(self.levels) for _ in level), dtype=np.int64,
                                       count=len(clusters))
        rest = sorted(self.rest or ())
        # Sorted members: the same organization gives the same arrays (and sums) in every process.
        documents = [doc for cluster in clusters for doc in (sorted(cluster) if len(cluster) > 1 else cluster)]
        n_clusters, n_rest = len(clusters), len(rest)
        names = np.empty(len(documents) + n_rest, dtype=object)
        names[:len(documents)], names[len(documents):] = documents, rest
        return Occurrences(
            names,
            np.concatenate([np.repeat(level_of_cluster, sizes), np.full(n_rest, len(self.levels), dtype=np.int64)]),
            np.concatenate([np.repeat(np.arange(n_clusters, dtype=np.int64), sizes),
                            np.arange(n_clusters, n_clusters + n_rest, dtype=np.int64)]),
        )

    def __repr__(self) -> str:
        return f"Organization.parse({self.format()!r})"

    # ---------------------------------------------------------------------------------- notation
    @classmethod
    def parse(cls, text: str) -> Organization:
        """Read the papers' notation: one level per line, ``{d1 d2}`` a cluster, a bare id a singleton.

        ``#`` starts a comment, blank lines are ignored, commas separate like spaces, and an optional last
        line ``rest: d8 d9`` lists a finite rest (``rest:`` alone: an empty finite rest). A level may open
        with its grade in brackets, ``[3] d1 d2`` (all levels or none). A document id in double quotes is a JSON
        string, for ids that hold spaces, braces, brackets, commas, ``#`` or read as ``rest:``.
        Raises :class:`OrganizationError` naming line, column and token.
        """
        levels, rest, grades = parse_organization(text)
        return cls(levels, rest, grades)

    def format(self) -> str:
        """Write the notation back; ``Organization.parse(o.format()) == o`` for every organization (an id that is
        not a plain word, or reads as ``rest:``, is written as a JSON string: ``"rest:"``, ``"a b"``)."""
        return format_organization(self.levels, self.rest, self.grades, natural_key)

    # ------------------------------------------------------------------------------ constructors
    @classmethod
    def from_ranking(cls, ids: Iterable[str]) -> Organization:
        """A ranking: one document per level, best first, over an unlimited tail (Amigó et al., SIGIR 2013, Table 1)."""
        ids = _id_list(ids, "ranking")
        _reject_duplicates(ids, "ranking")
        return cls(tuple((frozenset([doc]),) for doc in ids))

    @classmethod
    def from_graded(cls, grades: Mapping[str, float]) -> Organization:
        """Graded relevance: one level per grade > 0, highest first, documents as singletons.

        Documents with grade ≤ 0 are not prioritised: they belong to the unlimited tail. Grades are numbers
        (a bool counts as 1/0); a string such as ``"2"`` or ``"True"`` is refused, not read as one.
        """
        if not isinstance(grades, Mapping):
            raise OrganizationError(f"grades must be a mapping document → grade, got {type(grades).__name__}")
        by_grade: dict[float, list[str]] = {}
        for doc, grade in grades.items():
            if not isinstance(grade, numbers.Real | np.bool_):
                raise OrganizationError(f"document {doc!r} has grade {quoted(grade)} ({type(grade).__name__}); "
                                        "grades are numbers", token=str(doc))
            if grade != grade:  # NaN
                raise OrganizationError(f"document {doc!r} has grade NaN", token=str(doc))
            try:
                float(grade)
            except OverflowError:  # an int past a double
                raise OrganizationError(f"document {doc!r} has grade {quoted(grade)}, too large for a double",
                                        token=str(doc)) from None
            if grade > 0:
                by_grade.setdefault(grade, []).append(doc)
        order = sorted(by_grade, reverse=True)
        return cls(tuple(tuple(frozenset([d]) for d in by_grade[g]) for g in order), grades=tuple(order))

    def grade_of(self) -> dict[str, float]:
        """Each prioritised document's gain: its level's grade, else ``levels - index`` (the top level
        of three gets 3, the bottom 1). A document in several levels takes the highest."""
        grades = self.grades or tuple(float(len(self.levels) - i) for i in range(len(self.levels)))
        out: dict[str, float] = {}
        for grade, level in zip(grades, self.levels, strict=True):
            for cluster in level:
                for doc in cluster:
                    out[doc] = max(grade, out.get(doc, grade))
        return out

    @classmethod
    def from_filtering(cls, positive: Iterable[str], negative: Iterable[str]) -> Organization:
        """Filtering: the positive documents as one level of singletons above a finite rest (Table 2)."""
        positive, negative = _id_list(positive, "positive"), _id_list(negative, "negative")
        _reject_duplicates(positive + negative, "filtering")
        levels = (tuple(frozenset([d]) for d in positive),) if positive else ()
        return cls(levels, frozenset(negative))

    @classmethod
    def from_clustering(cls, clusters: Iterable[Iterable[str]], rest: Iterable[str] | None = None) -> Organization:
        """Clustering of a closed collection: one level of clusters over a finite rest (Tables 3–4)."""
        level = []
        for i, cluster in enumerate(_id_list(clusters, "clusters"), start=1):
            members = _id_list(cluster, f"cluster {i}")
            _reject_duplicates(members, f"cluster {i}")
            if not members:
                raise OrganizationError(f"cluster {i} is empty")
            level.append(frozenset(members))
        return cls((tuple(level),) if level else (), frozenset(_id_list(rest or (), "rest")))

    # ---------------------------------------------------------------------------------- frames
    def to_frame(self) -> pd.DataFrame:
        """Long format: one row per occurrence, columns ``document, level, cluster`` (1-based).

        Documents of a finite rest have ``level`` and ``cluster`` missing (``<NA>``);
        ``df.attrs["finite"]`` tells a finite rest from an unlimited tail.
        """
        import pandas as pd

        rows: list[tuple[str, int | None, int | None]] = [
            (doc, li, ci)
            for li, level in enumerate(self.levels, start=1)
            for ci, cluster in enumerate(level, start=1)
            for doc in sorted(cluster, key=natural_key)
        ]
        rows += [(doc, None, None) for doc in sorted(self.rest or (), key=natural_key)]
        frame = pd.DataFrame(rows, columns=["document", "level", "cluster"])
        frame = frame.astype({"document": "string", "level": "Int64", "cluster": "Int64"})
        frame.attrs["finite"] = self.finite
        return frame

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, finite: bool | None = None) -> Organization:
        """Inverse of :meth:`to_frame`. ``finite`` defaults to ``frame.attrs["finite"]``, else to whether
        any row has a missing level (a rest document)."""
        import pandas as pd

        if not isinstance(frame, pd.DataFrame):
            raise OrganizationError(f"expected a DataFrame with columns document, level, cluster, got "
                                    f"{type(frame).__name__}")
        missing = {"document", "level", "cluster"} - set(frame.columns)
        if missing:
            raise OrganizationError(f"frame lacks column(s) {sorted(missing)}; expected document, level, cluster")
        clusters: dict[tuple[int, object], list[str]] = {}
        rest: list[str] = []
        for row_no, (doc, level, cluster) in enumerate(
            frame[["document", "level", "cluster"]].itertuples(index=False), start=1
        ):
            if pd.isna(level):
                rest.append(str(doc))
                continue
            try:
                level_no = int(level)
            except (TypeError, ValueError):
                raise OrganizationError(f"row {row_no}: level {level!r} is not an integer", line=row_no) from None
            members = clusters.setdefault((level_no, cluster), [])
            if str(doc) in members:
                raise OrganizationError(
                    f"row {row_no}: document {doc!r} twice in cluster {cluster!r} of level {level_no}",
                    line=row_no,
                    token=str(doc),
                )
            members.append(str(doc))
        level_numbers = sorted({level for level, _ in clusters})
        levels = tuple(
            tuple(frozenset(members) for (lv, _), members in clusters.items() if lv == number)
            for number in level_numbers
        )
        if finite is None:
            finite = frame.attrs.get("finite", bool(rest))
        if rest and not finite:
            raise OrganizationError("rows without a level form a finite rest, but finite=False was given")
        return cls(levels, frozenset(rest) if finite else None)


_Item = TypeVar("_Item")  # a document id, or a cluster of them


def _id_list(ids: Iterable[_Item], what: str) -> list[_Item]:
    """``ids`` as a list; a bare string is refused rather than read as its characters, and so is what is not
    iterable."""
    if isinstance(ids, str | bytes):
        raise OrganizationError(f"{what}: expected a list of document ids, got the string {ids!r} "
                                f"(write [{ids!r}], or {ids!r}.split() for several)")
    try:
        return list(ids)
    except TypeError:
        raise OrganizationError(f"{what} must be a collection of document ids, got {type(ids).__name__}") from None
def _members(cluster: Iterable[str], level: int) -> Iterable[str]:
    if isinstance(cluster, str):
        raise OrganizationError(f"level {level}: a cluster is a set of document ids, got the string {cluster!r} "
                                f"(write {{{cluster!r}}})", line=level, token=cluster)
    return cluster


def _grade(value: ConvertibleToFloat, level: int) -> float:
    try:
        grade = float(value)
    except OverflowError:
        raise OrganizationError(f"level {level}'s grade is too large for a double: {quoted(value)}",
                                line=level) from None
    except (TypeError, ValueError):
        raise OrganizationError(f"level {level}'s grade must be a number, got {quoted(value)}", line=level) from None
    if grade != grade:
        raise OrganizationError(f"level {level}'s grade is NaN", line=level)
    return grade


def _reject_duplicates(ids: Sequence[str], where: str) -> None:
    seen: set[str] = set()
    for doc in ids:
        if doc in seen:
            raise OrganizationError(f"document {doc!r} occurs twice in the {where}", token=str(doc))
        seen.add(doc)
