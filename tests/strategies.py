"""Hypothesis strategies for organizations with overlap, ties, tails and finite rests, and for classification
labellings (mono-label, multi-label, soft, flat or hierarchical)."""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

from workbench.model import Organization
from workbench.model.labelling import ClassTree, Labelling

DOCS = [f"d{i}" for i in range(1, 10)]


@st.composite
def organizations(draw, docs=DOCS, finite=None, max_levels=4, max_clusters=3, overlap=True):
    """A random Organization over ``docs``: levels of clusters (documents may repeat across clusters when
    ``overlap``), then an unlimited tail or a finite rest drawn from the unused documents."""
    levels, used = [], set()
    for _ in range(draw(st.integers(0, max_levels))):
        level = []
        for _ in range(draw(st.integers(1, max_clusters))):
            pool = docs if overlap else [d for d in docs if d not in used]
            if not pool:
                break
            cluster = draw(st.sets(st.sampled_from(pool), min_size=1, max_size=4))
            if not overlap:
                used |= cluster
            level.append(frozenset(cluster))
        if level:
            levels.append(tuple(level))
    is_finite = draw(st.booleans()) if finite is None else finite
    rest = None
    if is_finite:
        prioritised = {d for level in levels for c in level for d in c}
        unused = [d for d in docs if d not in prioritised]
        rest = draw(st.sets(st.sampled_from(unused))) if unused else set()
    return Organization(tuple(levels), None if rest is None else frozenset(rest))


# Ids that trip a notation writer: the rest: header in any case, grades, braces, comments, quotes, escapes,
# blanks and line breaks of every kind, a long s that matches 's' case-insensitively, surrogate code points
# (alone, or a high and a low one that JSON escapes would join into one character).
AWKWARD_IDS = ["rest:", "REST:x", "rest", "Rest :", "reſt:", "[2]", "[", "]", "{", "}", "{}", "#", "a#b", ",", '"',
               '"q"', "\\", "\\n", "a b", " ", "\t", "x\ny", "\r", "\u2028", "\x85", "\x00", "é", "d1", "d10",
               "\ud83d\ude00 x", "\ud800", "{\udfff", "😀 x"]
ANY_CHARACTER = st.characters(exclude_categories=())  # every code point, surrogates included
document_ids = st.one_of(st.sampled_from(AWKWARD_IDS), st.text(ANY_CHARACTER, min_size=1, max_size=5),
                         st.text(alphabet='rest:[]{}#," \\\n\ud83d\ude00', min_size=1, max_size=6))
grades = st.floats(allow_nan=False)


@st.composite
def constructed_organizations(draw):
    """An Organization over awkward ids from each public constructor (ranking, filtering, clustering, graded)
    or the general constructor with overlap, a tail or a finite rest, and optional grades."""
    ids = draw(st.lists(document_ids, unique=True, max_size=8))
    half = draw(st.integers(0, len(ids)))
    kind = draw(st.sampled_from(["ranking", "filtering", "clustering", "graded", "general"]))
    if kind == "ranking":
        return Organization.from_ranking(ids)
    if kind == "filtering":
        return Organization.from_filtering(ids[:half], ids[half:])
    if kind == "clustering":
        cuts = sorted(draw(st.sets(st.integers(0, half), max_size=3)) | {0, half})
        clusters = [ids[a:b] for a, b in itertools.pairwise(cuts) if ids[a:b]]
        return Organization.from_clustering(clusters, rest=ids[half:])
    if kind == "graded":
        return Organization.from_graded({doc: draw(grades) for doc in ids})
    org = draw(organizations(docs=ids)) if ids else Organization()
    if org.levels and draw(st.booleans()):
        org = Organization(org.levels, org.rest, tuple(draw(grades) for _ in org.levels))
    return org


def _task_pairs() -> dict[str, list[tuple[Organization, Organization]]]:
    """A few fixed (gold, output) pairs of the shape each task's measures read."""
    graded = Organization.from_graded({"d1": 3, "d2": 1, "d3": 0, "d4": 2})
    ranking = Organization.from_ranking(["d2", "x1", "d1", "d4", "d3"])
    gold_f = Organization.from_filtering(["d1", "d2", "d3"], ["d4", "d5", "d6", "d7", "d8"])
    out_f = Organization.from_filtering(["d1", "d4"], ["d2", "d3", "d5", "d6", "d7", "d8"])
    clusters_g = Organization.from_clustering([["d1", "d2", "d3"], ["d4", "d5"], ["d6"]])
    clusters_o = Organization.from_clustering([["d1", "d2"], ["d3", "d4", "d5", "d6"]])
    org_g = Organization.parse("d1 {d2 d3}\n{d4 d5}")
    org_o = Organization.parse("d2 d1\nd4 {d3 d5}")
    return {"ranking": [(graded, ranking), (graded, Organization.from_ranking([]))],
            "filtering": [(gold_f, out_f), (gold_f, gold_f)],
            "baselines": [(gold_f, Organization.from_clustering([["d1", "d4"]]))],
            "clustering": [(clusters_g, clusters_o), (clusters_g, clusters_g)],
            "organization": [(org_g, org_o), (org_g, org_g)]}


TASK_PAIRS = _task_pairs()

# ----------------------------------------------------------------------------------------------- classification
TREE = ClassTree.from_nested({"P": ["P1", "P2"], "Q": {"Q1": ["Q11", "Q12"]}, "R": []})
FLAT_CLASSES = ("A", "B", "C", "D")


def _classification_pairs() -> list[tuple[Labelling, Labelling]]:
    """A fixed (gold, output) pair of each context: mono-label (declared classes, an item the gold lacks),
    its gold against itself, hierarchical multi-label, soft labels."""
    mono = Labelling.of({"i1": "A", "i2": "A", "i3": "B", "i4": "C"}, gold=True, classes=("A", "B", "C"))
    multi = Labelling.of({"i1": ["P1"], "i2": ["P1", "Q11"], "i3": ["Q"]}, gold=True, hierarchy=TREE)
    soft = Labelling.of({"i1": {"A": 0.7, "B": 0.3}, "i2": {"A": 0.2, "B": 0.8}, "i3": {"A": 0.5, "B": 0.5}},
                        gold=True)
    return [(mono, Labelling.of({"i1": "A", "i2": "B", "i3": "B", "x1": "C"})), (mono, mono),
            (multi, Labelling.of({"i1": ["P2"], "i2": ["Q1"], "i3": []})),
            (soft, Labelling.of({"i1": {"A": 0.6, "B": 0.4}, "i2": {"A": 0.9, "B": 0.1}}))]


TASK_PAIRS["classification"] = _classification_pairs()


def pairs_of(spec) -> list:
    """The fixed pairs a registered measure reads: its task's, and for a classification measure those of the
    contexts it is defined for (a mono-label measure refuses soft labels...)."""
    from workbench.metrics.classification import ClassificationInputError
    from workbench.metrics.registry import Measure

    if spec.task != "classification":
        return TASK_PAIRS[spec.task]
    measure = Measure(spec, tuple(spec.params.items()))
    readable = []
    for pair in TASK_PAIRS["classification"]:
        try:
            measure(*pair)
        except ClassificationInputError:
            continue
        readable.append(pair)
    return readable


def contexts_of(spec) -> tuple[str, ...]:
    """The kinds of labels a classification measure reads (``mono``, ``multi``, ``soft``)."""
    return tuple(dict.fromkeys(gold.kind for gold, _ in pairs_of(spec)))


@st.composite
def labelling_pairs(draw, kinds=("mono", "multi", "soft")):
    """A gold and an output of one kind: mono-label (declared classes), multi-label or soft labels, flat or over
    :data:`TREE`; the output answers some gold items, leaves others, and labels an item the gold lacks."""
    kind = draw(st.sampled_from(kinds))
    hierarchical = kind != "mono" and draw(st.booleans())
    classes = TREE.classes if hierarchical else FLAT_CLASSES
    items = [f"i{k}" for k in range(1, draw(st.integers(1, 6)) + 1)]

    def value(answer: bool):
        if kind == "mono":
            return draw(st.sampled_from(classes)) if answer else ""
        if kind == "multi":
            return draw(st.lists(st.sampled_from(classes), unique=True, min_size=1 if answer else 0, max_size=3))
        named = draw(st.lists(st.sampled_from(classes), unique=True, min_size=1 if answer else 0, max_size=3))
        weights = [draw(st.integers(0, 4)) for _ in named]
        if hierarchical or not named:  # independent per-class probabilities (or no answer)
            return {c: w / 4 for c, w in zip(named, weights, strict=True)}
        weights[0] += 0 if sum(weights) else 1
        return {c: w / sum(weights) for c, w in zip(named, weights, strict=True)}

    gold = {item: value(True) for item in items}
    output = {item: value(False) for item in items if draw(st.booleans())}
    if draw(st.booleans()):
        output["x1"] = value(True)
    options = dict(hierarchy=TREE if hierarchical else None, distribution=not hierarchical,
                   classes=classes if kind == "mono" else None)
    return Labelling.of(gold, gold=True, **options), Labelling.of(output, **options)


@st.composite
def trec_campaigns(draw):
    """qrels {topic: {doc: grade -1..3}} and a run {topic: {doc: score}} with many ties, documents outside
    the qrels, run topics without judgements and judged topics the run lacks."""
    docs = [f"d{i}" for i in range(draw(st.integers(2, 25)))]
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 4))):
        judged = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=len(docs)))
        qrels[f"q{t}"] = {d: draw(st.integers(-1, 3)) for d in judged}
        qrels[f"q{t}"][f"zero{t}"] = 0  # trec_eval's ndcg_cut needs one grade ≥ 0 (rel_levels[-1] otherwise)
        retrieved = draw(st.lists(st.sampled_from(docs), unique=True, min_size=1, max_size=len(docs)))
        if draw(st.booleans()) or t == 0:
            run[f"q{t}"] = {d: float(draw(st.integers(0, 4))) / 2 for d in retrieved}
    if draw(st.booleans()):
        run["unjudged"] = {"d0": 1.0}
    return qrels, run
