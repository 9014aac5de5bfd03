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

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from workbench.errors import quoted
from workbench.model.errors import OrganizationError
from workbench.model.notation import format_organization, parse_organization
from workbench.validation import Domain, Flag, LazyInstance, MappingOf, Text, is_number, parameter_error, validate

__all__ = ["Occurrences", "natural_key", "DocumentIds", "IDS", "CLUSTERS", "LEVELS", "Grade", "GRADE", "GRADES",
           "Organization"]

if TYPE_CHECKING:
    import pandas as pd

Cluster = frozenset[str]
Level = tuple[Cluster, ...]


class Occurrences(NamedTuple):
    """An organization flattened to arrays, one entry per occurrence (a finite rest last, as a bottom level
    of singleton clusters): ``document`` (str), ``level`` (0 = highest; the rest is ``len(levels)``),
    ``cluster`` (numbered across levels)."""

    document: np.ndarray
    level: np.ndarray
    cluster: np.ndarray

    @classmethod
    def of_ranking(cls, documents: np.ndarray) -> Occurrences:
        """A ranking's occurrences from its documents best first (an object array), as
        :attr:`Organization.occurrences` reads them off its levels: level and cluster are the rank.

        >>> Occurrences.of_ranking(np.array(["d2", "d1"], dtype=object)).level.tolist()
        [0, 1]
        """
        rank = np.arange(len(documents), dtype=np.int64)
        return cls(documents, rank, rank)


@lru_cache(maxsize=1 << 16)
def natural_key(doc: str) -> tuple:
    """Sort key that puts ``d2`` before ``d10`` (remembered for the last 65,536 ids: the workbench sorts the same
    documents again on every edit).

    >>> sorted(["d10", "d2", "a"], key=natural_key)
    ['a', 'd2', 'd10']
    """
    return tuple(int(part) if part.isdecimal() else part for part in re.split(r"(\d+)", doc))


def _collection(value: object) -> bool:
    """A collection whose items are read (a list, tuple, set, array...), not one string or a mapping."""
    return isinstance(value, Collection) and not isinstance(value, str | bytes | Mapping)


_NAMES = {1: "id", 2: "cluster", 3: "level"}


def _fault(items: Collection, depth: int, above: str = "") -> tuple[str, bool] | None:
    """Where ``items`` is not ``depth`` collections deep around non-empty strings (inner collections not empty),
    and whether the fault is one of type; None when it is."""
    if depth == 1:
        if all(isinstance(doc, str) and doc for doc in items):  # the common case in one pass
            return None
        i, doc = next((i, doc) for i, doc in enumerate(items, start=1) if not (isinstance(doc, str) and doc))
        return f"{above}id {i} is {quoted(doc)}", not isinstance(doc, str)
    for i, item in enumerate(items, start=1):
        if not _collection(item):
            string = " (one string: write it in a list)" if isinstance(item, str) else ""
            return f"{above}{_NAMES[depth]} {i} is {quoted(item)}, not a collection{string}", True
        if len(item) == 0:
            return f"{above}{_NAMES[depth]} {i} is empty", False
        found = _fault(item, depth - 1, f"{above}{_NAMES[depth]} {i}, ")
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class DocumentIds(Domain):
    """Document ids nested ``depth`` collections deep: 1, a list of ids (non-empty strings); 2, a list of clusters
    (non-empty collections of ids); 3, a list of levels (non-empty collections of clusters). Never one string,
    which would read as its characters; the reason names the place at fault.

    >>> DocumentIds(2).reason([["d1"], []])
    'must be a list of clusters (non-empty collections of document ids) (cluster 2 is empty)'
    >>> DocumentIds().reason("d1 d2"), DocumentIds(3).reason([[["d1", 2]]])[-31:]
    ('must be a list of document ids (non-empty strings)', '(level 1, cluster 1, id 2 is 2)')
    """

    depth: int = 1
    optional: bool = False

    def __str__(self) -> str:
        what = {1: "a list of document ids (non-empty strings)",
                2: "a list of clusters (non-empty collections of document ids)",
                3: "a list of levels (non-empty collections of clusters, each a non-empty set of document ids)"}
        return what[self.depth] + (" or None" if self.optional else "")

    def reason(self, value: Any) -> str | None:
        if value is None and self.optional:
            return None
        if not _collection(value):
            return f"must be {self}"
        found = _fault(value, self.depth)
        return None if found is None else f"must be {self} ({found[0]})"

    def wrong_type(self, value: Any) -> bool:
        if value is None and self.optional:
            return False
        if not _collection(value):
            return True
        found = _fault(value, self.depth)
        return found is not None and found[1]

    def outside(self) -> tuple:
        found: tuple = ("d1 d2", 5) + (() if self.optional else (None,))
        return found + {1: ([3], [""]), 2: ([[]], [["d1"], "d2"]), 3: ([[]], [[[]]], [["d1"]])}[self.depth]


IDS = DocumentIds()
"""The domain of a list of document ids (a ranking, the positive documents, a rest)."""
CLUSTERS = DocumentIds(2)
"""The domain of a list of clusters (one level)."""
LEVELS = DocumentIds(3)
"""The domain of an organization's levels."""


@dataclass(frozen=True)
class Grade(Domain):
    """A relevance grade: a real number a double holds, infinities too (True and False count as 1 and 0); not NaN,
    not text, not an integer beyond a double's range.

    >>> Grade().reason(2), Grade().reason(float("nan"))
    (None, 'must be a number (not NaN, within a double)')
    >>> Grade().reason(10 ** 400)
    'must be a number (not NaN, within a double); it is too large for a double'
    """

    def __str__(self) -> str:
        return "a number (not NaN, within a double)"

    def reason(self, value: Any) -> str | None:
        if not (is_number(value) or isinstance(value, bool | np.bool_)):
            return f"must be {self}"
        try:
            number = float(value)
        except OverflowError:  # an integer past a double
            return f"must be {self}; it is too large for a double"
        return None if number == number else f"must be {self}"

    def wrong_type(self, value: Any) -> bool:
        return not (is_number(value) or isinstance(value, bool | np.bool_))

    def outside(self) -> tuple:
        return ("2", float("nan"), 10 ** 400)


GRADE = Grade()
"""The domain of a grade (a level's, or a document's in :meth:`Organization.from_graded`)."""


@dataclass(frozen=True)
class _Grades(Domain):
    """One :class:`Grade` per level, or None."""

    def __str__(self) -> str:
        return "a list of grades (numbers, not NaN, within a double), or None"

    def reason(self, value: Any) -> str | None:
        if value is None:
            return None
        if not _collection(value):
            return f"must be {self}"
        for i, grade in enumerate(value, start=1):
            if GRADE.reason(grade) is not None:
                return f"must be {self} (grade {i} is {quoted(grade)})"
        return None

    def wrong_type(self, value: Any) -> bool:
        return value is not None and (not _collection(value) or any(map(GRADE.wrong_type, value)))

    def outside(self) -> tuple:
        return ("3", [float("nan")], ["x"])


GRADES = _Grades()
"""The domain of an organization's ``grades``."""


FRAME = LazyInstance(("pandas:DataFrame",), "a DataFrame with columns document, level, cluster")
"""The domain of :meth:`Organization.from_frame`'s frame (pandas is not loaded to check it)."""


@dataclass(frozen=True)
class Organization:
    """Priority levels (highest first), each a tuple of clusters (non-empty frozensets of document ids).

    ``rest`` is ``None`` for an unlimited tail below the levels (ranking, the general task), or the finite set
    of documents that are neither prioritised nor clustered (filtering, clustering of a closed collection).
    ``grades`` optionally labels each level with its relevance grade (graded qrels; ranking gains use it).
    A document may occur in several clusters and levels (overlap), but not twice in one cluster, nor both in a
    level and in the rest. The constructor's arguments are declared (:data:`LEVELS`, :data:`IDS`,
    :data:`GRADES`); a document both in a level and in the rest is an :class:`OrganizationError`.
    """

    levels: tuple[Level, ...] = ()
    rest: frozenset[str] | None = None
    grades: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        levels = tuple(tuple(frozenset(cluster) for cluster in level) for level in self.levels)
        object.__setattr__(self, "levels", levels)
        rest = None if self.rest is None else frozenset(self.rest)
        object.__setattr__(self, "rest", rest)
        if self.grades is not None:
            if len(self.grades) != len(levels):
                raise parameter_error("Organization.__init__", "grades", self.grades, GRADES,
                                      f"must hold one grade per level ({len(levels)}), not {len(self.grades)}")
            object.__setattr__(self, "grades", tuple(map(float, self.grades)) if levels else None)
        if rest:
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
        """The flat arrays the metric kernels read (computed once: organizations are immutable). Few numpy calls,
        none per level or cluster: a campaign builds them for tens of thousands of small rankings."""
        levels = self.levels
        clusters = list(chain.from_iterable(levels))
        n_levels, n_clusters = len(levels), len(clusters)
        n_members = sum(map(len, clusters))
        cluster = np.arange(n_clusters, dtype=np.int64)
        level = (cluster if n_clusters == n_levels  # one cluster per level (rankings)
                 else np.repeat(np.arange(n_levels, dtype=np.int64), list(map(len, levels))))
        if n_members > n_clusters:  # clusters of several documents
            sizes = np.fromiter(map(len, clusters), dtype=np.int64, count=n_clusters)
            level, cluster = np.repeat(level, sizes), np.repeat(cluster, sizes)
        # Sorted members: the same organization gives the same arrays (and sums) in every process.
        members = chain.from_iterable(map(sorted, clusters) if n_members > n_clusters else clusters)
        rest = sorted(self.rest or ())  # a finite rest: a bottom level of singleton clusters
        if rest:
            level = np.concatenate((level, np.full(len(rest), n_levels, dtype=np.int64)))
            cluster = np.concatenate((cluster, np.arange(n_clusters, n_clusters + len(rest), dtype=np.int64)))
        names = np.fromiter(chain(members, rest), dtype=object, count=n_members + len(rest))
        return Occurrences(names, level, cluster)

    def __repr__(self) -> str:
        return f"Organization.parse({self.format()!r})"

    # ---------------------------------------------------------------------------------- notation
    @classmethod
    @validate(text=Text(empty=True))
    def parse(cls, text: str) -> Organization:
        """Read the papers' notation: one level per line, ``{d1 d2}`` a cluster, a bare id a singleton.

        ``#`` starts a comment, blank lines are ignored, commas separate like spaces, and an optional last
        line ``rest: d8 d9`` lists a finite rest (``rest:`` alone: an empty finite rest). A level may open
        with its grade in brackets, ``[3] d1 d2`` (all levels or none). A document id in double quotes is a JSON
        string, for ids that hold spaces, braces, brackets, commas, ``#`` or read as ``rest:``.
        Raises :class:`OrganizationError` naming line, column and token (any text is read or so refused: ids of
        any length, NUL and lone surrogates are ids like others; a grade beyond a double's range reads as infinite).
        """
        levels, rest, grades = parse_organization(text)
        return cls(levels, rest, grades)

    def format(self) -> str:
        """Write the notation back; ``Organization.parse(o.format()) == o`` for every organization (an id that is
        not a plain word, or reads as ``rest:``, is written as a JSON string: ``"rest:"``, ``"a b"``)."""
        return format_organization(self.levels, self.rest, self.grades, natural_key)

    # ------------------------------------------------------------------------------ constructors
    @classmethod
    @validate(ids=IDS)
    def from_ranking(cls, ids: Collection[str]) -> Organization:
        """A ranking: one document per level, best first, over an unlimited tail (Amigó et al., SIGIR 2013, Table 1)."""
        _reject_duplicates(ids, "ranking")
        ranking = cls(tuple((frozenset([doc]),) for doc in ids))
        # Its occurrences from the ids in hand, as :attr:`occurrences` computes them from the levels: 1.5 µs here
        # against 11 µs there for 50 ids, a campaign's scoring (issue 42) reading them for every ranking.
        ranking.__dict__["occurrences"] = Occurrences.of_ranking(np.fromiter(ids, dtype=object, count=len(ids)))
        return ranking

    @classmethod
    @validate(grades=MappingOf(Text(), GRADE, what="a mapping document id → grade"))
    def from_graded(cls, grades: Mapping[str, float]) -> Organization:
        """Graded relevance: one level per grade > 0, highest first, documents as singletons.

        Documents with grade ≤ 0 are not prioritised: they belong to the unlimited tail. Grades are numbers
        (a bool counts as 1/0); a string such as ``"2"`` or ``"True"`` is refused, not read as one.
        """
        by_grade: dict[float, list[str]] = {}
        for doc, grade in grades.items():
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
    @validate(positive=IDS, negative=IDS)
    def from_filtering(cls, positive: Collection[str], negative: Collection[str]) -> Organization:
        """Filtering: the positive documents as one level of singletons above a finite rest (Table 2)."""
        _reject_duplicates([*positive, *negative], "filtering")
        levels = (tuple(frozenset([d]) for d in positive),) if len(positive) else ()
        return cls(levels, frozenset(negative))

    @classmethod
    @validate(clusters=CLUSTERS, rest=DocumentIds(optional=True))
    def from_clustering(cls, clusters: Collection[Collection[str]], rest: Collection[str] | None = None
                        ) -> Organization:
        """Clustering of a closed collection: one level of clusters over a finite rest (Tables 3–4)."""
        for i, cluster in enumerate(clusters, start=1):
            _reject_duplicates(cluster, f"cluster {i}")
        level = tuple(frozenset(cluster) for cluster in clusters)
        return cls((level,) if level else (), frozenset(() if rest is None else rest))

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
    @validate(frame=FRAME, finite=Flag(optional=True))
    def from_frame(cls, frame: pd.DataFrame, finite: bool | None = None) -> Organization:
        """Inverse of :meth:`to_frame`. ``finite`` defaults to ``frame.attrs["finite"]``, else to whether
        any row has a missing level (a rest document)."""
        import pandas as pd

        missing = {"document", "level", "cluster"} - set(frame.columns)
        if missing:
            raise OrganizationError(f"frame lacks column(s) {sorted(missing)}; expected document, level, cluster")
        clusters: dict[tuple[int, object], dict[str, None]] = {}  # members in order, as a dict
        rest: list[str] = []
        for row_no, (doc, level, cluster) in enumerate(
            frame[["document", "level", "cluster"]].itertuples(index=False), start=1
        ):
            if is_number(doc) and doc == doc:  # an id written as a number
                doc = str(doc)
            if not isinstance(doc, str) or not doc:
                raise OrganizationError(f"row {row_no}: a document id is a non-empty string, got {quoted(doc)}",
                                        line=row_no)
            if pd.isna(level):
                rest.append(doc)
                continue
            try:
                level_no = int(level)
                members = clusters.setdefault((level_no, cluster), {})
            except (TypeError, ValueError, OverflowError):
                raise OrganizationError(f"row {row_no}: level {quoted(level)} of cluster {quoted(cluster)} is not a "
                                        "level number and a cluster", line=row_no) from None
            if doc in members:
                raise OrganizationError(
                    f"row {row_no}: document {doc!r} twice in cluster {cluster!r} of level {level_no}",
                    line=row_no,
                    token=doc,
                )
            members[doc] = None
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


def _reject_duplicates(ids: Iterable[str], where: str) -> None:
    seen: set[str] = set()
    for doc in ids:
        if doc in seen:
            raise OrganizationError(f"document {doc!r} occurs twice in the {where}", token=str(doc))
        seen.add(doc)


Organization.__init__ = validate(levels=LEVELS, rest=DocumentIds(optional=True), grades=GRADES)(  # type: ignore[method-assign]
    Organization.__init__)
