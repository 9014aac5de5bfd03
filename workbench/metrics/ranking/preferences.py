"""trec_eval's preference measures (``-R prefs``, ``-R qrels_prefs``): one topic's preference judgements counted
against a ranking as ``form_prefs_counts.c`` counts them, and the fourteen ``m_prefs_*.c`` measures over the
counts.

A preference file gives each document a relevance level within a judgement sub-group (JSG) of a judgement group
(JG, one user's information need): within a JSG a document is preferred to every document of a lower level.
Documents are numbered by their *docid rank* (:func:`count_preferences`' ``ranks``): the judged documents the
run retrieved first, in rank order (``0 … num_judged_ret − 1``), then the judged documents it did not retrieve.
A preference A > B is *fulfilled* when A's docid rank is lower, counted as ``_ret`` (both retrieved), ``_imp``
(implied: one retrieved) or ``notoccur`` (neither). A JG with one JSG is a list of equivalence classes (every
line counts, a document given twice counts twice); a JG with several is a preference matrix closed under
transitivity (each document once)::

    >>> c = count_preferences(groups=[0, 0, 0], subgroups=[0, 0, 0], levels=[2.0, 1.0, 0.0], ranks=[1, 0, 2],
    ...                       num_judged=3, num_judged_ret=2)
    >>> c.fulfilled_ret.tolist(), c.possible_ret.tolist(), c.fulfilled_imp.tolist(), c.possible_imp.tolist()
    ([0], [1], [2], [2])
    >>> prefs_simp(c), prefs_simp_ret(c)
    (0.6666666666666666, 0.0)

Here the document of level 2 was retrieved second (docid rank 1), below the one of level 1 (rank 0): of the
three preferences, 2 > 1 fails among the retrieved, and both retrieved documents beat the unretrieved one of
level 0. The measures are pure functions of :class:`PreferenceCounts`, following each ``m_prefs_*.c``
operation for operation (sums added in trec_eval's order, so that the last printed digit agrees).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from workbench.errors import InputError

__all__ = ["InconsistentPreferencesError", "PreferenceCounts", "count_preferences", "prefs_num_prefs_poss",
           "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_simp_ret", "prefs_simp_imp",
           "prefs_avgjg", "prefs_avgjg_ret", "prefs_avgjg_imp", "prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret",
           "prefs_pair", "prefs_pair_ret", "prefs_pair_imp"]


class InconsistentPreferencesError(InputError):
    """Preferences trec_eval stops on (``form_prefs_counts.c``): a document given two levels in a JG's only JSG,
    both level 0 and a positive level in one JG, or a JG whose preferences contradict each other (trec_eval
    aborts). ``documents`` are docid ranks."""

    def __init__(self, message: str, documents: tuple[int, ...] = ()) -> None:
        self.documents = documents
        super().__init__(message)


@dataclass(frozen=True)
class PreferenceCounts:
    """One topic's preferences counted against a ranking (``form_prefs_counts.c``'s ``RESULTS_PREFS``): per JG,
    in trec_eval's order of JG names, the preferences fulfilled and possible among the retrieved documents
    (``_ret``), implied by one retrieved document (``_imp``) and between two unretrieved ones (``notoccur``), the
    relevant (level > 0) and non-relevant documents, all and retrieved; ``recounted`` and ``recounted_ret``,
    ``(fulfilled, possible)`` per JG as the ``recalculate`` of ``m_prefs_avgjg_Rnonrel.c`` and
    ``m_prefs_avgjg_Rnonrel_ret.c`` count them where the JG has more non-relevant documents than relevant ones
    (all, resp. retrieved; 0 elsewhere); ``counts[i, j]``, the number of JGs preferring docid rank ``i`` to
    ``j`` (16-bit, as trec_eval's ``unsigned short``). ``beyond`` flags, per JG, where those recounts make
    trec_eval read past its own arrays (more relevant documents than documents at the lowest level, a negative
    one: its value is undefined there, the recount takes the level's documents only)."""

    fulfilled_ret: np.ndarray
    possible_ret: np.ndarray
    fulfilled_imp: np.ndarray
    possible_imp: np.ndarray
    possible_notoccur: np.ndarray
    num_rel: np.ndarray
    num_rel_ret: np.ndarray
    num_nonrel: np.ndarray
    num_nonrel_ret: np.ndarray
    recounted: np.ndarray
    recounted_ret: np.ndarray
    counts: np.ndarray
    num_judged_ret: int
    beyond: np.ndarray

    @functools.cached_property
    def pair_sums(self) -> tuple[tuple[float, float], tuple[int, int, int]]:
        """For ``m_prefs_pair*.c``: the shares ``counts[i, j] / (counts[i, j] + counts[j, i])`` of the pairs
        with a preference added in trec_eval's loop order, over the retrieved pairs (i < j) and on over the
        (retrieved, unretrieved) ones; and the number of such pairs among the retrieved, the mixed and the
        unretrieved documents."""
        counts, njr = self.counts.astype(np.int32), self.num_judged_ret
        top = counts[:njr, :njr]
        upper = np.triu(np.ones(top.shape, dtype=bool), 1)
        a = np.concatenate((top[upper], counts[:njr, njr:].ravel()))  # row by row, as the C loops go
        b = np.concatenate((top.T[upper], counts[njr:, :njr].T.ravel()))
        some = (a > 0) | (b > 0)
        running = np.cumsum(np.where(some, a / np.where(some, a + b, 1), 0.0))  # adding 0.0 changes nothing
        inner = int(upper.sum())
        first = float(running[inner - 1]) if inner else 0.0
        rest = counts[njr:, njr:] > 0
        return ((first, float(running[-1]) if running.size else 0.0),
                (int(some[:inner].sum()), int(some[inner:].sum()), int(np.triu(rest | rest.T, 1).sum())))

    @property
    def num_judged(self) -> int:
        """The number of distinct documents the topic's preferences mention."""
        return self.counts.shape[0]


# ------------------------------------------------------------------------------------------ counting
def _areas(weights: np.ndarray, retrieved: int) -> tuple[int, int, int, int, int]:
    """The preferences ``weights[i, j]`` (documents in docid-rank order, the first ``retrieved`` retrieved) in
    ``form_prefs_counts.c``'s five areas: fulfilled and not among the retrieved (A1, A2), implied fulfilled
    and not (A3, A4), neither retrieved (A5)."""
    top = weights[:retrieved, :retrieved]
    fulfilled = int(np.triu(top, 1).sum())
    return (fulfilled, int(top.sum()) - int(np.trace(top)) - fulfilled, int(weights[:retrieved, retrieved:].sum()),
            int(weights[retrieved:, :retrieved].sum()), int(weights[retrieved:, retrieved:].sum()))


@dataclass
class _Group:
    """One JG's documents (docid ranks ``docs``, ascending), its preference weights between them, and its counts."""

    docs: np.ndarray
    weights: np.ndarray
    areas: tuple[int, int, int, int, int]
    rel: tuple[int, int, int, int]  # num_rel, num_rel_ret, num_nonrel, num_nonrel_ret
    recounted: tuple[int, int] = (0, 0)
    recounted_ret: tuple[int, int] = (0, 0)
    beyond: tuple[bool, bool] = (False, False)


def _classes(levels: np.ndarray, ranks: np.ndarray, njr: int) -> _Group:
    """A JG with one JSG: equivalence classes by level (``form_jg_ec``, ``add_ec_pref_to_jg``), and the
    ``recalculate`` of the two ``Rnonrel`` measures (``m_prefs_avgjg_Rnonrel*.c``)."""
    docs, first, inverse, times = np.unique(ranks, return_index=True, return_inverse=True, return_counts=True)
    inverse = inverse.ravel()
    level = levels[first]
    other = np.flatnonzero(levels != level[inverse])
    if other.size:
        doc = int(ranks[other[0]])
        raise InconsistentPreferencesError("a document has two relevance levels in the only sub-group of its "
                                           "judgement group (trec_eval: occurs with different rel in same "
                                           "jsg)", (doc,))
    weights = np.outer(times, times) * (level[:, None] > level[None, :])
    retrieved = docs < njr
    relevant = level > 0
    counts = (int(times[relevant].sum()), int(times[relevant & retrieved].sum()), int(times[~relevant].sum()),
              int(times[~relevant & retrieved].sum()))
    group = _Group(docs, weights, _areas(weights, int(retrieved.sum())), counts)
    lowest = level == level.min()  # the last class: m_prefs_avgjg_Rnonrel.c takes it for the non-relevant one
    last = np.repeat(docs[lowest], times[lowest])
    entries = np.repeat(docs, times)
    group.beyond = (counts[2] > counts[0] and counts[0] > last.size,  # trec_eval reads past the class
                    counts[3] > counts[1] and counts[1] > last.size and bool((last < njr).all()))
    if counts[2] > counts[0]:  # N > R: only the first R documents of the last class count
        kept = ~lowest
        inner = weights[np.ix_(kept, kept)]
        rank = docs[kept]
        won = int((inner * ((rank[:, None] < rank[None, :]) & (rank[:, None] < njr))).sum())
        cut = last[:counts[0]]
        won_last = int(np.searchsorted(entries, np.minimum(cut, njr)).sum())
        group.recounted = (won + won_last, int(inner.sum()) + entries.size * cut.size)  # possible: every pair
    if counts[3] > counts[1]:  # among the retrieved: the first R_ret retrieved documents of the last class
        cut = last[:counts[1]]
        cut = cut[:np.searchsorted(cut, njr)]
        kept = ~lowest & retrieved
        inner = weights[np.ix_(kept, kept)]
        won = int(np.triu(inner, 1).sum())
        shown = entries[entries < njr]
        won_last = int(np.searchsorted(shown, cut).sum())
        group.recounted_ret = (won + won_last, int(inner.sum()) + shown.size * cut.size)
    return group


def _closure(direct: np.ndarray) -> np.ndarray:
    """The transitive closure of a preference matrix, without its diagonal (``add_transitives``: the matrix
    with ones on the diagonal multiplied by itself until it no longer changes)."""
    reach = direct | np.eye(direct.shape[0], dtype=bool)
    while True:
        ones = reach.astype(np.float32)
        wider = (ones @ ones) > 0
        if (wider == reach).all():
            break
        reach = wider
    np.fill_diagonal(reach, False)
    return reach


def _matrix(subgroups: np.ndarray, levels: np.ndarray, ranks: np.ndarray, njr: int) -> _Group:
    """A JG with several JSGs: a preference matrix closed under transitivity (``form_jg_pa``,
    ``add_transitives``, ``add_pa_pref_to_jg``), and the ``recalculate`` of the ``Rnonrel`` measures. Lines come
    in trec_eval's order (JSG, level descending, docid rank)."""
    docs, inverse = np.unique(ranks, return_inverse=True)
    inverse = inverse.ravel()
    by_doc = np.argsort(inverse, kind="stable")  # each document's lines in trec_eval's order
    doc, level = inverse[by_doc], levels[by_doc]
    same = doc[1:] == doc[:-1]
    before, now = level[:-1], level[1:]
    clash = np.flatnonzero(same & (((before > 0) & (now == 0)) | ((before == 0) & (now > 0))))
    if clash.size:
        first = int(by_doc[1:][clash].min())
        raise InconsistentPreferencesError("a document has both level 0 and a positive level in one judgement "
                                           "group (trec_eval: has both 0 and non-0 rel assigned)",
                                           (int(ranks[first]),))
    rel = level[np.flatnonzero(np.append(doc[1:] != doc[:-1], True))]  # the last level given (rel_array)
    above = (subgroups[:, None] == subgroups[None, :]) & (levels[:, None] > levels[None, :])
    rows, cols = np.nonzero(above)
    direct = np.zeros((docs.size, docs.size), dtype=bool)
    direct[inverse[rows], inverse[cols]] = True
    reach = _closure(direct)
    both = np.argwhere(reach & reach.T)
    if both.size:
        raise InconsistentPreferencesError("the judgement group's preferences contradict each other (trec_eval: "
                                           "Pref inconsistency found, and it aborts)",
                                           (int(docs[both[0, 0]]), int(docs[both[0, 1]])))
    weights = reach.astype(np.int64)
    retrieved = docs < njr
    n_ret = int(retrieved.sum())
    relevant, zero = rel > 0, rel == 0
    counts = (int(relevant.sum()), int((relevant & retrieved).sum()), int(zero.sum()),
              int((zero & retrieved).sum()))
    group = _Group(docs, weights, _areas(weights, n_ret), counts)
    if counts[2] > counts[0]:  # keep the first R non-relevant documents (docid rank order)
        zeros = docs[zero]
        discarded = zeros[counts[0]] if zeros.size > counts[0] else np.iinfo(np.int64).max
        kept = ~(zero & (docs >= discarded))
        a1, a2, a3, a4, a5 = _areas(weights[np.ix_(kept, kept)], int((kept & retrieved).sum()))
        group.recounted = (a1 + a3, a2 + a4 + a5 + a1 + a3)
    if counts[3] > counts[1]:  # the same among the retrieved documents, still R = num_rel (as trec_eval)
        zeros = docs[zero & retrieved]
        discarded = zeros[counts[0]] if zeros.size > counts[0] else njr
        kept = ~(zero & (docs >= discarded)) & retrieved
        a1, a2, _, _, _ = _areas(weights[np.ix_(kept, kept)], int(kept.sum()))
        group.recounted_ret = (a1, a2 + a1)
    return group


def count_preferences(groups, subgroups, levels, ranks, num_judged: int, num_judged_ret: int) -> PreferenceCounts:
    """One topic's preference lines counted as ``form_prefs_counts.c`` counts them: per line, the JG and JSG
    (integer codes numbered in trec_eval's order, ``strcmp`` of the names), the relevance level and the
    document's docid rank (``0 … num_judged − 1``, the ``num_judged_ret`` retrieved ones first, in rank order).
    Raises :class:`InconsistentPreferencesError` where trec_eval stops."""
    groups, subgroups = np.asarray(groups, dtype=np.int64), np.asarray(subgroups, dtype=np.int64)
    levels, ranks = np.asarray(levels, dtype=float), np.asarray(ranks, dtype=np.int64)
    order = np.lexsort((ranks, -levels, subgroups, groups))
    groups, subgroups, levels, ranks = groups[order], subgroups[order], levels[order], ranks[order]
    bounds = np.concatenate(([0], np.flatnonzero(np.diff(groups)) + 1, [groups.size]))
    counts = np.zeros((num_judged, num_judged), dtype=np.uint16)
    found = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if np.unique(subgroups[a:b]).size > 1:
            group = _matrix(subgroups[a:b], levels[a:b], ranks[a:b], num_judged_ret)
        else:
            group = _classes(levels[a:b], ranks[a:b], num_judged_ret)
        added = group.weights.astype(np.uint16)  # wraps as trec_eval's unsigned short
        if group.docs.size == num_judged:  # every document (docs are 0 … num_judged − 1)
            counts += added
        else:
            counts[np.ix_(group.docs, group.docs)] += added
        found.append(group)

    def column(values) -> np.ndarray:
        return np.array(list(values), dtype=np.int64)

    a1, a2, a3, a4, a5 = (column(g.areas[i] for g in found) for i in range(5))
    rel, rel_ret, nonrel, nonrel_ret = (column(g.rel[i] for g in found) for i in range(4))
    return PreferenceCounts(a1, a2 + a1, a3, a4 + a3, a5, rel, rel_ret, nonrel, nonrel_ret,
                            column(g.recounted for g in found).reshape(-1, 2),
                            column(g.recounted_ret for g in found).reshape(-1, 2), counts, int(num_judged_ret),
                            np.array([g.beyond for g in found], dtype=bool).reshape(-1, 2))


# ------------------------------------------------------------------------------------------ measures
def _divide(a, b) -> float:
    """C's double division: ±inf or NaN where ``b`` is 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def prefs_num_prefs_poss(c: PreferenceCounts) -> float:
    """The number of preferences, retrieved or not (``m_prefs_num_prefs_poss.c``; summed over topics)."""
    return float((c.possible_ret + c.possible_imp + c.possible_notoccur).sum())


def prefs_num_prefs_ful(c: PreferenceCounts) -> float:
    """The number of preferences fulfilled, implied ones included (``m_prefs_num_prefs_ful.c``)."""
    return float((c.fulfilled_ret + c.fulfilled_imp).sum())


def prefs_num_prefs_ful_ret(c: PreferenceCounts) -> float:
    """The number of preferences fulfilled among the retrieved documents (``m_prefs_num_prefs_ful_ret.c``)."""
    return float(c.fulfilled_ret.sum())


def _simple(fulfilled: int, possible: int) -> float:
    return _divide(fulfilled, possible) if possible else 0.0


def prefs_simp(c: PreferenceCounts) -> float:
    """Preferences fulfilled / possible, implied ones included, unretrieved pairs failed (``m_prefs_simp.c``)."""
    return _simple(int((c.fulfilled_ret + c.fulfilled_imp).sum()),
                   int((c.possible_ret + c.possible_imp + c.possible_notoccur).sum()))


def prefs_simp_ret(c: PreferenceCounts) -> float:
    """Preferences fulfilled / possible among the retrieved documents (``m_prefs_simp_ret.c``)."""
    return _simple(int(c.fulfilled_ret.sum()), int(c.possible_ret.sum()))


def prefs_simp_imp(c: PreferenceCounts) -> float:
    """Preferences fulfilled / possible, implied ones included, unretrieved pairs ignored
    (``m_prefs_simp_imp.c``)."""
    return _simple(int((c.fulfilled_ret + c.fulfilled_imp).sum()), int((c.possible_ret + c.possible_imp).sum()))


def _by_group(fulfilled: np.ndarray, possible: np.ndarray) -> float:
    """The JGs' ratios added in order (those with preferences), over the number of JGs when positive."""
    total = 0.0
    for ful, poss in zip(fulfilled.tolist(), possible.tolist(), strict=True):
        if poss:
            total += _divide(ful, poss)
    return total / fulfilled.size if total > 0.0 else 0.0


def prefs_avgjg(c: PreferenceCounts) -> float:
    """The ratio fulfilled / possible of each JG, averaged over JGs (``m_prefs_avgjg.c``)."""
    return _by_group(c.fulfilled_ret + c.fulfilled_imp, c.possible_ret + c.possible_imp + c.possible_notoccur)


def prefs_avgjg_ret(c: PreferenceCounts) -> float:
    """:func:`prefs_avgjg` among the retrieved documents (``m_prefs_avgjg_ret.c``)."""
    return _by_group(c.fulfilled_ret, c.possible_ret)


def prefs_avgjg_imp(c: PreferenceCounts) -> float:
    """:func:`prefs_avgjg` with implied preferences, unretrieved pairs ignored (``m_prefs_avgjg_imp.c``)."""
    return _by_group(c.fulfilled_ret + c.fulfilled_imp, c.possible_ret + c.possible_imp)


def prefs_avgjg_Rnonrel(c: PreferenceCounts) -> float:  # noqa: N802 (trec_eval's name)
    """:func:`prefs_avgjg` with each JG's non-relevant documents counted as many as its relevant ones, R: R − N
    fulfilled preferences added per retrieved relevant document where N < R, only the first R non-relevant
    documents where N > R (``m_prefs_avgjg_Rnonrel.c``)."""
    total = np.float64(0.0)
    for i in range(c.num_rel.size):
        r, n = int(c.num_rel[i]), int(c.num_nonrel[i])
        if r >= n:
            ful = int(c.fulfilled_ret[i] + c.fulfilled_imp[i]) + int(c.num_rel_ret[i]) * (r - n)
            poss = int(c.possible_ret[i] + c.possible_imp[i] + c.possible_notoccur[i]) + r * (r - n)
        else:
            ful, poss = (int(v) for v in c.recounted[i])
        total += _divide(ful, poss)
    return float(total / c.num_rel.size) if total > 0.0 else 0.0


def prefs_avgjg_Rnonrel_ret(c: PreferenceCounts) -> float:  # noqa: N802 (trec_eval's name)
    """:func:`prefs_avgjg_Rnonrel` among the retrieved documents, R and N the retrieved relevant and
    non-relevant documents (``m_prefs_avgjg_Rnonrel_ret.c``, which adds ``num_rel · (R − N)`` possible ones)."""
    total = np.float64(0.0)
    for i in range(c.num_rel.size):
        r, n = int(c.num_rel_ret[i]), int(c.num_nonrel_ret[i])
        if r >= n:
            ful = int(c.fulfilled_ret[i]) + int(c.num_rel_ret[i]) * (r - n)
            poss = int(c.possible_ret[i]) + int(c.num_rel[i]) * (r - n)
        else:
            ful, poss = (int(v) for v in c.recounted_ret[i])
        total += _divide(ful, poss)
    return float(total / c.num_rel.size) if total > 0.0 else 0.0


def _pairs(c: PreferenceCounts, implied: bool, unretrieved: bool) -> float:
    """The mean over document pairs with a preference of the share of JGs preferring the higher-ranked one
    (``m_prefs_pair*.c``): pairs of retrieved documents, then (``implied``) a retrieved and an unretrieved
    one, in trec_eval's loop order; pairs of unretrieved documents (``unretrieved``) count as 0."""
    sums, pairs = c.pair_sums
    total = sums[1] if implied else sums[0]
    count = pairs[0] + (pairs[1] if implied else 0) + (pairs[2] if unretrieved else 0)
    return total / count if count else 0.0


def prefs_pair(c: PreferenceCounts) -> float:
    """Per document pair with a preference, the share of JGs whose preference the ranking fulfils, averaged over
    pairs; unretrieved pairs count as failures (``m_prefs_pair.c``)."""
    return _pairs(c, implied=True, unretrieved=True)


def prefs_pair_ret(c: PreferenceCounts) -> float:
    """:func:`prefs_pair` over pairs of retrieved documents (``m_prefs_pair_ret.c``)."""
    return _pairs(c, implied=False, unretrieved=False)


def prefs_pair_imp(c: PreferenceCounts) -> float:
    """:func:`prefs_pair` with implied pairs, unretrieved pairs ignored (``m_prefs_pair_imp.c``)."""
    return _pairs(c, implied=True, unretrieved=False)
