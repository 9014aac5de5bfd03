"""The campaign-level R&S kernel (issue 24) against the per-pair engine: random campaigns with overlap, tails,
finite rests, every ``missing`` policy and several (n, W_n) settings in one call, to 1e-12."""

from __future__ import annotations

import random
from itertools import zip_longest

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests import rs_bruteforce
from tests.strategies import organizations
from workbench import Organization, reliability_sensitivity
from workbench.errors import ParameterError
from workbench.metrics import campaign_rs
from workbench.metrics.campaign_rs import campaign_scores
from workbench.metrics.registry import parse

SETTINGS = [(10, 0.8), (1, 0.5), (1e6, 1e-6), (3.5, 0.3), (100, 0.95)]
# Under a steep discount (W_n near 1) the per-pair engine itself is exact to 1e-9 only (test_reliability): there
# both are held to the brute force in exact arithmetic.
STEEP = [(2, 0.999998), (1, 1 - 1e-6), (1e6, 1 - 1e-6)]


def _segmented(pairs, constants, missing):
    """The segmented pass alone, on pairs without overlap."""
    encoded, which, _ = campaign_rs.encode_pairs(pairs)
    return campaign_rs._batched_encoded(encoded, which, constants, missing)


def _per_pair(pairs, chosen, missing):
    return np.array([[[getattr(reliability_sensitivity(gold, output, n=n, wn=wn, missing=missing), field)
                       for field in ("r_priority", "s_priority", "r_relatedness", "s_relatedness")]
                      for gold, output in pairs] for n, wn in chosen])


@st.composite
def campaigns(draw, overlap, finite=None):
    """Golds and runs drawn over one pool of documents; each run may lack topics (no pair for them)."""
    golds = draw(st.lists(organizations(finite=finite, overlap=overlap), min_size=1, max_size=3))
    runs = draw(st.lists(st.lists(st.one_of(st.none(), organizations(finite=finite, overlap=overlap)),
                                  min_size=len(golds), max_size=len(golds)), min_size=1, max_size=4))
    return [(gold, run[t]) for run in runs for t, gold in enumerate(golds) if run[t] is not None]


@pytest.mark.parametrize("missing", ["tail", "singleton", "replab"])
@settings(max_examples=150, deadline=None)
@given(pairs=campaigns(overlap=False), chosen=st.lists(st.sampled_from(SETTINGS), min_size=1, max_size=3,
                                                       unique=True))
def test_the_segmented_pass_equals_the_per_pair_engine(missing, pairs, chosen):
    # Documents that occur once on each side: every pair goes through the segmented pass, none alone.
    if not pairs:
        return
    constants = [campaign_rs.discount_constant(n, wn) for n, wn in chosen]
    got = _segmented(pairs, constants, missing)
    np.testing.assert_allclose(got, _per_pair(pairs, chosen, missing), rtol=0, atol=1e-12)


@pytest.mark.parametrize("missing", ["tail", "singleton", "replab"])
@settings(max_examples=100, deadline=None)
@given(pairs=campaigns(overlap=True), chosen=st.lists(st.sampled_from(SETTINGS), min_size=1, max_size=3,
                                                      unique=True))
def test_campaigns_with_overlap_equal_the_per_pair_engine(missing, pairs, chosen):
    got = campaign_scores(pairs, chosen, missing)
    assert got.shape == (len(chosen), len(pairs), 4)
    if pairs:
        np.testing.assert_allclose(got, _per_pair(pairs, chosen, missing), rtol=0, atol=1e-12)


@pytest.mark.parametrize("missing", ["tail", "singleton", "replab"])
@settings(max_examples=60, deadline=None)
@given(pairs=campaigns(overlap=False), chosen=st.sampled_from(STEEP))
def test_steep_discounts_equal_the_brute_force(missing, pairs, chosen):
    if not pairs:
        return
    got = _segmented(pairs, [campaign_rs.discount_constant(*chosen)], missing)[0]
    exact = [rs_bruteforce.reliability_sensitivity(gold, output, *chosen, missing) for gold, output in pairs]
    np.testing.assert_allclose(got, np.array(exact, dtype=float), rtol=0, atol=1e-11)


@pytest.mark.parametrize("missing", ["tail", "singleton", "replab"])
@settings(max_examples=80, deadline=None)
@given(pairs=campaigns(overlap=False, finite=True))
def test_equal_weights_of_finite_campaigns(missing, pairs):
    chosen = [(None, None), (10, 0.8)]
    if pairs:
        np.testing.assert_allclose(_segmented(pairs, [None, 2.5], missing),
                                   _per_pair(pairs, chosen, missing), rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_rankings_against_graded_golds_and_rankings(seed):
    # Many levels: small grids in padded blocks of several shapes, and rankings against rankings whose grids
    # are large (dominance sums pair by pair); some runs rank documents the gold never judged.
    rng = random.Random(seed)
    pool = [f"d{i}" for i in range(400)]
    golds = [Organization.from_graded({d: rng.randint(0, 3) for d in rng.sample(pool, 30)}) for _ in range(5)]
    golds += [Organization.from_ranking(rng.sample(pool, 300)) for _ in range(2)]
    pairs = [(gold, Organization.from_ranking(rng.sample(pool, rng.choice([0, 1, 7, 50, 250]))))
             for gold in golds for _ in range(6)]
    chosen = [(10, 0.8), (100, 0.95)]
    got = campaign_scores(pairs, chosen)
    assert not any(len(o.documents) < o.n_occurrences for pair in pairs for o in pair)  # all in one pass
    np.testing.assert_allclose(got, _per_pair(pairs, chosen, "tail"), rtol=0, atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(organizations(), max_size=4), st.lists(organizations(overlap=False), max_size=3))
def test_encoded_organizations_come_back_whole(some, more):
    # What a distributed campaign ships: the organizations rebuilt from the arrays are the same, occurrence
    # arrays included; overlap is flagged.
    orgs = some + more + [Organization.from_graded({"d1": 2, "d2": 1}), Organization.from_ranking(["x", "y"])]
    encoded = campaign_rs.Encoded.of(orgs)
    for i, org in enumerate(orgs):
        back = encoded.organization(i)
        assert back == org
        for got, expected in zip(back.occurrences, org.occurrences, strict=True):
            np.testing.assert_array_equal(got, expected)
        assert encoded.overlapping[i] == (len(org.documents) < len(org.occurrences.document))


def test_errors_are_the_per_pair_engines():
    gold, output = Organization.from_graded({"d1": 1}), Organization.from_ranking(["d1"])
    with pytest.raises(ParameterError, match="missing must be one of"):
        campaign_scores([(gold, output)], [(10, 0.8)], missing="drop")
    with pytest.raises(ParameterError, match="give both n and wn"):
        campaign_scores([(gold, output)], [(10, None)])
    with pytest.raises(ParameterError, match="unlimited tail"):
        campaign_scores([(gold, output)], [(None, None)])
    assert campaign_scores([], [(10, 0.8)]).shape == (1, 0, 4)


def test_measure_values_refuse_a_measure_other_than_r_and_s():
    """measure_values scores the R&S family only: another measure is refused by name (it was KeyError 'missing')."""
    gold, output = Organization.from_graded({"d1": 1}), Organization.from_ranking(["d2", "d1"])
    with pytest.raises(ParameterError, match="'P@3' is not one of R≺ S≺ R∼ S∼ F≺ F∼"):
        campaign_rs.measure_values([(gold, output)], {"F≺": parse("F≺(n=10, wn=0.8)"), "P@3": parse("P@3")})



@pytest.mark.parametrize("names", [("R≺", "S∼"), ("S≺",), ("R∼", "F≺"), ("F∼", "S∼")])
def test_measure_values_compute_only_the_views_they_need_and_equal_all_four(names, monkeypatch):
    # A sweep of R≺ and S∼ builds no S-view grid and no R-view contingency: the values it reads are those of
    # the four columns computed together, bit for bit; the columns no measure reads are not computed (NaN).
    rng = random.Random(len(names))
    pool = [f"d{i}" for i in range(40)]
    pairs = [(Organization.from_graded({d: rng.randint(0, 3) for d in rng.sample(pool, 12)}),
              Organization.from_ranking(rng.sample(pool, 15))) for _ in range(6)]
    chosen = [(10, 0.8), (2, 0.6)]
    measures = {f"{name}(n={n}, wn={wn})": parse(f"{name}(n={n}, wn={wn})") for n, wn in chosen for name in names}
    computed = []
    original = campaign_rs._batched_encoded
    monkeypatch.setattr(campaign_rs, "_batched_encoded", lambda *args: computed.append(original(*args))
                        or computed[-1])
    values = campaign_rs.measure_values(pairs, measures)
    every = campaign_scores(pairs, chosen)
    fields = ("R≺", "S≺", "R∼", "S∼")
    for s, (n, wn) in enumerate(chosen):
        for name in names:
            got = values[f"{name}(n={n}, wn={wn})"]
            if name.startswith("F"):
                r, s_ = (every[s, :, fields.index(side + name[1])] for side in "RS")
                np.testing.assert_array_equal(got, campaign_rs.f_alpha(r, s_))
            else:
                np.testing.assert_array_equal(got, every[s, :, fields.index(name)])
    wanted = {fields.index(side + name[1]) for name in names for side in ("RS" if name.startswith("F") else name[0])}
    assert [c for c in range(4) if not np.isnan(computed[0][:, :, c]).all()] == sorted(wanted)


@pytest.mark.parametrize("cells", [1, 300, 1 << 22])
def test_the_block_size_changes_no_bit(cells, monkeypatch):
    # Pairs are put in padded blocks of _CELLS entries: one pair a block, a few, or all of them in one give the
    # same values bit for bit (each pair's sums run over its own grid alone).
    rng = random.Random(cells)
    pool = [f"d{i}" for i in range(60)]
    pairs = [(Organization.from_graded({d: rng.randint(0, 3) for d in rng.sample(pool, 20)}),
              Organization.from_ranking(rng.sample(pool, rng.choice([3, 9, 17])))) for _ in range(12)]
    expected = campaign_scores(pairs, [(10, 0.8), (2, 0.6)])
    monkeypatch.setattr(campaign_rs, "_CELLS", cells)
    np.testing.assert_array_equal(campaign_scores(pairs, [(10, 0.8), (2, 0.6)]), expected)

@pytest.mark.parametrize("missing", ["tail", "singleton", "replab"])
@settings(max_examples=25, deadline=None)
@given(plain=campaigns(overlap=False), mixed=campaigns(overlap=True), rows=st.sampled_from([1, 7, 40]))
def test_blocks_of_pairs_change_no_bit(missing, plain, mixed, rows):
    # The segmented pass scores blocks of about _BLOCK_ROWS occurrences (one pair a block, a few, all in one),
    # between pairs with overlap that the per-pair engine scores: every value the same bits as in one block.
    pairs = [pair for two in zip_longest(plain, mixed) for pair in two if pair is not None]
    chosen = [(10, 0.8), (2, 0.6)]
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(campaign_rs, "_BLOCK_ROWS", 1 << 40)
        expected = campaign_scores(pairs, chosen, missing)
        patched.setattr(campaign_rs, "_BLOCK_ROWS", rows)
        np.testing.assert_array_equal(campaign_scores(pairs, chosen, missing), expected)


def test_blocks_cut_where_a_multiple_of_the_block_size_starts(monkeypatch):
    # Pairs of 3+2, 1+1, 4+4, 0+0 and 2+1 occurrences start at 0, 5, 7, 15, 15: in blocks of 6 occurrences the
    # pairs starting in [0, 6) go together, the one at 7 alone (it fills [6, 12) and more), those at 15 together.
    monkeypatch.setattr(campaign_rs, "_BLOCK_ROWS", 6)
    encoded = campaign_rs.Encoded.of([Organization.from_ranking(ids) for ids in (
        ["a", "b", "c"], ["a", "b"], ["a"], ["b"], ["a", "b", "c", "d"], [], ["c", "d"], ["d"])])
    pairs = np.array([[0, 1], [2, 3], [4, 4], [5, 5], [6, 7]])
    blocks = campaign_rs._blocks(encoded, pairs, np.arange(10, 15))
    assert [block.tolist() for block in blocks] == [[10, 11], [12], [13, 14]]
    assert campaign_rs._blocks(encoded, pairs[:0], np.arange(0)) == []


def test_sums_per_pair_read_each_pairs_rows_and_give_0_without_rows():
    # Rows grouped by pair, bounds [0, 0, 2, 2, 3]: pair 0 has none, pair 1 rows 0-1, pair 2 none, pair 3 row 2.
    got = campaign_rs._sums(np.array([0, 0, 2, 2, 3]), np.array([1.0, 2.0, 4.0]))
    assert got.tolist() == [0.0, 3.0, 0.0, 4.0]
    assert campaign_rs._sums(np.array([0, 0]), np.zeros(0)).tolist() == [0.0]


@pytest.mark.parametrize("missing", ["tail", "singleton", "replab"])
def test_pairs_without_occurrences_between_others_equal_the_per_pair_engine(missing):
    # Empty organizations leave pairs without rows on a side, amid pairs with rows (hand-made, every policy).
    ranking, graded = Organization.from_ranking(["d1", "d2", "d3"]), Organization.from_graded({"d2": 2, "d4": 1})
    pairs = [(Organization(), ranking), (graded, ranking), (graded, Organization()), (Organization(), Organization()),
             (Organization.from_clustering([["d1", "d2"]]), Organization.from_clustering([], rest=["d1", "d2"]))]
    np.testing.assert_allclose(campaign_scores(pairs, [(10, 0.8), (2, 0.6)], missing=missing),
                               _per_pair(pairs, [(10, 0.8), (2, 0.6)], missing), rtol=0, atol=1e-12)


def _filtering(positive, pool):
    return Organization.from_filtering(positive, [d for d in pool[12:] if d not in positive])


RS_MEASURES = ["R≺(n=10, wn=0.8)", "S≺(n=10, wn=0.8)", "R∼(n=10, wn=0.8)", "S∼(n=10, wn=0.8)", "F≺(n=2, wn=0.5)",
               "F∼(n=2, wn=0.5)", "R≺(n=10, wn=0.8, missing=singleton)", "S∼(n=3, wn=0.9, missing=replab)",
               "F≺(n=10, wn=0.8, missing=replab)"]


@pytest.mark.filterwarnings("ignore::workbench.data.campaign.MissingTopicsWarning")
@pytest.mark.parametrize("missing_topics", ["zero", "skip"])
def test_a_campaign_of_mixed_tasks_scores_what_evaluate_scores_pair_by_pair(missing_topics, monkeypatch):
    # One campaign mixing a ranking task, a clustering, a filtering and a general organization with overlap
    # (through the per-pair engine), runs lacking topics, every missing policy, several settings at once.
    from workbench import evaluate
    from workbench.data import Campaign

    rng = random.Random(7)
    pool = [f"d{i}" for i in range(30)]

    def clustering():
        docs = rng.sample(pool, 20)
        return Organization.from_clustering([docs[:7], docs[7:9], docs[9:]], rest=[d for d in pool if d not in docs])

    gold = {"rank": Organization.from_graded({d: rng.randint(0, 3) for d in rng.sample(pool, 12)}),
            "cluster": clustering(),
            "filter": Organization.from_filtering(pool[:8], pool[8:20]),
            "overlap": Organization.parse("d1 {d2 d3 d4}\n{d4 d5} {d6 d7}\n{d6 d7}")}
    runs = {f"sys{s}": {"rank": Organization.from_ranking(rng.sample(pool, 15)), "cluster": clustering(),
                        "filter": _filtering(rng.sample(pool, 10), pool),
                        "overlap": Organization.parse("{d6 d7}\nd4 {d4 d5} {d6 d1}\nd1 {d2 d3 d4}")}
            for s in range(3)}
    del runs["sys1"]["cluster"], runs["sys2"]["rank"]
    batched = []
    original = campaign_rs._batched_encoded
    monkeypatch.setattr(campaign_rs, "_batched_encoded",
                        lambda encoded, pairs, *rest: batched.append(len(pairs)) or original(encoded, pairs, *rest))
    frame = Campaign(gold, runs).evaluate(RS_MEASURES, missing_topics=missing_topics, progress=False)
    assert batched == [7, 7, 7]  # per missing policy: the 7 pairs without overlap in one pass, the 3 others alone
    assert len(frame) == len(RS_MEASURES) * (10 if missing_topics == "skip" else 12)
    for (system, topic), rows in frame.groupby(["system", "topic"], sort=False):
        got = dict(zip(rows.measure, rows.value, strict=True))
        if topic not in runs[system]:
            assert set(got.values()) == {0.0}
            continue
        expected = evaluate(gold[topic], runs[system][topic], RS_MEASURES)
        assert got == pytest.approx(expected, abs=1e-12, rel=0)


def test_a_bad_setting_raises_the_located_error_of_the_topic_by_topic_loop():
    from workbench.data import Campaign, CampaignError

    gold = {"q1": Organization.from_graded({"d1": 1})}
    campaign = Campaign(gold, {"sys": {"q1": Organization.from_ranking(["d1"])}})
    with pytest.raises(CampaignError, match="system 'sys', topic 'q1'.*unlimited tail"):
        campaign.evaluate(["R≺"], progress=False)


def test_array_backed_runs_are_encoded_without_their_organizations():
    # Runs read as arrays (RankedRun, trec_eval's ties) reach the kernel as their ids' bytes (Arrow string arrays:
    # no Organization, no Python string per id); values bit for bit those of a campaign of the same organizations
    # (the same numbering of the documents), and as evaluate's on each pair; errors keep their location.
    from workbench import evaluate
    from workbench.data import Campaign, CampaignError

    rng = random.Random(3)
    pool = [f"d{i}" for i in range(55)] + ["é", "ü1", "𝔡", "a b", "x\ty"]
    qrels = {f"q{t}": {d: rng.randint(0, 3) for d in rng.sample(pool, 20)} for t in range(4)}
    runs = {f"s{s}": {t: {d: rng.random() for d in rng.sample(pool, 30)} for t in qrels} for s in range(3)}
    campaign = Campaign.from_dicts(qrels, runs)
    frame = campaign.evaluate(RS_MEASURES, progress=False)
    ranking = {f"d{i}": 1.0 / (1 + i) for i in range(9)}
    ascii_ids = Campaign.from_dicts(qrels, {"s": dict.fromkeys(qrels, ranking)})
    ascii_ids.evaluate(RS_MEASURES, progress=False)
    assert ascii_ids.runs["s"].ids._strings is None  # coded from the ids' bytes (non-ASCII ids keep their texts)
    assert frame.equals(_of_organizations(campaign).evaluate(RS_MEASURES, progress=False))
    surrogate = Campaign.from_dicts({"q": {"\ud800": 1, "b": 2}}, {"s": {"q": {"\ud800": 0.5, "b": 0.9, "c": 0.1}}})
    assert surrogate.evaluate(RS_MEASURES, progress=False).equals(  # no UTF-8 text: the ids as strings
        _of_organizations(surrogate).evaluate(RS_MEASURES, progress=False))
    for (system, topic), rows in frame.groupby(["system", "topic"], sort=False):
        expected = evaluate(campaign.gold[topic], campaign.runs[system][topic], RS_MEASURES)
        assert dict(zip(rows.measure, rows.value, strict=True)) == pytest.approx(expected, abs=1e-12, rel=0)
    with pytest.raises(CampaignError, match="system 's0', topic 'q0'.*unlimited tail"):
        Campaign.from_dicts(qrels, {"s0": {"q0": {"d1": 1.0}}}).evaluate(["R≺"], missing_topics="skip",
                                                                           progress=False)


def _of_organizations(campaign):
    """The same campaign, its gold and runs as the Organizations they build."""
    from workbench.data import Campaign

    return Campaign({topic: campaign.gold[topic] for topic in campaign.gold},
                    {system: {topic: run[topic] for topic in run} for system, run in campaign.runs.items()})


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 6), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_documents_are_found_in_their_pair_by_table_and_by_sorting_alike(n_pairs, n_docs, seed):
    """campaign_rs._lookup: the row of the other side holding a row's (pair, document), or −1 — through a table of
    every key when their range is small, by sorting when it is large (many documents), as a dict finds it."""
    from workbench.metrics import campaign_rs

    rng = np.random.default_rng(seed)

    def rows(share: float) -> campaign_rs._Rows:
        pair, doc = np.nonzero(rng.random((n_pairs, n_docs)) < share)  # each document once per pair
        order = rng.permutation(len(pair))
        empty = np.zeros(0, dtype=np.int64)
        return campaign_rs._Rows(pair[order], doc[order], empty, empty, empty, empty)

    x, other = rows(0.5), rows(0.3)
    where = {(p, d): i for i, (p, d) in enumerate(zip(other.pair.tolist(), other.doc.tolist(), strict=True))}
    expected = [where.get((p, d), -1) for p, d in zip(x.pair.tolist(), x.doc.tolist(), strict=True)]
    for span in (n_docs, n_docs * 1000):  # the key range: small (a table), large (sorting)
        assert campaign_rs._lookup(x, other, span).tolist() == expected
