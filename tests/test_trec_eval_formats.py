"""The rest of trec_eval 10.0 in the drop-in: preference judgements (``-R prefs``, ``-R qrels_prefs``), qrels with
judgement groups (``-R qrels_jg``), ``yaap`` and z-scores (``-Z``). Readers refuse what trec_eval refuses, naming
file and line; each kernel on a hand-computed case (citing the ``m_*.c`` it follows); the preference counting
against a loop-for-loop transliteration of ``form_prefs_counts.c`` and ``m_prefs_*.c`` on random judgements.
(The quicktest's six command lines for these are in test_trec_eval.py.)"""

import functools
import gzip
import math
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from workbench.data.trec import TrecFormatError
from workbench.data.trec.columns import read_columns
from workbench.data.trec.judgement_groups import group_table, read_judgement_groups
from workbench.data.trec.lines import read_lines
from workbench.data.trec.preferences import count_topics, read_preferences
from workbench.data.trec.ranked import rank_runs
from workbench.data.trec.zscores import read_zscores
from workbench.errors import WorkbenchError, WorkbenchWarning
from workbench.metrics.ranking import GainTable
from workbench.metrics.ranking import preferences as pm
from workbench.metrics.ranking.judgement_groups import (
    average_over_groups,
    map_avgjg,
    precision_avgjg,
    r_precision_multiple_avgjg,
)
from workbench.metrics.ranking.trec import precision_sums, yaap
from workbench.metrics.ranking.zscores import MISSING_ZSCORE_VALUE, zscores
from workbench.trec_eval import Options, TrecEvalError, evaluate, main, render

MEASURES = ("prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
            "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
            "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp")


def _counts(tmp_path, prefs_text: str, run_text: str, topic: str = "q", format: str = "prefs", **options):
    (tmp_path / "prefs").write_text(prefs_text)
    (tmp_path / "run").write_text(run_text)
    prefs = read_preferences(tmp_path / "prefs", format)
    run = read_lines(tmp_path / "run", "run", encoding="latin-1")
    return count_topics(prefs, run, [topic], **options).counts[0]


def _run(*docs: str, topic: str = "q") -> str:
    """A run retrieving ``docs`` in this order (scores descending)."""
    return "".join(f"{topic} Q0 {d} {i + 1} {len(docs) - i} r\n" for i, d in enumerate(docs))


# ------------------------------------------------------------------------------------------- readers
@pytest.mark.parametrize("format, text, line, message", [
    ("prefs", "q g s a 1\nq g s b\n", 2, "5 fields"),
    ("prefs", "q g s a 1\n\n# comment\nq g s b 1 extra\n", 4, "5 fields"),
    ("prefs", "q g s a nan\n", 1, "NaN"),
    ("qrels_prefs", "q 0 a 1\nq 0 s b 1\n", 2, "4 fields"),
])
def test_preference_readers_name_file_and_line(tmp_path, format, text, line, message):
    """get_prefs.c and get_qrels_prefs.c: 5 resp. 4 fields ("Malformed line"); a NaN level, whose order is
    undefined in trec_eval's sorts, is refused too."""
    path = tmp_path / "prefs"
    path.write_text(text)
    with pytest.raises(TrecFormatError, match=message) as caught, warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)  # 'nan' is read by atof, and said
        read_preferences(path, format)
    assert caught.value.line == line and caught.value.path == str(path)


def test_preference_readers_read_levels_by_atof_gzip_and_groups(tmp_path):
    path = tmp_path / "prefs.gz"
    path.write_bytes(gzip.compress(b"q 0 a 2.5\nq 0 b 1x\n"))
    with pytest.warns(WorkbenchWarning, match="atof"):
        prefs = read_preferences(path, "qrels_prefs")
    assert prefs.levels.tolist() == [2.5, 1.0] and prefs.subgroups.tolist() == [b"0", b"0"]  # one JSG: "0"
    assert prefs.groups.tolist() == [b"0", b"0"] and prefs.topic_names() == ["q"]


def test_judgement_group_reader_refuses_a_document_judged_twice_in_one_group(tmp_path):
    """get_qrels_jg.c: a document twice in one JG of a topic stops trec_eval ("duplicate docs"), whatever the
    topic; twice in two JGs is two users' judgements."""
    path = tmp_path / "qrels"
    path.write_text("1 u1 a 1\n1 u2 a 0\n2 u1 b 1\n1 u1 c 0\n1 u1 a 0\n")
    with pytest.raises(TrecFormatError, match=r"'a' of topic '1' is already judged in group 'u1' on line 1") as caught:
        read_judgement_groups(path)
    assert caught.value.line == 5
    path.write_text("1 u1 a 1\n1 u2 a 0\n1 u1\n")
    with pytest.raises(TrecFormatError, match="4 fields") as caught:
        read_judgement_groups(path)
    assert caught.value.line == 3


def test_zscore_reader_names_file_and_line_and_notes_repeats(tmp_path):
    path = tmp_path / "z"
    path.write_text("1 map 0.5 0.1\n1 map\n")
    with pytest.raises(TrecFormatError, match="4 fields") as caught:
        read_zscores(path)
    assert caught.value.line == 2 and caught.value.path == str(path)
    path.write_text("")
    with pytest.raises(TrecFormatError, match="empty"):
        read_zscores(path)
    path.write_text("1 map 1 1\n1 map 2 1\n1 map 3 1\n")
    with pytest.warns(WorkbenchWarning, match="lines 1 and 2; lines 2 and 3"):
        table = read_zscores(path)
    assert table.statistics(["1"], ["map"])[0].tolist() == [[2.0]]


def test_columns_reader_refuses_nul_bytes(tmp_path):
    path = tmp_path / "z"
    path.write_bytes(b"1 map 1 1\n1 m\0p 1 1\n")
    with pytest.raises(TrecFormatError, match="NUL") as caught:
        read_columns(path, ("topic", "measure", "mean", "stddev"), "z-score")
    assert caught.value.line == 2


# --------------------------------------------------------------------------- preference kernels, by hand
def test_a_complete_ranking_of_six_documents_makes_thirteen_preferences(tmp_path):
    """get_prefs.c's own example: levels 3, 2, 0, 6, 0, 2 in one JSG establish 13 preferences. Retrieved
    d4 d1 d6 d2 (d3, d5 not): the 5 preferences between retrieved documents are fulfilled (d6 and d2 share
    level 2: none between them), and the 8 over an unretrieved level-0 document are implied ones."""
    c = _counts(tmp_path, "q g s d1 3\nq g s d2 2\nq g s d3 0\nq g s d4 6\nq g s d5 0\nq g s d6 2\n",
                _run("d4", "d1", "d6", "d2"))
    assert pm.prefs_num_prefs_poss(c) == 13  # m_prefs_num_prefs_poss.c
    assert (c.fulfilled_ret.tolist(), c.possible_ret.tolist()) == ([5], [5])
    assert (c.fulfilled_imp.tolist(), c.possible_imp.tolist(), c.possible_notoccur.tolist()) == ([8], [8], [0])
    assert pm.prefs_num_prefs_ful(c) == 13 and pm.prefs_num_prefs_ful_ret(c) == 5
    assert pm.prefs_simp(c) == pm.prefs_simp_ret(c) == pm.prefs_simp_imp(c) == 1.0


def test_transitive_preferences_within_one_group(tmp_path):
    """get_prefs.c: 1>2>3 in sub1 and 2>4 in sub2 express 5 preferences (1>4 by transitivity; none between 3
    and 4). Ranked 4 1 3 2: 1>3 and 1>2 fulfilled, 4 before 1 and 2, 3 before 2 fail."""
    c = _counts(tmp_path, "q g s1 d1 3\nq g s1 d2 2\nq g s1 d3 1\nq g s2 d2 5\nq g s2 d4 4\n",
                _run("d4", "d1", "d3", "d2"))
    assert pm.prefs_num_prefs_poss(c) == 5
    assert (c.fulfilled_ret.tolist(), c.possible_ret.tolist()) == ([2], [5])
    assert pm.prefs_simp(c) == 2 / 5 and pm.prefs_avgjg(c) == 2 / 5


def test_two_users_and_a_conflict(tmp_path):
    """m_prefs_simp.c, m_prefs_pair.c, m_prefs_avgjg.c: user u1 prefers a > b, u2 prefers b > a and b > c.
    Ranked a b (c not retrieved): 1 of the 2 preferences on (a, b) fulfilled, b > c fulfilled (implied).
    simp = 2/3; pair = (1/2 + 1) / 2 pairs; avgjg = (1/1 + 1/2) / 2 users; among the retrieved only:
    simp_ret = 1/2, pair_ret = 1/2, avgjg_ret = (1 + 0) / 2."""
    c = _counts(tmp_path, "q u1 s a 2\nq u1 s b 1\nq u2 s b 2\nq u2 s a 1\nq u2 s c 1\n", _run("a", "b"))
    assert pm.prefs_simp(c) == 2 / 3 and pm.prefs_pair(c) == 0.75 and pm.prefs_avgjg(c) == 0.75
    assert pm.prefs_simp_ret(c) == 0.5 and pm.prefs_pair_ret(c) == 0.5 and pm.prefs_avgjg_ret(c) == 0.5
    assert pm.prefs_simp_imp(c) == 2 / 3 and pm.prefs_pair_imp(c) == 0.75 and pm.prefs_avgjg_imp(c) == 0.75
    assert c.counts.tolist() == [[0, 1, 0], [1, 0, 1], [0, 0, 0]]  # docid ranks: a 0, b 1, c 2


def test_unretrieved_pairs_fail_in_pair_and_are_ignored_in_pair_imp(tmp_path):
    """m_prefs_pair.c counts a pair of unretrieved documents as a failure, m_prefs_pair_imp.c ignores it:
    a > b > c, only a retrieved: pairs (a, b), (a, c) fulfilled, (b, c) neither retrieved."""
    c = _counts(tmp_path, "q g s a 3\nq g s b 2\nq g s c 1\n", _run("a"))
    assert pm.prefs_pair(c) == 2 / 3 and pm.prefs_pair_imp(c) == 1.0 and pm.prefs_pair_ret(c) == 0.0
    assert pm.prefs_simp(c) == 2 / 3 and c.possible_notoccur.tolist() == [1]


def test_rnonrel_adds_preferences_when_fewer_nonrelevant_documents(tmp_path):
    """m_prefs_avgjg_Rnonrel.c, R ≥ N: a, b relevant (2, 1), n non-relevant; ranked b n (a not retrieved).
    Fulfilled: b > n; possible: 3. With R − N = 1: + num_rel_ret · 1 = 1 fulfilled, + R · 1 = 2 possible: 2/5.
    Among the retrieved (_ret.c): R = N = 1, b > n fulfilled of 1: 1.0."""
    c = _counts(tmp_path, "q g s a 2\nq g s b 1\nq g s n 0\n", _run("b", "n"))
    assert pm.prefs_avgjg_Rnonrel(c) == 2 / 5 and pm.prefs_avgjg_Rnonrel_ret(c) == 1.0


def test_rnonrel_recounts_with_the_first_r_nonrelevant_documents(tmp_path):
    """m_prefs_avgjg_Rnonrel.c, N > R: a relevant, n1 n2 n3 non-relevant; ranked a n1 n2. The recount pairs
    every document of every class — the non-relevant class itself included, as its loop over ec1 does — with
    the first R = 1 non-relevant document, n1: only a precedes it, so 1 fulfilled of 4 pairs."""
    c = _counts(tmp_path, "q g s a 1\nq g s n1 0\nq g s n2 0\nq g s n3 0\n", _run("a", "n1", "n2"))
    assert c.recounted.tolist() == [[1, 4]] and pm.prefs_avgjg_Rnonrel(c) == 0.25
    # _ret.c: retrieved R = 1 < N = 2, the same pairs among the retrieved documents: a, n1, n2 against n1
    assert c.recounted_ret.tolist() == [[1, 3]] and pm.prefs_avgjg_Rnonrel_ret(c) == pytest.approx(1 / 3)


def test_documents_ranked_by_score_then_id_ascending_and_cut_by_max_docs(tmp_path):
    """form_prefs_counts.c's comp_sim_docno breaks ties by document id ascending (form_res_rels.c: descending):
    a and b tie, so a ranks first and a > b is fulfilled; -M 1 keeps a only."""
    run = "q Q0 b 1 1.0 r\nq Q0 a 2 1.0 r\n"
    assert _counts(tmp_path, "q g s a 2\nq g s b 1\n", run).fulfilled_ret.tolist() == [1]
    cut = _counts(tmp_path, "q g s a 2\nq g s b 1\n", run, max_docs=1)
    assert cut.num_judged_ret == 1 and cut.fulfilled_imp.tolist() == [1]


@pytest.mark.parametrize("prefs, message", [
    ("q g s a 2\nq g s a 1\nq g s b 0\n", "two relevance levels"),
    ("q g s1 a 2\nq g s1 b 0\nq g s2 b 1\nq g s2 c 0\n", "both level 0 and a positive level"),
    ("q g s1 a 2\nq g s1 b 1\nq g s2 b 2\nq g s2 a 1\n", "contradict each other"),
])
def test_inconsistent_preferences_are_named_errors(tmp_path, prefs, message):
    """form_prefs_counts.c stops on these (and aborts on a contradiction); the error names file and topic."""
    with pytest.raises(pm.InconsistentPreferencesError, match=message) as caught:
        _counts(tmp_path, prefs, _run("a", "b"))
    assert str(tmp_path / "prefs") in str(caught.value) and "topic 'q'" in str(caught.value)
    assert isinstance(caught.value, WorkbenchError)


def test_a_repeated_run_document_is_refused_with_its_line(tmp_path):
    (tmp_path / "prefs").write_text("q g s a 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 2 r\nq Q0 b 2 1 r\nq Q0 a 3 0 r\n")
    with pytest.raises(TrecFormatError, match="already on line 1") as caught:
        evaluate(tmp_path / "prefs", tmp_path / "run", ["all_prefs"], Options(rel_format="prefs"))
    assert caught.value.line == 3


# ------------------------------------------------------------- form_prefs_counts.c, loop for loop
def _c_prefs(lines, results, max_docs=None):
    """form_prefs_counts.c (form_prefs_and_ranks, form_jg_ec, add_ec_pref_to_jg, form_jg_pa, add_transitives,
    add_pa_pref_to_jg) and the m_prefs_*.c measures, transliterated: ``lines`` (jg, jsg, level, docno) of one
    topic, ``results`` (docno, sim). Python's sorts are stable, as glibc's merge sort."""
    res = sorted(results, key=functools.cmp_to_key(
        lambda a, b: -1 if a[1] > b[1] else 1 if a[1] < b[1] else (a[0] > b[0]) - (a[0] < b[0])))
    res = [[d, i + 1] for i, (d, _) in enumerate(res[:max_docs])]
    res.sort(key=lambda r: r[0])
    prefs = sorted([[jg, jsg, lv, d, None] for jg, jsg, lv, d in lines], key=lambda p: p[3])
    p, i = 0, 0
    while i < len(res) and p < len(prefs):
        while p < len(prefs) and prefs[p][3] < res[i][0]:
            p += 1
        if p < len(prefs) and prefs[p][3] == res[i][0]:
            while p < len(prefs) and prefs[p][3] == res[i][0]:
                p += 1
        else:
            res[i][1] = -1
        i += 1
    res = sorted(res[:i], key=lambda r: r[1])
    res = sorted([[d, n] for n, (d, _) in enumerate(r for r in res if r[1] > -1)], key=lambda r: r[0])
    njr = nxt = len(res)
    p = 0
    for d, rank in res:
        while prefs[p][3] < d:
            start = p
            prefs[p][4] = nxt
            nxt, p = nxt + 1, p + 1
            while prefs[p][3] == prefs[start][3]:
                prefs[p][4], p = prefs[start][4], p + 1
        prefs[p][4] = rank
        start, p = p, p + 1
        while p < len(prefs) and prefs[p][3] == prefs[start][3]:
            prefs[p][4], p = rank, p + 1
    while p < len(prefs):
        start = p
        prefs[p][4] = nxt
        nxt, p = nxt + 1, p + 1
        while p < len(prefs) and prefs[p][3] == prefs[start][3]:
            prefs[p][4], p = prefs[start][4], p + 1
    nj = nxt
    prefs.sort(key=lambda x: (x[0], x[1], -x[2], x[4]))
    pc = [[0] * nj for _ in range(nj)]
    jgs = []
    for jg in sorted({x[0] for x in prefs}):
        group = [x for x in prefs if x[0] == jg]
        g = dict(fr=0, pr=0, fi=0, pi=0, no=0, rel=0, relret=0, non=0, nonret=0)
        if len({x[1] for x in group}) == 1:  # equivalence classes
            ecs = []
            for x in group:
                if not ecs or ecs[-1][0] != x[2]:
                    ecs.append([x[2], []])
                ecs[-1][1].append(x[4])
            g["ecs"] = ecs
            for e1, (level, ranks) in enumerate(ecs):
                ret = sum(1 for r in ranks if r < njr)
                if level > 0:
                    g["relret"], g["rel"] = g["relret"] + ret, g["rel"] + len(ranks)
                else:
                    g["nonret"], g["non"] = g["nonret"] + ret, g["non"] + len(ranks)
                for _, ranks2 in ecs[e1 + 1:]:
                    for p1 in ranks:
                        for p2 in ranks2:
                            pc[p1][p2] += 1
                            if p1 == p2:
                                raise pm.InconsistentPreferencesError("same doc in two ec")
                            if p1 < p2:
                                key = "fr" if p2 < njr else "fi" if p1 < njr else "no"
                            else:
                                key = "pr" if p1 < njr else "pi" if p2 < njr else "no"
                            g[key] += 1
        else:  # preference array
            rel = [-1.0] * nj
            a = [[0] * nj for _ in range(nj)]
            for k, x in enumerate(group):
                if (rel[x[4]] > 0 and x[2] == 0) or (rel[x[4]] == 0 and x[2] > 0):
                    raise pm.InconsistentPreferencesError("0 and non-0")
                rel[x[4]] = x[2]
                j = k + 1
                while j < len(group) and group[j][1] == x[1] and group[j][2] == x[2]:
                    j += 1
                while j < len(group) and group[j][1] == x[1]:
                    a[x[4]][group[j][4]] = 1
                    j += 1
            for k in range(nj):
                a[k][k] = 1
            current = a
            while True:
                product = [[int(any(a[r][k] and current[k][c] for k in range(nj))) for c in range(nj)]
                           for r in range(nj)]
                if product == current:
                    break
                current = product
            a = [[current[r][c] if r != c else 0 for c in range(nj)] for r in range(nj)]
            if any(a[r][c] and a[c][r] for r in range(nj) for c in range(nj)):
                raise pm.InconsistentPreferencesError("inconsistency")
            g["rel_array"], g["a"] = rel, a
            g["relret"] = sum(1 for r in range(njr) if rel[r] > 0)
            g["nonret"] = sum(1 for r in range(njr) if rel[r] == 0)
            g["rel"] = g["relret"] + sum(1 for r in range(njr, nj) if rel[r] > 0)
            g["non"] = g["nonret"] + sum(1 for r in range(njr, nj) if rel[r] == 0)
            for r in range(nj):
                for c in range(nj):
                    if a[r][c] and r != c:
                        pc[r][c] += 1
                        key = (("fr" if c > r else "pr") if c < njr else "fi") if r < njr else \
                            ("pi" if c < njr else "no")
                        g[key] += 1
        g["pr"] += g["fr"]
        g["pi"] += g["fi"]
        jgs.append(g)
    return jgs, pc, njr, nj


def _c_recalculate(g, njr, retrieved_only: bool):
    """m_prefs_avgjg_Rnonrel.c's recalculate (``retrieved_only``: m_prefs_avgjg_Rnonrel_ret.c's)."""
    ful = poss = 0
    if "ecs" in g:
        ecs = g["ecs"]
        cut = ecs[-1][1][:g["relret" if retrieved_only else "rel"]]
        pairs = [(r1, r2) for e1 in range(len(ecs)) for e2 in range(e1 + 1, len(ecs) - 1)
                 for r1 in ecs[e1][1] for r2 in ecs[e2][1]]
        pairs += [(r1, r2) for e1 in range(len(ecs)) for r1 in ecs[e1][1] for r2 in cut]
        for r1, r2 in pairs:
            if retrieved_only and (r1 >= njr or r2 >= njr):
                continue
            if r1 < r2 and (retrieved_only or r1 < njr):
                ful += 1
            else:
                poss += 1
    else:
        rel, a = g["rel_array"], g["a"]
        seen, first = 0, len(rel) if not retrieved_only else njr
        for k in range(njr if retrieved_only else len(rel)):
            if rel[k] == 0:
                seen += 1
                if seen == g["rel"] + 1:
                    first = k
                    break
        kept = [k for k in range(njr if retrieved_only else len(rel)) if not (k >= first and rel[k] == 0)]
        for r in kept:
            for c in kept:
                if a[r][c] and r != c:
                    if r < njr and (c > r or c >= njr):
                        ful += 1
                    else:
                        poss += 1
    return ful, poss + ful


def _c_measures(jgs, pc, njr, nj):
    """The fourteen m_prefs_*.c, transliterated."""
    def ratio(a, b):
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.float64(a) / np.float64(b))

    def avg(ful_keys, poss_keys):
        total = 0.0
        for g in jgs:
            ful, poss = sum(g[k] for k in ful_keys), sum(g[k] for k in poss_keys)
            if poss:
                total += ful / poss
        return total / len(jgs) if total > 0 else 0.0

    def rnonrel(retrieved_only):
        total = np.float64(0.0)
        for g in jgs:
            r, n = (g["relret"], g["nonret"]) if retrieved_only else (g["rel"], g["non"])
            if r >= n:
                ful = g["fr"] + (0 if retrieved_only else g["fi"]) + g["relret"] * (r - n)
                poss = g["pr"] + (0 if retrieved_only else g["pi"] + g["no"]) + g["rel"] * (r - n)
            else:
                ful, poss = _c_recalculate(g, njr, retrieved_only)
            total += ratio(ful, poss)
        return float(total / len(jgs)) if total > 0 else 0.0

    def pairs(regions):
        total, count = 0.0, 0
        for r in range(njr):
            for c in range(r + 1, njr):
                if pc[r][c] or pc[c][r]:
                    count, total = count + 1, total + pc[r][c] / (pc[r][c] + pc[c][r])
        if regions > 1:
            for r in range(njr):
                for c in range(njr, nj):
                    if pc[r][c] or pc[c][r]:
                        count, total = count + 1, total + pc[r][c] / (pc[r][c] + pc[c][r])
        if regions > 2:
            count += sum(1 for r in range(njr, nj) for c in range(r + 1, nj) if pc[r][c] or pc[c][r])
        return total / count if count else 0.0

    def simple(ful, poss):
        return ful / poss if poss else 0.0

    total = {k: sum(g[k] for g in jgs) for k in ("fr", "pr", "fi", "pi", "no")}
    return {"prefs_num_prefs_poss": float(total["pr"] + total["pi"] + total["no"]),
            "prefs_num_prefs_ful": float(total["fr"] + total["fi"]), "prefs_num_prefs_ful_ret": float(total["fr"]),
            "prefs_simp": simple(total["fr"] + total["fi"], total["pr"] + total["pi"] + total["no"]),
            "prefs_pair": pairs(3), "prefs_avgjg": avg(("fr", "fi"), ("pr", "pi", "no")),
            "prefs_avgjg_Rnonrel": rnonrel(False), "prefs_simp_ret": simple(total["fr"], total["pr"]),
            "prefs_pair_ret": pairs(1), "prefs_avgjg_ret": avg(("fr",), ("pr",)),
            "prefs_avgjg_Rnonrel_ret": rnonrel(True),
            "prefs_simp_imp": simple(total["fr"] + total["fi"], total["pr"] + total["pi"]),
            "prefs_pair_imp": pairs(2), "prefs_avgjg_imp": avg(("fr", "fi"), ("pr", "pi"))}


@st.composite
def preference_judgements(draw):
    """One topic's preference lines: JGs of one JSG (equivalence classes, a line sometimes repeated) or several
    (consistent with a hidden order, level 0 for a JG's non-relevant documents), a JG name sometimes shared (which
    may make them inconsistent), and a run with tied scores and unjudged documents."""
    docs = [f"d{i}" for i in range(draw(st.integers(2, 8)))]
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        jg = f"g{draw(st.integers(0, 3))}"
        members = draw(st.lists(st.sampled_from(docs), min_size=1, max_size=len(docs), unique=True))
        nonrel = set(draw(st.lists(st.sampled_from(members), unique=True)))
        subgroups = draw(st.integers(1, 3))
        for s in range(subgroups):
            chosen = members if subgroups == 1 else draw(st.lists(st.sampled_from(members), min_size=1,
                                                                   unique=True))
            level = 0.0
            for d in sorted(chosen, key=members.index):  # levels rise along `members` (the hidden order)
                level = max(level + draw(st.sampled_from([0.0, 1.0, 2.5])), 1.0) if d not in nonrel else level
                lines.append((jg, f"s{s}", 0.0 if d in nonrel else level, d))
                if subgroups == 1 and draw(st.integers(0, 9)) == 0:
                    lines.append((jg, f"s{s}", 0.0 if d in nonrel else level, d))
    lines = draw(st.permutations(lines))
    retrieved = draw(st.lists(st.sampled_from([*docs, "u1", "u2"]), unique=True))
    results = [(d, float(draw(st.integers(0, 3)))) for d in retrieved]
    return lines, results, draw(st.sampled_from([None, None, 1, 3]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                   HealthCheck.function_scoped_fixture])
@given(case=preference_judgements())
def test_preference_measures_follow_trec_evals_loops(tmp_path, case):
    """Every prefs_* value, to the last bit, and every refusal, against form_prefs_counts.c and m_prefs_*.c
    transliterated (random judgements; the drop-in was also compared with the trec_eval 10.0 binary on such
    files while it was written)."""
    lines, results, max_docs = case
    prefs = "".join(f"q {jg} {jsg} {d} {level}\n" for jg, jsg, level, d in lines)
    run = "".join(f"q Q0 {d} {i} {s} r\n" for i, (d, s) in enumerate(results)) or "x Q0 a 1 1 r\n"
    placeholders = not results
    try:
        expected = _c_measures(*_c_prefs(lines, results or [("ceci_nest_pas_un_docno", 1.0)], max_docs))
    except pm.InconsistentPreferencesError:
        with pytest.raises(pm.InconsistentPreferencesError):
            _counts(tmp_path, prefs, run, max_docs=max_docs, placeholders=placeholders)
        return
    counts = _counts(tmp_path, prefs, run, max_docs=max_docs, placeholders=placeholders)
    assert {name: getattr(pm, name)(counts) for name in MEASURES} == expected


# --------------------------------------------------------------------------- judgement-group kernels
def test_judgement_group_kernels_by_hand():
    """m_map_avgjg.c, m_P_avgjg.c, m_Rprec_mult_avgjg.c: topic 0 judged by two users, topic 1 by one.
    Rows: [1, 0, 1] (R = 2), [0, 1, 0] (R = 2), [0, 0, 1] (R = 3)."""
    t = GainTable.from_gains([[1, 0, 1], [0, 1, 0], [0, 0, 1]], [[1, 1], [1, 1], [1, 1, 1]])
    groups = np.array([0, 0, 1])
    ap = [(1 / 1 + 2 / 3) / 2, (1 / 2) / 2, (1 / 3) / 3]  # precisions added rank by rank, over R
    assert map_avgjg(t, groups, 2).tolist() == [(ap[0] + ap[1]) / 2, ap[2]]
    assert precision_avgjg(t, groups, 2, k=1).tolist() == [(1 + 0) / 2, 0.0]
    assert precision_avgjg(t, groups, 2, k=5).tolist() == [(2 / 5 + 1 / 5) / 2, 1 / 5]  # beyond the ranking
    # multiple 1.0: cutoffs ⌊2 + 0.9⌋ = 2, 2, ⌊3.9⌋ = 3; multiple 0.2: ⌊0.4 + 0.9⌋ = 1, 1, ⌊0.6 + 0.9⌋ = 1
    assert r_precision_multiple_avgjg(t, groups, 2, 1.0).tolist() == [(1 / 2 + 1 / 2) / 2, 1 / 3]
    assert r_precision_multiple_avgjg(t, groups, 2, 0.2).tolist() == [(1 + 0) / 2, 0.0]
    assert r_precision_multiple_avgjg(t, groups, 2, 0.1).tolist() == [(1 + 0) / 2, 0.0]  # ⌊0.2 + 0.9⌋ = 1


def test_average_over_groups_adds_in_row_order_and_divides_only_above_one():
    assert average_over_groups(np.array([0.1, 0.2, 0.7]), np.array([0, 0, 2]), 3).tolist() == \
        [(0.1 + 0.2) / 2, 0.0, 0.7]


@settings(max_examples=200, deadline=None)
@given(rows=st.lists(st.lists(st.integers(0, 2), max_size=12), min_size=1, max_size=4),
       extra=st.lists(st.integers(0, 4), min_size=4, max_size=4), multiple=st.sampled_from([0.2, 0.5, 1.0, 1.7]),
       k=st.integers(1, 15), level=st.integers(1, 2))
def test_judgement_group_kernels_follow_trec_evals_loops(rows, extra, multiple, k, level):
    """The three kernels against m_map_avgjg.c, m_P_avgjg.c and m_Rprec_mult_avgjg.c transliterated, one topic
    whose JGs are the rows (unretrieved relevant documents: ``extra``)."""
    num_rel = [sum(1 for g in r if g >= level) + e for r, e in zip(rows, extra, strict=False)]
    t = GainTable.from_gains(rows, [[g for g in r if g > 0] + [level] * e for r, e in zip(rows, extra,
                                                                                         strict=False)])
    groups = np.zeros(len(rows), dtype=np.int64)
    ap = p = rp = 0.0
    for r, n in zip(rows, num_rel, strict=True):
        rel_so_far, total = 0, 0.0
        for i, g in enumerate(r):
            if g >= level:
                rel_so_far += 1
                total += rel_so_far / (i + 1)
        ap += total / n if rel_so_far else 0.0
        p += sum(1 for g in r[:k] if g >= level) / k
        cut = int(multiple * n + 0.9)
        rel_ret = sum(1 for g in r if g >= level)
        if cut > len(r):
            rp += rel_ret / cut
        else:
            rel_so_far = rel_ret
            for i in range(len(r), 0, -1):
                if rel_so_far <= 0:
                    break
                if i == cut:
                    rp += rel_so_far / i
                if r[i - 1] >= level:
                    rel_so_far -= 1
    n_jgs = len(rows)
    assert map_avgjg(t, groups, 1, level)[0] == (ap / n_jgs if n_jgs > 1 else ap)
    assert precision_avgjg(t, groups, 1, k, level)[0] == (p / n_jgs if n_jgs > 1 else p)
    assert r_precision_multiple_avgjg(t, groups, 1, multiple, level)[0] == (rp / n_jgs if n_jgs > 1 else rp)


def test_group_table_joins_each_group_and_honours_judged_only_and_placeholders(tmp_path):
    """form_res_rels_jg.c: each JG's grades; -J drops each JG's unjudged documents; -c gives a topic the run
    lacks trec_eval's one-document placeholder ranking."""
    (tmp_path / "q").write_text("1 u1 a 1\n1 u1 b 0\n1 u2 b 2\n2 u1 c 1\n")
    (tmp_path / "run").write_text("1 Q0 x 1 3 r\n1 Q0 a 2 2 r\n1 Q0 b 3 1 r\n")
    lines = read_lines(tmp_path / "run", "run")
    run = rank_runs(None, lines.topics, lines.documents, lines.values)[""]
    groups = group_table(read_judgement_groups(tmp_path / "q"), run, ["1", "2"], placeholders=True)
    assert groups.table.gains.tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]] and groups.groups.tolist() == [0, 0, 1]
    assert groups.table.placeholder.tolist() == [False, False, True]
    assert groups.table.judged_only().gains.tolist() == [[1, 0], [2, 0], [0, 0]]


# ------------------------------------------------------------------------------------------- yaap, z
def test_yaap_by_hand():
    """m_yaap.c: ranked [rel, non, rel], R = 2: S = 1/1 + 2/3, log((1 + S) / (1 + R − S)) = log 2; no relevant
    document: log(1 / 1) = 0."""
    t = GainTable.from_gains([[1, 0, 1], [0, 0]], [[1, 1], []])
    assert precision_sums(t).tolist() == [1 + 2 / 3, 0.0]
    assert yaap(t).tolist() == [pytest.approx(math.log(2), abs=1e-15), 0.0]


def test_zscores_by_hand():
    """convert_zscores.c: (value − mean) / stddev; stddev 0: 0 at the mean, else missing; no statistics:
    −1000000."""
    z = zscores(np.array([0.3, 0.2, 0.5, 0.4]), np.array([0.1, 0.2, 0.1, 0.0]), np.array([0.1, 0.0, 0.0, 1.0]),
                np.array([True, True, True, False]))
    assert z.tolist() == [(0.3 - 0.1) / 0.1, 0.0, MISSING_ZSCORE_VALUE, MISSING_ZSCORE_VALUE]


def test_zscore_lookups_search_as_trec_eval_searches(tmp_path):
    """convert_zscores.c's binary searches start one past the end: a measure sorting after all of its topic's
    is read from the next topic's first line (recorded from the trec_eval 10.0 binary: P_5 of topic 1 below
    has z-score (0.2 − 0.1) / 0.1 = 1); past the last topic trec_eval reads beyond its table (it may crash):
    missing, with a note."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n2 Q0 b 1 2 r\n2 Q0 a 2 1 r\n")
    (tmp_path / "z").write_text("1 P_10 0.5 0.1\n2 P_5 0.1 0.1\n2 map 0.5 0.25\n")
    with pytest.warns(WorkbenchWarning, match="next topic's first line"):
        out = render(evaluate(tmp_path / "q", tmp_path / "run", ["map", "P.5"], zscores_path=tmp_path / "z"),
                     per_topic=True)
    assert out.splitlines() == ["Zmap                   \t1\t-1000000.0000", "ZP_5                   \t1\t1.0000",
                                "Zmap                   \t2\t0.0000", "ZP_5                   \t2\t1.0000",
                                "Zmap                   \tall\t-500000.0000", "ZP_5                   \tall\t1.0000"]
    (tmp_path / "z").write_text("0 map 0.5 0.1\n")
    with pytest.warns(WorkbenchWarning, match="past the end"):
        evaluate(tmp_path / "q", tmp_path / "run", ["map"], zscores_path=tmp_path / "z")


def test_zscored_counts_and_geometric_means(tmp_path, capsys):
    """-Z: counts printed with 4 decimals and summed; num_q counted; gm_map's per-topic value is its logarithm
    (m_gm_map.c) z-scored, the summary exp of their mean; runid printed as it is; with -c, num_rel's summary
    is the judgements' count (m_num_rel.c), not a z-score."""
    (tmp_path / "q").write_text("1 0 a 1\n1 0 b 0\n2 0 a 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2 r\n")
    (tmp_path / "z").write_text(f"1 num_ret 0 2\n1 gm_map 0 {math.log(10)}\n1 num_rel 2 1\n2 num_rel 0 1\n"
                                "2 num_ret 0 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        assert main(["-m", "runid", "-m", "num_q", "-m", "num_ret", "-m", "gm_map", "-m", "num_rel", "-c", "-q",
                     "-Z", str(tmp_path / "z"), str(tmp_path / "q"), str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out.splitlines() == [  # recorded from the trec_eval 10.0 binary
        "Znum_ret               \t1\t0.5000", "Znum_rel               \t1\t-1.0000",
        "Znum_ret               \t2\t0.0000", "Znum_rel               \t2\t1.0000",
        "runid                 \tall\tr", "Znum_q                 \tall\t2.0000",
        "Znum_ret               \tall\t0.5000", "Znum_rel               \tall\t2.0000",
        "Zgm_map                \tall\t0.0000"]


# ------------------------------------------------------------------------------------------- the drop-in
def test_measures_need_their_relevance_format(tmp_path):
    """trec_eval: a measure whose merging code refuses the format cannot be calculated (status 4), once the files
    are read (a prefs file read as qrels is a malformed qrels file first, status 2)."""
    (tmp_path / "prefs").write_text("q g s a 1\n")
    (tmp_path / "qrels").write_text("q 0 a 1\n")
    (tmp_path / "run").write_text("q Q0 a 1 1 r\n")
    with pytest.raises(TrecEvalError, match="-R prefs cannot give map .*needs -R qrels") as caught:
        evaluate(tmp_path / "prefs", tmp_path / "run", ["map", "prefs_simp"], Options(rel_format="prefs"))
    assert caught.value.exit_status == 4
    with pytest.raises(TrecEvalError, match="prefs_simp needs -R prefs or -R qrels_prefs"):
        evaluate(tmp_path / "qrels", tmp_path / "run", ["prefs_simp"])
    with pytest.raises(TrecFormatError, match="a qrels line has 4 fields") as caught:
        evaluate(tmp_path / "prefs", tmp_path / "run", ["prefs_simp"])
    assert caught.value.exit_status == 2
    with pytest.raises(TrecEvalError, match="Illegal rel_format"):
        evaluate(tmp_path / "prefs", tmp_path / "run", ["runid"], Options(rel_format="trec"))


def test_preferences_through_the_command_line(tmp_path, capsys):
    """runid, num_q and prefs_* with -R prefs; -c scores a topic the run lacks on the placeholder ranking and
    averages over every judged topic; num counts are summed."""
    (tmp_path / "prefs").write_text("1 g s a 2\n1 g s b 1\n2 g s c 1\n2 g s d 0\n")
    (tmp_path / "run").write_text("1 Q0 b 1 2 r\n1 Q0 a 2 1 r\n")
    assert main(["-R", "prefs", "-m", "prefs", "-c", str(tmp_path / "prefs"), str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "runid                 \tall\tr", "num_q                 \tall\t2", "prefs_num_prefs_poss  \tall\t2",
        "prefs_num_prefs_ful   \tall\t0", "prefs_num_prefs_ful_ret\tall\t0", "prefs_simp            \tall\t0.0000",
        "prefs_pair            \tall\t0.0000", "prefs_avgjg           \tall\t0.0000"]


def test_judgement_groups_through_the_command_line(tmp_path, capsys):
    (tmp_path / "q").write_text("1 u1 a 1\n1 u2 b 1\n")
    (tmp_path / "run").write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    assert main(["--Rel_info_format=qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1,2", str(tmp_path / "q"),
                 str(tmp_path / "run")]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "map_avgjg             \tall\t0.7500", "P_avgjg_1             \tall\t0.5000",
        "P_avgjg_2             \tall\t0.5000"]


# ------------------------------------------------------------------------------------------------ fuzz
_SEEDS = {"prefs": b"q g s a 2\nq g s b 1\nq g s2 b 3\nq g s2 c 0\nq h s a 0\nq h s c 1\n",
          "qrels_prefs": b"q 0 a 2\nq 0 b 1\nq 1 c 0\n", "qrels_jg": b"q u1 a 1\nq u1 b 0\nq u2 b 2\n",
          "zscores": b"q map 0.5 0.1\nq P_5 0.2 0\nr map 1 1\n"}


@st.composite
def _mutated(draw, seed: bytes) -> bytes:
    data = bytearray(seed)
    for _ in range(draw(st.integers(0, 6))):
        at = draw(st.integers(0, len(data)))
        if draw(st.booleans()) and data:
            del data[at:at + draw(st.integers(1, 4))]
        else:
            data[at:at] = draw(st.binary(max_size=4)) if draw(st.booleans()) else \
                draw(st.sampled_from([b" ", b"\t", b"\n", b"\r\n", b"#", b"\x00", b"\xa0", b"nan", b"-1", b"0x1"]))
    return bytes(data)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), kind=st.sampled_from(sorted(_SEEDS)))
def test_every_format_gives_a_result_or_a_workbench_error(tmp_path, data, kind):
    """Mutated preference, judgement-group and z-score files through the drop-in: a result or a named
    WorkbenchError (malformed line, inconsistent preferences, no shared topic...), never another exception."""
    path, run, qrels = tmp_path / "rel", tmp_path / "run", tmp_path / "qrels"
    path.write_bytes(data.draw(_mutated(_SEEDS[kind])))
    run.write_text("q Q0 a 1 2 r\nq Q0 c 2 2 r\nq Q0 x 3 1 r\n")
    qrels.write_text("q 0 a 1\nq 0 c 0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", WorkbenchWarning)
        try:
            if kind == "zscores":
                render(evaluate(qrels, run, ["official"], zscores_path=path), per_topic=True)
            else:
                measures = ["qrels_jg"] if kind == "qrels_jg" else ["all_prefs"]
                render(evaluate(path, run, measures, Options(rel_format=kind, complete=data.draw(st.booleans()))),
                       per_topic=True)
        except WorkbenchError:
            pass


@settings(max_examples=40, deadline=None)
@given(st.lists(st.lists(st.integers(0, 2), min_size=1, max_size=5), min_size=1, max_size=3), st.data())
def test_the_catalogue_formulas_of_the_preference_measures_are_the_kernels(levels, data):
    """Issue 41 item 7: the formulas declared for the catalogue (``spec.formula``), read in the counts'
    notation — per JG j, F_ret(j), F_imp(j) fulfilled, P_ret(j), P_imp(j), P_none(j) possible — are what the
    kernels compute, on random JGs (each a list of equivalence classes of up to 5 documents) and rankings."""
    from workbench.metrics.registry import spec_of

    docs = max(len(group) for group in levels)
    rows = [(g, level, d) for g, group in enumerate(levels) for d, level in enumerate(group)]
    retrieved = data.draw(st.integers(0, docs))
    c = pm.count_preferences([g for g, _, _ in rows], [0] * len(rows), [float(v) for _, v, _ in rows],
                             [d for _, _, d in rows], docs, retrieved)
    f_ret, f_imp = c.fulfilled_ret.astype(float), c.fulfilled_imp.astype(float)
    p_ret, p_imp, p_none = (v.astype(float) for v in (c.possible_ret, c.possible_imp, c.possible_notoccur))

    def ratio(a, b):
        return np.divide(a, b, out=np.zeros_like(a), where=b > 0)

    written = {  # each as its formula writes it
        "prefs_num_prefs_poss": ((p_ret + p_imp + p_none).sum(), "Σ_j (P_ret(j) + P_imp(j) + P_none(j))"),
        "prefs_num_prefs_ful": ((f_ret + f_imp).sum(), "Σ_j (F_ret(j) + F_imp(j))"),
        "prefs_num_prefs_ful_ret": (f_ret.sum(), "Σ_j F_ret(j)"),
        "prefs_simp": (ratio((f_ret + f_imp).sum(), (p_ret + p_imp + p_none).sum()),
                       "Σ_j (F_ret(j) + F_imp(j)) / Σ_j (P_ret(j) + P_imp(j) + P_none(j))"),
        "prefs_simp_ret": (ratio(f_ret.sum(), p_ret.sum()), "Σ_j F_ret(j) / Σ_j P_ret(j)"),
        "prefs_simp_imp": (ratio((f_ret + f_imp).sum(), (p_ret + p_imp).sum()),
                           "Σ_j (F_ret(j) + F_imp(j)) / Σ_j (P_ret(j) + P_imp(j))"),
        "prefs_avgjg": (ratio(f_ret + f_imp, p_ret + p_imp + p_none).mean(),
                        "(1/J) Σ_j (F_ret(j) + F_imp(j)) / (P_ret(j) + P_imp(j) + P_none(j))"),
        "prefs_avgjg_ret": (ratio(f_ret, p_ret).mean(), "(1/J) Σ_j F_ret(j) / P_ret(j)"),
        "prefs_avgjg_imp": (ratio(f_ret + f_imp, p_ret + p_imp).mean(),
                            "(1/J) Σ_j (F_ret(j) + F_imp(j)) / (P_ret(j) + P_imp(j))"),
    }
    for name, (value, formula) in written.items():
        assert spec_of(name).formula.startswith(f"{name} = {formula}")
        assert getattr(pm, name)(c) == pytest.approx(float(value)), name
