"""Issue 40: the methods that judge measures walk every registered measure (as ``tests/test_declarations.py`` walks
the registry): a small random campaign of the measure's task (5 systems of graded quality, 8 topics) is scored with
it, and the stability method, the swap method, the bootstrap and the topic set size design run on the scores; their
outputs must be well-formed (rates and ASLs in [0, 1], minority rates and ties summing to at most 1, ASL curves
monotone, ranks a permutation, topic set sizes whole numbers ≥ 2 that fall as the difference grows)."""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import pandas as pd
import pytest

from workbench.analysis import (
    achieved_significance,
    discriminative_power,
    stability_method,
    swap_rates,
    swap_sensitivity,
    topic_set_size,
)
from workbench.data import Campaign
from workbench.metrics import registry
from workbench.model import Organization
from workbench.model.labelling import Labelling

SPECS = [spec for spec in registry.specs() if spec.reads == "organizations" and spec.returns == "number"]
SUBTOPICS = ("alpha_nDCG", "ERR_IA", "NRBP", "P_IA", "StRecall")
SOFT = ("ICM-Soft", "ICM-Soft-Norm", "CrossEntropy", "MAE")
SYSTEMS, TOPICS, DOCUMENTS = 5, 8, 12


def _docs(prefix: str = "d") -> list[str]:
    return [f"{prefix}{i}" for i in range(DOCUMENTS)]


def _noisy(rng: np.random.Generator, truth: list, skill: float, choices: list) -> list:
    """``truth`` kept with probability ``skill``, else replaced by a random choice."""
    return [value if rng.random() < skill else choices[int(rng.integers(len(choices)))] for value in truth]


def _partition(rng: np.random.Generator, docs: list[str], groups: int) -> list[list[str]]:
    labels = rng.integers(0, groups, len(docs))
    labels[:groups] = range(groups)  # no group empty
    return [[d for d, g in zip(docs, labels, strict=True) if g == k] for k in range(groups)]


def _ranking_topic(rng, skill):
    docs = _docs()
    grades = rng.choice(4, size=DOCUMENTS, p=[0.5, 0.2, 0.2, 0.1])
    grades[0] = 3
    gold = Organization.from_graded({d: int(g) for d, g in zip(docs, grades, strict=True)})
    noise = rng.normal(0, 1.5 * (1 - skill) + 0.1, DOCUMENTS)
    order = np.argsort(-(grades + noise), kind="stable")
    return gold, lambda: Organization.from_ranking([docs[i] for i in order] + ["x1", "x2"])


def _subtopic_topic(rng, skill):
    docs = _docs()[:8]
    gold = Organization.parse(" ".join("{" + " ".join(group) + "}" for group in _partition(rng, docs[:6], 3)))
    order = np.argsort(-(np.r_[np.ones(6), np.zeros(2)] + rng.normal(0, 1.2 * (1 - skill) + 0.1, 8)))
    return gold, lambda: Organization.from_ranking([docs[i] for i in order])


def _filtering_topic(rng, skill):
    docs = _docs()
    relevant = list(rng.random(DOCUMENTS) < 0.4)
    relevant[0], relevant[1] = True, False
    gold = Organization.from_filtering([d for d, r in zip(docs, relevant, strict=True) if r],
                                       [d for d, r in zip(docs, relevant, strict=True) if not r])
    chosen = _noisy(rng, relevant, skill, [True, False])
    chosen[0], chosen[1] = True, False  # one true positive and one true negative in every output
    chosen[2] = not relevant[2]  # and one error, so that no ratio is infinite
    return gold, lambda: Organization.from_filtering([d for d, c in zip(docs, chosen, strict=True) if c],
                                                     [d for d, c in zip(docs, chosen, strict=True) if not c])


def _clustering_topic(rng, skill):
    docs = _docs()
    truth = _partition(rng, docs, 4)
    label = {d: k for k, group in enumerate(truth) for d in group}
    guessed = _noisy(rng, [label[d] for d in docs], skill, [0, 1, 2, 3, 4])
    guessed[0], guessed[1] = 0, 1 if guessed[1] == 0 else guessed[1]
    groups = [[d for d, g in zip(docs, guessed, strict=True) if g == k] for k in range(5)]
    return Organization.from_clustering(truth), lambda: Organization.from_clustering([g for g in groups if g])


def _baselines_topic(rng, skill):
    docs = _docs()
    gold = Organization.from_filtering(docs[:4], docs[4:])
    size = max(2, int(round(4 + 6 * (1 - skill))))
    return gold, lambda: Organization.from_clustering([list(rng.permutation(docs)[:size])])


def _organization_topic(rng, skill):
    docs = _docs()[:8]
    gold = Organization.parse(f"{docs[0]} {{{docs[1]} {docs[2]}}}\n{{{docs[3]} {docs[4]}}} {docs[5]}\n{docs[6]}")
    shuffled = [docs[i] for i in np.argsort(np.arange(8) + rng.normal(0, 6 * (1 - skill) + 0.3, 8))]
    return gold, lambda: Organization.parse(f"{shuffled[0]} {{{shuffled[1]} {shuffled[2]}}}\n"
                                            f"{{{shuffled[3]} {shuffled[4]}}} {shuffled[5]}\n{shuffled[6]}")


def _classification_topic(rng, skill):
    truth = [["A", "B", "C"][int(k)] for k in rng.integers(0, 3, DOCUMENTS)]
    truth[:3] = ["A", "B", "C"]
    gold = Labelling.parse("\n".join(f"{i}: {c}" for i, c in enumerate(truth)), gold=True)
    guessed = _noisy(rng, truth, skill, ["A", "B", "C"])
    return gold, lambda: Labelling.parse("\n".join(f"{i}: {c}" for i, c in enumerate(guessed)))


def _soft_topic(rng, skill):
    def soft(p):
        return f"{{A: {p:.3f}, B: {1 - p:.3f}}}"

    truth = rng.uniform(0.05, 0.95, DOCUMENTS)
    gold = Labelling.parse("\n".join(f"{i}: {soft(p)}" for i, p in enumerate(truth)), gold=True)
    guessed = np.clip(truth + rng.normal(0, 0.5 * (1 - skill) + 0.02, DOCUMENTS), 0.02, 0.98)
    return gold, lambda: Labelling.parse("\n".join(f"{i}: {soft(p)}" for i, p in enumerate(guessed)))


MAKERS = {"ranking": _ranking_topic, "subtopics": _subtopic_topic, "filtering": _filtering_topic,
          "clustering": _clustering_topic, "baselines": _baselines_topic, "organization": _organization_topic,
          "classification": _classification_topic, "soft": _soft_topic}


@functools.cache
def campaign(kind: str) -> Campaign:
    """Systems S0 (worst) … S4 (best) on ``TOPICS`` topics of ``kind``."""
    rng = np.random.default_rng(sorted(MAKERS).index(kind))
    gold, runs = {}, {f"S{s}": {} for s in range(SYSTEMS)}
    for t in range(TOPICS):
        topic = f"q{t}"
        for s in range(SYSTEMS):
            truth, output = MAKERS[kind](np.random.default_rng(rng.integers(2**32)), 0.3 + 0.15 * s)
            gold[topic] = truth if s == 0 else gold[topic]
            runs[f"S{s}"][topic] = output()
    return Campaign(gold, runs)


def _kind(spec) -> str:
    if spec.name in SUBTOPICS:
        return "subtopics"
    return "soft" if spec.name in SOFT else spec.task


def _name(spec) -> str:
    """The measure with the parameters it needs (as ``tests/test_declarations.py`` writes them: a required one at its
    domain's low end, inside)."""
    if spec.name == "CEM":
        return "CEM(order=A<B<C)"
    if spec.task == "organization":
        return str(registry.bind(spec, {"n": 10, "wn": 0.8}))
    if spec.task == "baselines":
        return str(registry.bind(spec, {"n": DOCUMENTS}))
    needed = {key: _inside(param.domain) for key, param in spec.parameters.items()
              if param.domain.reason(param.default) is not None}
    return str(registry.bind(spec, needed))


def _inside(domain) -> float:
    low = 1.0 if math.isinf(domain.low) else domain.low
    return int(low) + (1 if domain.low_open else 0) if domain.integer else low + (0.5 if domain.low_open else 0)


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_every_registered_measure_is_judged_with_well_formed_results(spec):
    name = _name(spec)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = campaign(_kind(spec)).evaluate([name], progress=False)
    results = results.assign(value=results["value"].replace([np.inf, -np.inf], np.nan))
    if results["value"].isna().all():
        pytest.fail(f"{name} scores nothing on its campaign")
    common = {"missing": "intersection", "progress": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the topics a measure leaves undefined are dropped, with a warning
        stability = stability_method(results, fuzziness=[0.0, 0.05, 0.1], samples=40, **common)
        rates = swap_rates(results, samples=40, bin_width=_width(results), **common)
        asl = achieved_significance(results, samples=40, **common)
        sizes = topic_set_size(results, differences=[0.5 * _width(results) * 10, _width(results) * 10],
                               missing="intersection")
    assert (stability["minority_rate"].between(0, 0.5) & stability["ties"].between(0, 1)).all()
    assert (stability["minority_rate"] + stability["ties"] <= 1 + 1e-12).all()
    assert stability["ties"].is_monotonic_increasing  # more fuzziness, more ties
    assert rates["observations"].sum() + rates["ties"].sum() == 40 * SYSTEMS * (SYSTEMS - 1) // 2
    filled = rates[rates["observations"] > 0]
    assert filled["swap_rate"].between(0, 1).all() and (rates["swaps"] <= rates["observations"]).all()
    for rule in ("first", "stays"):
        summary = swap_sensitivity(rates, rule=rule).iloc[0]
        assert 0 <= summary["sensitivity"] <= 1
        assert math.isnan(summary["difference_required"]) or summary["difference_required"] >= 0
    assert asl["asl"].between(0, 1).all() and sorted(asl["rank"]) == list(range(1, len(asl) + 1))
    assert asl.sort_values("rank")["asl"].is_monotonic_increasing  # the ASL curve
    assert (asl["required_difference"] >= 0).all()
    power = discriminative_power(asl).iloc[0]
    assert 0 <= power["discriminative_power"] <= 1 and power["pairs"] == len(asl)
    topics = sizes.set_index(["design", "difference"])["topics"]
    assert all(float(n).is_integer() and n >= 2 for n in topics)
    for design in ("power", "ci"):
        smaller, larger = topics[design].to_numpy()
        assert smaller >= larger  # a smaller difference needs as many topics at least


def _width(results: pd.DataFrame) -> float:
    """The swap method's bin width: 0.01 for scores within [−1, 1] (both papers'), 1% of the spread otherwise."""
    spread = float(results["value"].max() - results["value"].min())
    largest = float(results["value"].abs().max())
    return 0.01 if largest <= 1 else max(spread, 1e-9) / 100


def test_the_walk_covers_every_task():
    assert {spec.task for spec in SPECS} == {"ranking", "filtering", "clustering", "baselines", "organization",
                                             "classification"}
    assert len(SPECS) > 100
