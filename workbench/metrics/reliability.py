"""Reliability and Sensitivity over priority and relatedness relations: R≺ S≺ R∼ S∼ (Amigó et al., SIGIR 2013, §3).

Reliability is the precision of the output's relations with respect to the gold's, Sensitivity their
recall; both weigh documents by position (eqs. 1–2) and compare relations occurrence by occurrence under
the reading the documentation's page ``docs/rs-engine.md`` writes out. Table 9 of Amigó et al., SIGIR 2013, output 5::

    >>> from workbench.model import Organization
    >>> gold = Organization.parse("d1 {d2 d3 d4}\\n{d4 d5} {d6 d7}\\n{d6 d7}")
    >>> swapped = Organization.parse("{d6 d7}\\n{d4 d5} {d6 d7}\\nd1 {d2 d3 d4}")
    >>> s = reliability_sensitivity(gold, swapped, n=10, wn=0.8)
    >>> tuple(round(value, 4) for value in (s.r_priority, s.s_priority, s.r_relatedness, s.s_relatedness))
    (0.6386, 0.5897, 1.0, 1.0)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from workbench.errors import ParameterError
from workbench.heap import small_pages
from workbench.metrics import relations
from workbench.metrics.combine import f_alpha
from workbench.metrics.document_codes import document_codes, document_index
from workbench.metrics.registry import ORGANIZATION, Choices, Explainer, Interval, Param, register
from workbench.model import Organization
from workbench.scalars import plain_number
from workbench.threads import in_threads
from workbench.validation import validate

__all__ = ["MISSING_DOCUMENT_POLICIES", "MISSING", "RSScores", "position_weights", "POSITIONS", "WEIGHT_OF_FIRST",
           "DISCOUNT_DOMAINS", "discount_constant", "aligned_views", "RS_ARGUMENTS", "scored_views",
           "reliability_sensitivity", "RS_FIELDS", "RS_MEASURES"]

_EXPLAINED = Explainer("workbench.metrics.explanations.organization:explain_organization")

MISSING_DOCUMENT_POLICIES = ("tail", "singleton", "replab")
"""Where a gold document an output lacks goes (``missing=``, :func:`aligned_views`): the tail, a singleton,
or RepLab's rule."""
MISSING = Choices(MISSING_DOCUMENT_POLICIES)
"""The domain of ``missing``."""


@dataclass(frozen=True)
class RSScores:
    """R≺ S≺ R∼ S∼ of one output against one gold, with the harmonic means F≺ and F∼."""

    r_priority: float
    s_priority: float
    r_relatedness: float
    s_relatedness: float

    @property
    def f_priority(self) -> float:
        return f_alpha(self.r_priority, self.s_priority)

    @property
    def f_relatedness(self) -> float:
        return f_alpha(self.r_relatedness, self.s_relatedness)

    def to_dict(self) -> dict[str, float]:
        return {
            "r_priority": self.r_priority,
            "s_priority": self.s_priority,
            "r_relatedness": self.r_relatedness,
            "s_relatedness": self.s_relatedness,
            "f_priority": self.f_priority,
            "f_relatedness": self.f_relatedness,
        }


# --------------------------------------------------------------------------------------------- weights
def position_weights(level_sizes: Sequence[int] | np.ndarray, c: float) -> tuple[np.ndarray, float]:
    """Per-level occurrence weight under the 1/x² discount and the weight of the unlimited tail.

    Eq. 2: the n_= occurrences of a level with n_> occurrences above share the interval
    w = (c/n_=)·(1/(c+n_>) − 1/(c+n_>+n_=)); the tail weighs c/(c+|X_r|) (Amigó et al., SIGIR 2013, §3.1).

    >>> w, tail = position_weights([1, 1], c=2.5)
    >>> [round(float(v), 4) for v in w], round(tail, 4)
    ([0.2857, 0.1587], 0.5556)
    """
    sizes = np.asarray(level_sizes, dtype=float)
    above = np.cumsum(sizes) - sizes
    # (c/s)·(1/(c+a) − 1/(c+a+s)) written without the difference, which cancels for large c
    per_occurrence = c / ((c + above) * (c + above + sizes))
    return per_occurrence, c / (c + float(sizes.sum()))


POSITIONS = Interval(1, 1e6)
"""The domain of n, the number of positions that carry the weight W_n."""
WEIGHT_OF_FIRST = Interval(1e-6, 1 - 1e-6)
"""The domain of W_n (``wn``), the weight of the first n positions."""
DISCOUNT_DOMAINS = {"n": dataclasses.replace(POSITIONS, optional=True),
                    "wn": dataclasses.replace(WEIGHT_OF_FIRST, optional=True)}
"""Where n and wn are exact: beyond these bounds the 1/x² weights of the positions underflow (and c = (1 −
W_n)·n / W_n overflows for n = 1e308 or W_n = 1e-320), so values outside are refused, here and in names; None
where they may be left out (both, for a finite organization's own weights)."""


@validate(n=POSITIONS, wn=WEIGHT_OF_FIRST)
def discount_constant(n: float, wn: float) -> float:
    """c = (1 − W_n)·n / W_n: the first n positions carry the weight W_n (Amigó et al., SIGIR 2013, §3.1; W_10 = 0.8 →
    2.5).

    >>> round(discount_constant(10, 0.8), 12)
    2.5
    """
    n, wn = plain_number(n), plain_number(wn)
    return (1 - wn) * n / wn


# ----------------------------------------------------------------------------------------- alignment
@dataclass(frozen=True)
class _Coded:
    """An organization's occurrences over a document index shared with the other side."""

    doc: np.ndarray
    level: np.ndarray
    cluster: np.ndarray
    n_levels: int  # levels above the rest or tail
    finite: bool

    def keep(self, mask: np.ndarray) -> _Coded:
        """Only the masked occurrences; levels left empty disappear (an organization has no empty level)."""
        level = self.level[mask]
        present = np.bincount(level, minlength=self.n_levels + 1)[: self.n_levels] > 0
        renumber = np.r_[np.cumsum(present) - 1, present.sum()]  # the rest stays the bottom level
        return _Coded(self.doc[mask], renumber[level], self.cluster[mask], int(present.sum()), self.finite)

    def add(self, docs: np.ndarray, level: int) -> _Coded:
        """The documents as new singleton clusters at ``level``."""
        first = int(self.cluster.max(initial=-1)) + 1
        return _Coded(np.r_[self.doc, docs], np.r_[self.level, np.full(len(docs), level, dtype=np.int64)],
                      np.r_[self.cluster, np.arange(first, first + len(docs))], self.n_levels, self.finite)


def _coded_pair(gold: Organization, output: Organization, named: bool):
    """Both sides over one document index, the index's document names (None unless ``named``) and its size."""
    g, o = gold.occurrences, output.occurrences
    if named:
        codes, names = document_codes(g.document, o.document)
        n_docs = len(names)
    else:
        (codes, n_docs), names = document_index(g.document, o.document), None
    return (_Coded(codes[: len(g.document)], g.level, g.cluster, len(gold.levels), gold.finite),
            _Coded(codes[len(g.document):], o.level, o.cluster, len(output.levels), output.finite),
            names, n_docs)


@validate(missing=MISSING)
def aligned_views(gold: _Coded, output: _Coded, n_docs: int, missing: str):
    """The (output, gold) pair Reliability reads and the (gold, output) pair Sensitivity reads.

    An unlimited tail holds every document it does not prioritise (docs/rs-engine.md, point 5). A finite side
    must say where the other side's documents are: output documents the gold lacks join the gold's rest
    (unjudged counts as not relevant); gold documents a finite output lacks follow ``missing``:

    * ``"tail"``: they join the output's rest (its bottom);
    * ``"singleton"``: each becomes its own cluster in the output's bottom level (its rest if it has none);
    * ``"replab"``: as the official RepLab 2013 script: output documents the gold lacks are ignored; a gold
      document the output lacks counts as a correct singleton for Reliability and matches nothing for
      Sensitivity (its topic-detection R&S script, ``EVAL_TOPICDETECTION_RS.pl``).
    """
    in_gold = np.bincount(gold.doc, minlength=n_docs) > 0
    in_output = np.bincount(output.doc, minlength=n_docs) > 0
    if missing == "replab":
        output = output.keep(in_gold[output.doc])
        in_output = np.bincount(output.doc, minlength=n_docs) > 0
    elif gold.finite:
        gold = gold.add(np.flatnonzero(in_output & ~in_gold), gold.n_levels)
    if not output.finite:
        return (output, gold), (gold, output)
    lacking = np.flatnonzero(in_gold & ~in_output)
    if missing == "tail":
        output = output.add(lacking, output.n_levels)
        return (output, gold), (gold, output)
    completed = output.add(lacking, max(output.n_levels - 1, 0))
    return (completed, gold), (gold, completed if missing == "singleton" else output)


# ---------------------------------------------------------------------------------------------- engine
def _side(coded: _Coded, n_docs: int, c: float | None) -> relations.Side:
    level = coded.level
    if c is None:  # the Avg_d special case: every occurrence weighs the same (docs/rs-engine.md, point 8)
        weight, tail = np.full(len(level), 1.0 / max(len(level), 1)), 0.0
    else:
        per_level, tail = position_weights(np.bincount(level) if len(level) else [], c)
        weight = per_level[level]
        tail = 0.0 if coded.finite else tail
    return relations.Side(coded.doc, level, coded.cluster, weight, tail, coded.n_levels, n_docs)


RS_ARGUMENTS = {"gold": ORGANIZATION, "output": ORGANIZATION, **DISCOUNT_DOMAINS, "missing": MISSING}
"""The domains of the arguments of :func:`reliability_sensitivity` (and of the functions that take them)."""


@validate(**RS_ARGUMENTS)
def scored_views(gold: Organization, output: Organization, *, n: float | None = None, wn: float | None = None,
                 missing: str = "tail") -> tuple[np.ndarray, tuple[relations.Side, relations.Side],
                                                 tuple[relations.Side, relations.Side]]:
    """The document names and the two views the scores read: (output, gold) for Reliability and
    (gold, output) for Sensitivity, as weighted :class:`relations.Side` pairs (what ``explain`` also reads).
    Validates the arguments as :func:`reliability_sensitivity` documents."""
    return _views(gold, output, n, wn, missing, named=True)


def _views(gold: Organization, output: Organization, n, wn, missing: str, named: bool):
    """:func:`scored_views`, the names None unless ``named`` (the scores alone do not read them)."""
    if (n is None) != (wn is None):
        raise ParameterError(f"give both n and wn (the first n positions weigh wn), or neither; got n={n!r}, "
                             f"wn={wn!r}", parameter="wn" if n is not None else "n")
    if n is None and not (gold.finite and output.finite):
        side = "gold" if not gold.finite else "output"
        raise ParameterError(f"the {side} has an unlimited tail: n and wn are required to weigh positions "
                             "(Amigó et al., SIGIR 2013, eqs. 1–2; Table 9 uses n=10, wn=0.8)", parameter="n")
    c = None if n is None or wn is None else discount_constant(n, wn)
    coded_gold, coded_output, names, n_docs = _coded_pair(gold, output, named)
    (r_out, r_gold), (s_gold, s_out) = aligned_views(coded_gold, coded_output, n_docs, missing)
    sides = {}  # one Side per coded side: the views share the arrays the kernels derive from a side
    for coded in (r_out, r_gold, s_gold, s_out):
        if id(coded) not in sides:
            sides[id(coded)] = _side(coded, n_docs, c)
    return (names, (sides[id(r_out)], sides[id(r_gold)]), (sides[id(s_gold)], sides[id(s_out)]))


@validate(**RS_ARGUMENTS)
@small_pages()  # arrays of millions of entries made once: no stalls for huge pages
def reliability_sensitivity(gold: Organization, output: Organization, *, n: float | None = None,
                            wn: float | None = None, missing: str = "tail") -> RSScores:
    """R≺ S≺ R∼ S∼ of ``output`` against ``gold`` (Amigó et al., SIGIR 2013, eqs. 3–4; Sensitivity exchanges the two).

    With an unlimited tail on either side, ``n`` and ``wn`` set the 1/x² discount (the first n positions
    weigh W_n; Table 9 uses n=10, wn=0.8). With a finite rest on both sides every occurrence weighs the
    same unless they are given. ``missing`` places gold documents a finite output lacks (see
    :func:`aligned_views`). ``workbench.explain`` decomposes the four scores occurrence by occurrence.
    """
    _, reliability_view, sensitivity_view = _views(gold, output, n, wn, missing, named=False)
    return _scores(reliability_view, sensitivity_view)


_TWO_THREADS = 1 << 16  # occurrences on a side from which the two relations are scored on two threads


def _scores(reliability_view: tuple[relations.Side, relations.Side],
            sensitivity_view: tuple[relations.Side, relations.Side]) -> RSScores:
    """R≺ S≺ R∼ S∼ of the two views: from :data:`_TWO_THREADS` occurrences on a side, priority (both views) on one
    thread and relatedness (both views) on another (:func:`~workbench.threads.in_threads`), each the values of one
    thread: the two relations share no work but the sides' occurrence counts, computed first (issue 22's hardest
    shape: 0.42-0.50 and 0.33-0.43 CPU-s on the two threads, where one took 0.96-1.03). The views share their work
    (a pair's contingency, the signatures of its documents), so they stay on one thread: split by view, each
    computed its own and the pair took as long as on one thread (issue 42)."""
    def priorities() -> tuple[float, float]:
        return relations.priority(*reliability_view), relations.priority(*sensitivity_view)

    def relatednesses() -> tuple[float, float]:
        return relations.relatedness(*reliability_view), relations.relatedness(*sensitivity_view)

    sides = {id(side): side for side in reliability_view + sensitivity_view}.values()
    if max(len(side.doc) for side in sides) < _TWO_THREADS:
        (r_priority, s_priority), (r_relatedness, s_relatedness) = priorities(), relatednesses()
    else:
        for side in sides:
            side.share_counts()
        (r_priority, s_priority), (r_relatedness, s_relatedness) = in_threads(lambda scores: scores(),
                                                                              [priorities, relatednesses])
    return RSScores(r_priority, s_priority, r_relatedness, s_relatedness)


def _compute(gold: Organization, output: Organization, n=None, wn=None, missing="tail") -> dict[str, float]:
    return reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing).to_dict()


_SOURCE = "Amigó, Gonzalo, Verdejo. A General Evaluation Measure for Document Organization Tasks. SIGIR 2013, §3"
_MEASURES = (  # name, RSScores field, aliases (a word, and ASCII for keyboards without ≺ ∼), what it is
    ("R≺", "r_priority", ("R_priority", "R<"), "Reliability over priority relations"),
    ("S≺", "s_priority", ("S_priority", "S<"), "Sensitivity over priority relations"),
    ("R∼", "r_relatedness", ("R_relatedness", "R~"), "Reliability over relatedness relations"),
    ("S∼", "s_relatedness", ("S_relatedness", "S~"), "Sensitivity over relatedness relations"),
    ("F≺", "f_priority", ("F_priority", "F<"), "harmonic mean of R≺ and S≺"),
    ("F∼", "f_relatedness", ("F_relatedness", "F~"), "harmonic mean of R∼ and S∼"),
)
RS_FIELDS = {name: field for name, field, _, _ in _MEASURES}
"""Each registered R&S measure's :class:`RSScores` field, ``{"R≺": "r_priority", ...}`` (the one table: the
shell, the explanations and the widgets read it)."""
RS_MEASURES = tuple(name for name in RS_FIELDS if not name.startswith("F"))
"""The four scores an occurrence-level explanation decomposes: R≺, S≺, R∼, S∼ (F≺ and F∼ combine them)."""
_PARAMS = {
    "n": Param(None, DISCOUNT_DOMAINS["n"], "the number of positions n that carry the weight wn (with wn; without "
                                            "both, a finite organization's own weights)"),
    "wn": Param(None, DISCOUNT_DOMAINS["wn"], "W_n: the share of the weight the first n positions carry"),
    "missing": Param("tail", MISSING, "where a gold document the output lacks goes: its "
                                                                 "tail, a singleton, or RepLab's rule"),
}
for _name, _field, _aliases, _what in _MEASURES:
    register(_name, _compute, task="organization", source=_SOURCE, field=_field, aliases=_aliases, engine="R&S",
             params=_PARAMS,
             description=_what,
             explained=_EXPLAINED)
