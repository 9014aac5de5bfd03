"""A deliberately simple O(n²) Reliability/Sensitivity: the reference the fast engine must equal.

Written straight from ``../shared/design/RS-SEMANTICS.md`` (points 1–8) and Amigó et al., SIGIR 2013, eqs. 1–4, with
loops over occurrence pairs and nothing shared with ``workbench.metrics`` but the Organization model. It scores one
*view*: the relations of ``x`` checked against ``other`` (Reliability is ``view(output, gold)``, Sensitivity
``view(gold, output)``), after the documents of both sides have been aligned.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from workbench.model import Organization


@dataclass(frozen=True)
class Occ:
    doc: str
    level: int  # 0 = highest; a finite rest is the bottom level, index len(levels)
    cluster: int


def _restrict(org: Organization, keep: frozenset[str]) -> Organization:
    levels = tuple(
        level for level in (tuple(c & keep for c in level if c & keep) for level in org.levels) if level
    )
    grades = None
    if org.grades is not None:
        grades = tuple(g for g, level in zip(org.grades, org.levels, strict=True)
                       if any(c & keep for c in level))
    return Organization(levels, None if org.rest is None else org.rest & keep, grades)


def _with_singletons(org: Organization, docs: frozenset[str]) -> Organization:
    """Each document its own cluster in the bottom level (in the rest if there is no level)."""
    if not docs:
        return org
    if not org.levels:
        return Organization((), (org.rest or frozenset()) | docs)
    last = org.levels[-1] + tuple(frozenset([d]) for d in sorted(docs))
    return Organization(org.levels[:-1] + (last,), org.rest, org.grades)


def _with_rest(org: Organization, docs: frozenset[str]) -> Organization:
    return org if not docs else Organization(org.levels, (org.rest or frozenset()) | docs, org.grades)


def aligned_views(gold: Organization, output: Organization, missing: str = "tail"):
    """The views of ``workbench.metrics.reliability.aligned_views`` (the missing-document policies),
    built independently with set operations on Organizations."""
    if missing == "replab":
        output = _restrict(output, gold.documents)
    elif gold.finite:
        gold = _with_rest(gold, output.documents - gold.documents)
    if not output.finite:
        return (output, gold), (gold, output)
    lacking = gold.documents - output.documents
    if missing == "tail":
        output = _with_rest(output, lacking)
        return (output, gold), (gold, output)
    completed = _with_singletons(output, lacking)
    return (completed, gold), (gold, completed if missing == "singleton" else output)


def reliability_sensitivity(gold, output, n=None, wn=None, missing="tail") -> tuple[float, float, float, float]:
    """R≺ S≺ R∼ S∼ by brute force."""
    (r_out, r_gold), (s_gold, s_out) = aligned_views(gold, output, missing)
    r, s = view(r_out, r_gold, n, wn), view(s_gold, s_out, n, wn)
    return r[0], s[0], r[1], s[1]


def occurrences(org: Organization) -> list[Occ]:
    occs, cluster_id = [], 0
    for li, level in enumerate(org.levels):
        for cluster in level:
            occs += [Occ(doc, li, cluster_id) for doc in sorted(cluster)]
            cluster_id += 1
    for doc in sorted(org.rest or ()):
        occs.append(Occ(doc, len(org.levels), cluster_id))
        cluster_id += 1
    return occs


def weights(org: Organization, n, wn) -> tuple[list[float], float]:
    """Occurrence weights (eq. 2) and the tail's weight (eq. for W(X¬r)); uniform for a finite org."""
    occs = occurrences(org)
    if org.finite and n is None:
        return [1.0 / len(occs)] * len(occs) if occs else [], 0.0
    c = (1 - wn) * n / wn
    out = []
    for occ in occs:
        above = sum(1 for o in occs if o.level < occ.level)
        equal = sum(1 for o in occs if o.level == occ.level)
        # eq. 2 as written, in exact arithmetic: the difference of the two fractions cancels in floats when c
        # dwarfs the positions (W_n near 0), and the oracle must not round where the engine does not
        exact = Fraction(c) / equal * (1 / (Fraction(c) + above) - 1 / (Fraction(c) + above + equal))
        out.append(float(exact))
    return out, (0.0 if org.finite else c / (c + len(occs)))


class _Probabilities:
    """P that a relation of x holds in ``other`` (RS-SEMANTICS points 4–6), by counting occurrence pairs."""

    def __init__(self, x: Organization, other: Organization):
        self.xo, self.go = occurrences(x), occurrences(other)
        self.bottom_g = len(other.levels)  # where a document absent from `other` sits: its rest or its tail

    def g_levels(self, doc):
        return [o.level for o in self.go if o.doc == doc] or [self.bottom_g]

    def x_levels(self, doc):
        return [o.level for o in self.xo if o.doc == doc]

    @staticmethod
    def _above_pairs(levels_a, levels_b):
        return sum(1 for a in levels_a for b in levels_b if a < b)

    def priority(self, upper, lower):  # P(upper ≻ lower holds in other), point 4
        gx = self._above_pairs(self.x_levels(upper), self.x_levels(lower))
        gg = self._above_pairs(self.g_levels(upper), self.g_levels(lower))
        return min(gg, gx) / gx

    @staticmethod
    def _common(occs, a, b):
        ca = {o.cluster for o in occs if o.doc == a}
        return sum(1 for o in occs if o.doc == b and o.cluster in ca)

    def related(self, a, b):  # P(a ∼ b holds in other), points 4 and 6
        cx, cg = self._common(self.xo, a, b), self._common(self.go, a, b)
        return min(cg, cx) / cx

    def tail(self, doc):  # P(d ≻ tail) in other, point 5
        in_x = len(self.x_levels(doc))
        in_g = sum(1 for o in self.go if o.doc == doc and o.level < self.bottom_g)
        return min(in_g, in_x) / in_x


def view(x: Organization, other: Organization, n=None, wn=None) -> tuple[float, float]:
    """(priority, relatedness) Reliability of x's relations with respect to ``other``."""
    p = _Probabilities(x, other)
    xo = p.xo
    w, tail = weights(x, n, wn)
    total = sum(w) + tail
    if total == 0:
        return 0.0, 0.0
    pri = rel = 0.0
    for i, o in enumerate(xo):
        mass = sum(w[j] for j, q in enumerate(xo) if q.level != o.level) + tail
        if mass > 0:
            s = sum(w[j] * (p.priority(o.doc, q.doc) if o.level < q.level else p.priority(q.doc, o.doc))
                    for j, q in enumerate(xo) if q.level != o.level)
            if tail:
                s += tail * p.tail(o.doc)
            pri += w[i] * s / mass
        members = [j for j, q in enumerate(xo) if q.cluster == o.cluster]
        rel += w[i] * sum(w[j] * p.related(o.doc, xo[j].doc) for j in members) / sum(w[j] for j in members)
    if tail:
        x_mass = sum(w)
        if x_mass > 0:
            pri += tail * sum(w[i] * p.tail(o.doc) for i, o in enumerate(xo)) / x_mass
        rel += tail
    return pri / total, rel / total


def relation_rows(x: Organization, other: Organization, n=None, wn=None):
    """Every relation of every occurrence of x, for ``workbench.explain``: a list of
    (occurrence, its weight share w/total, kind ``"≺"`` or ``"∼"``, partner document or ``"tail"``, partner
    level or ``"tail"``, relation ≻ ≺ ∼, the partner's share of the occurrence's related mass, P)."""
    p = _Probabilities(x, other)
    xo = p.xo
    w, tail = weights(x, n, wn)
    total = sum(w) + tail
    rows = []
    for i, o in enumerate(xo):
        mass = sum(w[j] for j, q in enumerate(xo) if q.level != o.level) + tail
        for j, q in enumerate(xo):
            if q.level != o.level:
                above = o.level < q.level
                holds = p.priority(o.doc, q.doc) if above else p.priority(q.doc, o.doc)
                rows.append((o, w[i] / total, "≺", q.doc, q.level, "≻" if above else "≺", w[j] / mass, holds))
        if tail:
            rows.append((o, w[i] / total, "≺", "tail", "tail", "≻", tail / mass, p.tail(o.doc)))
        members = [j for j, q in enumerate(xo) if q.cluster == o.cluster]
        cluster_mass = sum(w[j] for j in members)
        for j in members:
            rows.append((o, w[i] / total, "∼", xo[j].doc, xo[j].level, "∼", w[j] / cluster_mass,
                         p.related(o.doc, xo[j].doc)))
    return rows


def tail_share(x: Organization, other: Organization, n=None, wn=None) -> tuple[float, float]:
    """(weight share, P) of x's unlimited tail in R≺: the tail → x_r term of eq. 3 (point 5)."""
    p = _Probabilities(x, other)
    w, tail = weights(x, n, wn)
    x_mass = sum(w)
    holds = sum(w[i] * p.tail(o.doc) for i, o in enumerate(p.xo)) / x_mass if x_mass else 0.0
    return tail / (x_mass + tail), holds
