"""Clustering measures explained per item, or through their parts, from the contingency the kernels read.

* BCubed precision and recall: one row per item (per occurrence in the ``"occurrence"`` variant) with its
  precision or recall (:func:`~workbench.metrics.clustering.bcubed_items`), ``contribution`` = value / items,
  ``lost`` = (1 − value) / items; BCubed F through its parts BCubed-P and BCubed-R.
* Purity: one row per occurrence of an output cluster, counting 1/|occurrences| when the document is of the
  cluster's majority class (so the rows of a cluster add up to that cluster's purity share,
  ``contributions.groupby("cluster").contribution.sum()``); Inverse Purity the same over the gold classes;
  F(P,IP) through both.
* The entropy family (Homogeneity, Completeness, V-measure, NMI, AMI, VI) through their parts: the mutual
  information MI and the entropies H(C) (gold classes) and H(K) (output clusters), each a sum over the items of
  their cell of the contingency (:func:`~workbench.metrics.clustering.flat_cells`); AMI adds E[MI], one row.
* The pair-counting measures (Rand, ARI, Jaccard, FM) through the pair counts tp, fp, fn, tn, each item holding
  half of every pair it is in.

Clusters are named ``C1, C2, ...`` in the output's order (levels, then clusters), gold classes ``G1, G2, ...``;
a document in several is listed with all of them.

    >>> from workbench.model import Organization
    >>> gold = Organization.from_clustering([["a", "b"], ["c"]])
    >>> e = explain_clustering(gold, Organization.from_clustering([["a", "b", "c"]]), "BCubed-P")
    >>> print(e.contributions[["document", "cluster", "class", "precision", "contribution"]].round(4)
    ...       .to_string(index=False))
    document cluster class  precision  contribution
           a      C1    G1     0.6667        0.2222
           b      C1    G1     0.6667        0.2222
           c      C1    G2     0.3333        0.1111
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from workbench.metrics import clustering as kernels
from workbench.metrics.combine import f_alpha
from workbench.metrics.explanations.core import MeasureExplanation
from workbench.metrics.registry import Measure, parse
from workbench.model import Organization

__all__ = ["PARTS", "HOW", "FORMULAS", "explain_clustering"]

PARTS = {"Homogeneity": ("MI", "H(C)"), "Completeness": ("MI", "H(K)"), "V-measure": ("MI", "H(C)", "H(K)"),
         "NMI": ("MI", "H(C)", "H(K)"), "AMI": ("MI", "E[MI]", "H(C)", "H(K)"), "VI": ("H(C)", "H(K)", "MI"),
         "F(P,IP)": ("Purity", "InversePurity"), "BCubed-F": ("BCubed-P", "BCubed-R"),
         "Rand": ("tp", "fp", "fn", "tn"), "ARI": ("tp", "fp", "fn", "tn"), "Jaccard": ("tp", "fp", "fn", "tn"),
         "FM": ("tp", "fp", "fn", "tn")}
HOW = {name: "through its parts: " + ", ".join(parts) for name, parts in PARTS.items()}
HOW.update({"BCubed-P": "per item", "BCubed-R": "per item", "Purity": "per occurrence (Purity per cluster)",
            "InversePurity": "per occurrence (Inverse Purity per class)", "Entropy": "per item (its cell's term)",
            "ClassEntropy": "per item (its cell's term)",
            "ClusteringF": "per occurrence of a gold class (its class's best F over |occurrences|)"})


def _labels(matrix, prefix: str) -> np.ndarray:
    """Each document's clusters (or classes) as text, ``C1`` or ``C1 C3``; "" where it has none."""
    names = np.empty(matrix.shape[0], dtype=object)
    for row in range(matrix.shape[0]):
        names[row] = " ".join(f"{prefix}{k + 1}" for k in matrix.indices[matrix.indptr[row]:matrix.indptr[row + 1]])
    return names


def _frame(columns: dict, part: str | None = None):
    import pandas as pd

    frame = pd.DataFrame(columns)
    if part is not None:
        frame.insert(len(frame.columns) - 2, "part", part)
    return frame


def _bcubed(c, variant: str, side: str):
    items = kernels.bcubed_items(c, variant)
    values, documents, where = ((items.precision, items.precision_documents, items.precision_clusters)
                                if side == "precision" else (items.recall, items.recall_documents,
                                                             items.recall_classes))
    value = np.concatenate(values)
    docs = np.concatenate(documents).astype(np.int64)
    at = np.concatenate(where).astype(np.int64)
    count = len(value)
    clusters, classes = _labels(c.output, "C"), _labels(c.gold, "G")
    own = np.array([f"{'C' if side == 'precision' else 'G'}{k + 1}" for k in at], dtype=object)
    names = np.asarray(c.documents, dtype=object)
    return _frame({"document": names[docs],
                   "cluster": np.where(at >= 0, own, clusters[docs]) if side == "precision" else clusters[docs],
                   "class": np.where(at >= 0, own, classes[docs]) if side == "recall" else classes[docs],
                   side: value, "contribution": value / count if count else value,
                   "lost": (1.0 - value) / count if count else value})


def _purity(c, inverse: bool):
    """Per occurrence of an output cluster (Purity) or of a gold class (inverse): 1/|occurrences| when the
    document is also in the cluster's best class (the class's best cluster)."""
    table = c.table.toarray()
    own, other = (c.gold, c.output) if inverse else (c.output, c.gold)
    matrix = table.T if inverse else table
    total = own.sum()
    docs, groups = own.nonzero()
    order = np.lexsort((docs, groups))
    docs, groups = docs[order], groups[order]
    best = matrix.argmax(axis=1) if matrix.shape[1] else np.zeros(matrix.shape[0], dtype=np.int64)
    counted = np.asarray(other[docs, best[groups]]).ravel() > 0 if len(docs) and matrix.shape[1] else \
        np.zeros(len(docs), dtype=bool)
    share = 1.0 / total if total else math.nan
    names = np.asarray(c.documents, dtype=object)
    own_prefix, other_prefix = ("G", "C") if inverse else ("C", "G")
    group_labels = np.array([f"{own_prefix}{g + 1}" for g in groups], dtype=object)
    best_labels = np.array([f"{other_prefix}{best[g] + 1}" if matrix.shape[1] else "" for g in groups], dtype=object)
    others = _labels(other, other_prefix)[docs]
    columns = {"document": names[docs]}
    if inverse:
        columns |= {"class": group_labels, "cluster": others, "best_cluster": best_labels}
    else:
        columns |= {"cluster": group_labels, "class": others, "majority_class": best_labels}
    columns |= {"contribution": np.where(counted, share, 0.0), "lost": np.where(counted, 0.0, share)}
    return _frame(columns)


def _disorder(c, of: str, probability: str):
    """Per gold document: its term of Entropy (Class Entropy), :func:`~workbench.metrics.clustering.disorder_terms`;
    with overlap one row saying the measure is undefined."""
    found = kernels.disorder_terms(c, of, probability)
    if found is None:
        return _frame({"document": [None], "what": ["a document in several clusters or classes: defined for "
                                                    "partitions only"], "contribution": [math.nan], "lost": [math.nan]})
    documents, terms = found
    return _frame({"document": np.asarray(c.documents, dtype=object)[documents],
                   "cluster": _labels(c.output, "C")[documents], "class": _labels(c.gold, "G")[documents],
                   "contribution": terms, "lost": terms})


def _clustering_f(c, alpha: float):
    """Per occurrence of a gold class: its class's weight |L_j|/N times the class's best F, shared by the class's
    |L_j| occurrences."""
    weights, values, best = kernels.clustering_f_terms(c, alpha)
    docs, classes = c.gold.nonzero()
    order = np.lexsort((docs, classes))
    docs, classes = docs[order], classes[order]
    sizes = c.gold_sizes.astype(float)
    share = np.where(sizes[classes] > 0, weights[classes] / np.maximum(sizes[classes], 1), 0.0)
    return _frame({"document": np.asarray(c.documents, dtype=object)[docs],
                   "class": np.array([f"G{j + 1}" for j in classes], dtype=object),
                   "best_cluster": np.array([f"C{best[j] + 1}" if best[j] >= 0 else "" for j in classes],
                                            dtype=object),
                   "best_f": values[classes], "contribution": share * values[classes],
                   "lost": share * (1.0 - values[classes])})


def _entropy_parts(c, parts: tuple[str, ...]):
    """The rows of MI, H(C), H(K) (and E[MI]) over the items of the flat contingency; None with overlap."""
    import pandas as pd

    cells, table = kernels.flat_cells(c), kernels._flat_table(c)
    if cells is None or table is None:  # both None together: an overlap
        return None, {}
    documents, rows, columns = cells
    n = float(table.sum())
    names = np.asarray(c.documents, dtype=object)[documents]
    clusters, classes = _labels(c.output, "C")[documents], _labels(c.gold, "G")[documents]
    a, b = table.sum(axis=1).astype(float), table.sum(axis=0).astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        h_c = -np.log(b[columns] / n) / n if n else np.zeros(len(documents))
        h_k = -np.log(a[rows] / n) / n if n else np.zeros(len(documents))
    mi = np.zeros(len(documents))
    if n and table.shape[0] > 1 and table.shape[1] > 1:
        i, j, terms = kernels.mutual_information_cells(table)
        per_cell = np.zeros(table.shape)
        per_cell[i, j] = terms / table[i, j]
        mi = per_cell[rows, columns]
    values = {"MI": (mi, h_c - mi), "H(C)": (h_c, np.zeros(len(mi))), "H(K)": (h_k, np.zeros(len(mi)))}
    frames, part_values = [], {}
    for part in parts:
        if part == "E[MI]":
            expected = kernels.expected_mutual_information(table)
            frames.append(_frame({"document": [None], "cluster": [""], "class": [""],
                                  "what": ["the MI two random clusterings with these sizes share on average"],
                                  "contribution": [expected], "lost": [0.0]}, part))
            part_values[part] = expected
            continue
        contribution, lost = values[part]
        frames.append(_frame({"document": names, "cluster": clusters, "class": classes,
                              "contribution": contribution, "lost": lost}, part))
        part_values[part] = float(contribution.sum())
    return pd.concat(frames, ignore_index=True), part_values


def _pairs(c):
    import pandas as pd

    size_x, size_g, size_both, in_gold = kernels.pair_sizes(c)
    docs = np.flatnonzero(in_gold)
    returned = (np.diff(c.output.indptr) > 0)[docs].astype(float)
    tp = (size_both[docs] - returned) / 2
    fp = (size_x[docs] - returned) / 2 - tp
    fn = (size_g[docs] - 1) / 2 - tp
    tn = (len(docs) - 1) / 2 - tp - fp - fn
    names = np.asarray(c.documents, dtype=object)[docs]
    clusters, classes = _labels(c.output, "C")[docs], _labels(c.gold, "G")[docs]
    frames = [_frame({"document": names, "cluster": clusters, "class": classes, "contribution": values,
                      "lost": values if part in ("fp", "fn") else np.zeros(len(values))}, part)
              for part, values in (("tp", tp), ("fp", fp), ("fn", fn), ("tn", tn))]
    frame = pd.concat(frames, ignore_index=True)
    return frame, {part: float(frame.loc[frame["part"] == part, "contribution"].sum()) for part in
                   ("tp", "fp", "fn", "tn")}


FORMULAS = {
    "Purity": "Purity = Σ_clusters max_class |C ∩ L| / Σ |C|: 1/|occurrences| per document of its cluster's "
              "majority class",
    "InversePurity": "Inverse Purity = Σ_classes max_cluster |L ∩ C| / Σ |L|: 1/|occurrences| per document in "
                     "its class's best cluster",
    "F(P,IP)": "F(P,IP) = 1 / (α/Purity + (1 − α)/InversePurity)",
    "BCubed-P": "BCubed precision = Avg_d Avg_{d′: C(d) ∩ C(d′) ≠ ∅} min(|C(d) ∩ C(d′)|, |L(d) ∩ L(d′)|) / "
                "|C(d) ∩ C(d′)|, C(d) the output's clusters and L(d) the gold's classes of item d (variant item; "
                "with variant occurrence, d a (document, cluster) occurrence and d′ the members of its cluster)",
    "BCubed-R": "BCubed recall = Avg_d Avg_{d′: L(d) ∩ L(d′) ≠ ∅} min(|C(d) ∩ C(d′)|, |L(d) ∩ L(d′)|) / "
                "|L(d) ∩ L(d′)|, C(d) the output's clusters and L(d) the gold's classes of item d (variant item; "
                "with variant occurrence, d a (document, cluster) occurrence and d′ the members of its cluster)",
    "BCubed-F": "BCubed F = 1 / (α/BCubed-P + (1 − α)/BCubed-R)",
    "Homogeneity": "Homogeneity = MI / H(C) (1 when H(C) = 0)",
    "Completeness": "Completeness = MI / H(K) (1 when H(K) = 0)",
    "V-measure": "V = (1 + β)·h·c / (β·h + c), h = MI/H(C), c = MI/H(K)",
    "NMI": "NMI = MI / mean(H(C), H(K))",
    "AMI": "AMI = (MI − E[MI]) / (mean(H(C), H(K)) − E[MI])",
    "VI": "VI = H(C) + H(K) − 2·MI",
    "Entropy": "Entropy = −Σ_clusters (|C|/N) Σ_classes p log2 p, p = |C ∩ L|/|C| (conditional) or |C ∩ L|/N "
               "(joint, PyEvALL's): each item holds its cell's term over the cell's items",
    "ClassEntropy": "Class Entropy = −Σ_classes (|L|/N) Σ_clusters p log2 p, p = |C ∩ L|/|L| (conditional) or "
                    "|C ∩ L|/N (joint, PyEvALL's): each item holds its cell's term over the cell's items",
    "ClusteringF": "F = Σ_classes (|L|/N) max_clusters F_α(|C ∩ L|/|C ∩ G|, |C ∩ L|/|L|): 1/|L| of its class's "
                   "share per occurrence",
    "Rand": "Rand = (tp + tn) / (tp + fp + fn + tn), over pairs of documents",
    "ARI": "ARI = 2(tp·tn − fn·fp) / ((tp + fn)(fn + tn) + (tp + fp)(fp + tn))",
    "Jaccard": "Jaccard = tp / (tp + fp + fn)",
    "FM": "FM = tp / √((tp + fp)(tp + fn))",
}


def _combiner(name: str, params: dict, c) -> Callable[[Mapping[str, float]], float]:
    """The measure's own function of its parts (and its limits where the kernel answers before computing)."""
    alpha, beta = params.get("alpha", 0.5), params.get("beta", 1.0)
    method = params.get("average_method", "arithmetic")
    if name in ("F(P,IP)", "BCubed-F"):
        first, second = PARTS[name]
        return lambda p: f_alpha(p[first], p[second], alpha)
    if name in ("Rand", "ARI", "Jaccard", "FM"):
        function = {"Rand": kernels.rand_of, "ARI": kernels.adjusted_rand_of, "Jaccard": kernels.jaccard_of,
                    "FM": lambda p: kernels.fowlkes_mallows_of(p, params.get("convention", "sklearn"))}[name]
        return function
    table = kernels._flat_table(c)
    if table is None:
        return lambda p: math.nan
    if name in ("NMI", "AMI"):
        _, limit = kernels._normalisable_table(c, method)
        if not math.isnan(limit):
            return lambda p: limit
        if name == "AMI" and (table.shape[0] == 1 or table.shape[1] == 1):
            return lambda p: 0.0
        if name == "NMI":
            return lambda p: kernels.nmi_of(p["MI"], p["H(C)"], p["H(K)"], method)
        return lambda p: kernels.ami_of(p["MI"], p["E[MI]"], p["H(C)"], p["H(K)"], method)
    if name == "VI":
        return lambda p: kernels.vi_of(p["H(C)"], p["H(K)"], p["MI"])
    field = {"Homogeneity": "homogeneity", "Completeness": "completeness", "V-measure": "v"}[name]
    return lambda p: kernels.hcv_of(p.get("H(C)", 0.0), p.get("H(K)", 0.0), p["MI"], beta)[field]


def explain_clustering(gold: Organization, output: Organization, measure: str | Measure) -> MeasureExplanation:
    """A clustering measure of ``output`` against ``gold`` explained (the module docstring)."""
    import pandas as pd

    measure = parse(measure)
    name, params = measure.spec.name, measure.params
    score = measure(gold, output)
    c = kernels.contingency(gold, output, unmatched=params.get("unmatched", "weps"))
    variant = params.get("variant", "item")
    single = {"BCubed-P": lambda: _bcubed(c, variant, "precision"), "BCubed-R": lambda: _bcubed(c, variant, "recall"),
              "Purity": lambda: _purity(c, inverse=False), "InversePurity": lambda: _purity(c, inverse=True),
              "Entropy": lambda: _disorder(c, "clusters", params.get("probability", "conditional")),
              "ClassEntropy": lambda: _disorder(c, "classes", params.get("probability", "conditional")),
              "ClusteringF": lambda: _clustering_f(c, params.get("alpha", 0.5))}
    how = HOW[name] if variant == "item" else HOW[name].replace("per item", "per occurrence")
    if name in single:
        frame = single[name]()
        return MeasureExplanation(str(measure), score, _undefined(frame, score), {str(measure): score},
                                  FORMULAS[name], how)
    parts: Mapping[str, float]
    if name in ("F(P,IP)", "BCubed-F"):
        frames, parts = [], {}
        for part in PARTS[name]:
            frame = single[part]()
            frame.insert(len(frame.columns) - 2, "part", part)
            frames.append(frame)
            parts[part] = float(frame["contribution"].sum())
        frame = pd.concat(frames, ignore_index=True)
    elif name in ("Rand", "ARI", "Jaccard", "FM"):
        frame, parts = _pairs(c)
    else:
        frame, parts = _entropy_parts(c, PARTS[name])
        if frame is None:  # overlap: the entropy family is defined for partitions only
            frame = pd.concat([_frame({"document": [None], "what": ["a document in several clusters or classes: "
                                                                    "defined for partitions only"],
                                       "contribution": [math.nan], "lost": [math.nan]}, part)
                               for part in PARTS[name]], ignore_index=True)
            parts = {part: math.nan for part in PARTS[name]}
    return MeasureExplanation(str(measure), score, frame, dict(parts), FORMULAS[name], how,
                              _combiner(name, params, c))


def _undefined(frame, score: float):
    """``frame`` and, where the score is undefined (NaN), a row saying so whose contribution is NaN."""
    import pandas as pd

    if not math.isnan(score):
        return frame
    row = pd.DataFrame({"document": [None], "what": ["undefined: nothing to average over"],
                        "contribution": [math.nan], "lost": [math.nan]})
    return pd.concat([frame, row], ignore_index=True)
