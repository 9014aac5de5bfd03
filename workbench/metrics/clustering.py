"""Clustering measures over one shared intermediate: a sparse contingency of (output cluster, gold class).

:func:`contingency` builds a :class:`ClusterContingency` from two Organizations (every cluster of every
level is a cluster; a document may be in several: overlap), :func:`contingency_from_labels` from two label
arrays. Every measure is a pure function of it:

- Purity, Inverse Purity and their F_α (Amigó et al. 2009, §3.1; the WePS scorer's P, IP, F_0.5(P,IP));
- extended BCubed precision/recall/F in two variants named apart: ``variant="item"`` (Amigó et al. 2009
  §4.2, multiplicity precision per document; equals the ``bcubed`` package) and ``variant="occurrence"``
  (each document in each cluster a separate item, Amigó et al., SIGIR 2013, §4.2; PyEvALL's ReliabilityBCubed);
- entropy, class entropy, mutual information, NMI and AMI with the normalisation named (``average_method``:
  arithmetic, geometric, min, max), variation of information, homogeneity, completeness, V-measure with β
  (defined for partitions: NaN when a gold document is in two clusters or classes);
- pair counting: Rand, adjusted Rand, Jaccard, Fowlkes–Mallows (scikit-learn's conventions);
- EvALL's and PyEvALL's Entropy and Class Entropy (the disorder of the classes in each cluster, of the clusters in
  each class: :func:`cluster_disorder`) and the clustering F-measure (each class's best cluster by F:
  :func:`clustering_f`).

    >>> from workbench.model import Organization
    >>> gold = Organization.from_clustering([["d1", "d2"], ["d3"]])
    >>> out = Organization.from_clustering([["d1", "d2", "d3"]])
    >>> c = contingency(gold, out)
    >>> round(purity(c), 4), inverse_purity(c), round(bcubed(c)["precision"], 4)
    (0.6667, 1.0, 0.5556)

**Documents on one side only** (``unmatched=``). Gold documents WePS *discards* are not in the gold
Organization (see :mod:`workbench.data.weps`), so a system that clusters them, or leaves gold documents out,
needs a policy:

- ``"weps"`` (default), the official WePS-1 scorer's behaviour, worked out from its TEAM_A reference values
  (it reproduces all 30 of P, IP, F_0.5(P,IP), BEP, BER, F_0.5(BEP,BER) on the five names): output documents
  the gold lacks stay in their clusters for Purity (they are impurities) and are ignored by BCubed; gold
  documents the output lacks lower Inverse Purity and, in BCubed, have precision 1 and recall 0, averages
  being taken over gold documents (the RepLab R&S script does the same; the scorer's BCubedExtPrecision
  source states this rule in a comment). The occurrence variant ignores
  extra documents too and averages precision over the output occurrences of gold documents (PyEvALL).
  Entropy and pair-counting measures need one set of items: the gold documents, a missing one being a
  singleton output cluster, extra ones dropped.
- ``"singletons"``: first drop output documents the gold lacks and add each missing gold document as a
  singleton output cluster; then every measure sees the same documents.
- ``"strict"``: raise :class:`ClusteringInputError` naming the first document found on one side only.

The rest of an Organization is not a cluster: gold rest documents are not evaluated (like WePS discarded
ones), output rest documents count as not returned.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from workbench.errors import InputError
from workbench.metrics.combine import f_alpha
from workbench.metrics.labels import factorize, label_vector
from workbench.metrics.registry import ORGANIZATION, Choices, Explainer, Interval, Param, register
from workbench.model import Organization, natural_key
from workbench.validation import validate

__all__ = ["POLICIES", "VARIANTS", "UNMATCHED", "VARIANT", "AVERAGE_METHOD", "V_BETA", "FM_CONVENTION",
           "ClusteringInputError", "ClusterContingency", "contingency",
           "contingency_from_labels", "purity", "inverse_purity", "f_purity", "BCubedItems", "bcubed_items",
           "bcubed", "flat_cells", "mutual_information_cells", "mutual_information", "entropy", "class_entropy",
           "AVERAGE_METHODS", "nmi", "nmi_of", "expected_mutual_information", "adjusted_mutual_information",
           "ami_of", "variation_of_information", "vi_of", "homogeneity_completeness_v", "hcv_of", "pair_counts",
           "pair_sizes", "rand", "rand_of", "adjusted_rand", "adjusted_rand_of", "jaccard", "jaccard_of",
           "FM_CONVENTIONS", "fowlkes_mallows", "fowlkes_mallows_of", "PROBABILITIES", "PROBABILITY",
           "disorder_terms", "cluster_disorder", "clustering_f_terms", "clustering_f"]

_EXPLAINED = Explainer("workbench.metrics.explanations.clustering:explain_clustering")

if TYPE_CHECKING:  # scipy.sparse is imported inside the functions that use it: loading it costs ~0.2 s
    import scipy.sparse as sp

POLICIES = ("weps", "singletons", "strict")
UNMATCHED = Choices(POLICIES)
"""The domain of ``unmatched``: the policy for documents on one side only (the module docstring)."""
VARIANTS = ("item", "occurrence")
VARIANT = Choices(VARIANTS)
"""The domain of BCubed's ``variant``: extended BCubed over items, or over occurrences."""


class ClusteringInputError(InputError):
    """Clusterings that cannot be compared: says which document or label and why."""


@dataclass(frozen=True)
class ClusterContingency:
    """Two clusterings over one indexed document set.

    ``output`` (documents × output clusters) and ``gold`` (documents × gold classes) are 0/1 CSR incidence
    matrices; a document absent from one side has an empty row there. ``table`` = outputᵀ·gold counts the
    documents in both cluster i and class j. ``documents`` names the rows.
    """

    documents: tuple[str, ...]
    output: sp.csr_array
    gold: sp.csr_array
    table: sp.csr_array
    policy: str = "weps"

    @property
    def output_sizes(self) -> np.ndarray:
        """Documents per output cluster (including documents the gold lacks)."""
        return np.asarray(self.output.sum(axis=0)).ravel()

    @property
    def gold_sizes(self) -> np.ndarray:
        """Documents per gold class (including documents the output lacks)."""
        return np.asarray(self.gold.sum(axis=0)).ravel()

    @property
    def overlapping(self) -> bool:
        """True when some document is in two output clusters or two gold classes."""
        return bool((_row_counts(self.output) > 1).any() or (_row_counts(self.gold) > 1).any())


def _row_counts(matrix: sp.csr_array) -> np.ndarray:
    return np.diff(matrix.indptr)


def _incidence(codes: np.ndarray, sizes: Sequence[int], n_docs: int) -> sp.csr_array:
    """0/1 CSR (documents × clusters) from the concatenated document codes of the clusters."""
    import scipy.sparse as sp
    cols = np.repeat(np.arange(len(sizes)), sizes)
    data = np.ones(len(codes), dtype=np.int64)
    return sp.csr_array(sp.coo_array((data, (codes, cols)), shape=(n_docs, len(sizes))))


def _clusters(org: Organization) -> list[frozenset[str]]:
    return [cluster for level in org.levels for cluster in level]


@validate(gold=ORGANIZATION, output=ORGANIZATION, unmatched=UNMATCHED)
def contingency(gold: Organization, output: Organization, *, unmatched: str = "weps") -> ClusterContingency:
    """The shared intermediate of every clustering measure, from a gold and an output Organization.

    Clusters are those of every level (Amigó et al., SIGIR 2013, §3: a clustering is one level of clusters);
    ``unmatched`` is the policy for documents on one side only (see the module docstring).
    """
    gold_clusters, out_clusters = _clusters(gold), _clusters(output)
    gold_docs = frozenset().union(*gold_clusters)
    out_docs = frozenset().union(*out_clusters)
    if unmatched == "strict" and gold_docs != out_docs:
        extra = sorted(out_docs - gold_docs, key=natural_key)
        missing = sorted(gold_docs - out_docs, key=natural_key)
        where = (f"document {extra[0]!r} is in the output but not in the gold" if extra
                 else f"document {missing[0]!r} is in the gold but not in the output")
        raise ClusteringInputError(
            f"{where} ({len(extra)} output-only, {len(missing)} gold-only documents); "
            "use unmatched='weps' or 'singletons' to score them")
    if unmatched == "singletons":
        out_clusters = [c & gold_docs for c in out_clusters]
        out_clusters = [c for c in out_clusters if c]
        out_clusters += [frozenset([d]) for d in sorted(gold_docs - out_docs, key=natural_key)]
        out_docs = gold_docs
    # One vectorised pass: every occurrence's document id → a code in sorted document order.
    occurrences = [d for c in out_clusters for d in c] + [d for c in gold_clusters for d in c]
    names, codes = np.unique(np.array(occurrences, dtype=str), return_inverse=True)
    codes = codes.ravel()
    split = sum(len(c) for c in out_clusters)
    out_m = _incidence(codes[:split], [len(c) for c in out_clusters], len(names))
    gold_m = _incidence(codes[split:], [len(c) for c in gold_clusters], len(names))
    return _build(tuple(names.tolist()), out_m, gold_m, unmatched)


def _build(documents, out_m, gold_m, policy) -> ClusterContingency:
    import scipy.sparse as sp
    table = sp.csr_array(out_m.T @ gold_m)
    return ClusterContingency(documents, out_m, gold_m, table, policy)


def contingency_from_labels(labels_true: Sequence, labels_pred: Sequence) -> ClusterContingency:
    """The intermediate from two flat labelings of the same items (scikit-learn's convention).

    Labels compare as Python values, never through their text: ``1`` and ``"1"`` are two clusters, ``1``,
    ``1.0`` and ``True`` one; a missing label (None, NaN) raises (:mod:`workbench.metrics.labels`).

    >>> c = contingency_from_labels([0, 0, 1], ["a", "b", "b"])
    >>> c.table.toarray().tolist()
    [[1, 0], [1, 1]]
    """
    import scipy.sparse as sp
    true = label_vector(labels_true, "labels_true", ClusteringInputError)
    pred = label_vector(labels_pred, "labels_pred", ClusteringInputError)
    if len(true) != len(pred):
        raise ClusteringInputError(f"labels_true has {len(true)} items but labels_pred has {len(pred)}")
    (t, true_labels), (p, pred_labels) = (factorize(true, "labels_true", ClusteringInputError),
                                          factorize(pred, "labels_pred", ClusteringInputError))
    n = len(true)
    rows = np.arange(n)
    ones = np.ones(n, dtype=np.int64)
    out_m = sp.csr_array(sp.coo_array((ones, (rows, p)), shape=(n, len(pred_labels))))
    gold_m = sp.csr_array(sp.coo_array((ones, (rows, t)), shape=(n, len(true_labels))))
    return _build(tuple(str(i) for i in range(n)), out_m, gold_m, "strict")


# ------------------------------------------------------------------------------------------ purity

def purity(c: ClusterContingency) -> float:
    """Purity = Σ_i max_j |C_i ∩ L_j| / Σ_i |C_i| (Amigó et al. 2009 §3.1; the WePS scorer's P).

    With overlap the denominator counts occurrences (each document once per cluster it is in), as the
    WePS scorer does; NaN for an empty output.
    """
    total = c.output_sizes.sum()
    if total == 0:
        return math.nan
    best = c.table.max(axis=1).toarray().ravel() if c.table.shape[1] else np.zeros(c.table.shape[0])
    return float(best.sum() / total)


def inverse_purity(c: ClusterContingency) -> float:
    """Inverse Purity = Σ_j max_i |L_j ∩ C_i| / Σ_j |L_j| (the WePS scorer's IP).

    With overlap the WePS scorer normalises by gold occurrences Σ_j |L_j| (not by documents): that is what
    gives IP = 1 to the all-in-one baseline on Michael_Howard, whose 91 documents have 101 occurrences.
    """
    total = c.gold_sizes.sum()
    if total == 0:
        return math.nan
    best = c.table.max(axis=0).toarray().ravel() if c.table.shape[0] else np.zeros(c.table.shape[1])
    return float(best.sum() / total)


def f_purity(c: ClusterContingency, alpha: float = 0.5) -> float:
    """F_α(P, IP) = 1 / (α/P + (1−α)/IP) (WePS: FMeasure_0.5_P-IP); 0 when P or IP is 0."""
    return f_alpha(purity(c), inverse_purity(c), alpha)


# ------------------------------------------------------------------------------------------ BCubed
def _explicit_ratios(docs: np.ndarray, c: ClusterContingency, mask: np.ndarray, by: str):
    """For a few documents, the multiplicity ratio min(cX, cG)/c_by with every document in ``mask``.

    cX(d, d') counts the output clusters holding both documents, cG(d, d') the gold classes; the ratio is
    stored on the pattern of c_by > 0 (by = "output" for precision, "gold" for recall). Returns the
    (documents × documents) CSR ratio and the number of neighbours (pattern entries) per row.
    """
    import scipy.sparse as sp
    keep = sp.diags_array(mask.astype(np.int64), dtype=np.int64)
    cx = sp.csr_array(c.output[docs] @ (keep @ c.output).T)
    cg = sp.csr_array(c.gold[docs] @ (keep @ c.gold).T)
    base = (cx if by == "output" else cg).tocoo()
    shared = np.asarray(sp.csr_array(cx.minimum(cg))[base.row, base.col]).ravel()
    ratio = sp.csr_array(sp.coo_array((shared / base.data, (base.row, base.col)), shape=base.shape))
    return ratio, np.bincount(base.row, minlength=len(docs))


def _flat_cell(c: ClusterContingency, docs: np.ndarray):
    """For documents in exactly one output cluster and one gold class: their (cluster, class) indices."""
    return c.output.indices[c.output.indptr[docs]], c.gold.indices[c.gold.indptr[docs]]


@dataclass(frozen=True)
class BCubedItems:
    """BCubed precision and recall item by item (:func:`bcubed_items`), each side in the groups its average adds
    in turn (flat documents, documents in several clusters or classes, gold documents the output lacks). For each
    value: the document (an index into ``ClusterContingency.documents``) and the output cluster (precision) or
    gold class (recall) of the occurrence it scores (-1: the document as a whole, in the ``"item"`` variant)."""

    precision: tuple[np.ndarray, ...]
    precision_documents: tuple[np.ndarray, ...]
    precision_clusters: tuple[np.ndarray, ...]
    recall: tuple[np.ndarray, ...]
    recall_documents: tuple[np.ndarray, ...]
    recall_classes: tuple[np.ndarray, ...]


def _mean_of_groups(groups: tuple[np.ndarray, ...]) -> float:
    """The mean of the values of ``groups``, each group's sum added in turn; NaN without values."""
    total = float(groups[0].sum())
    for group in groups[1:]:
        total += float(group.sum())
    count = sum(len(group) for group in groups)
    return total / count if count else math.nan


@validate(variant=VARIANT)
def bcubed_items(c: ClusterContingency, variant: str = "item") -> BCubedItems:
    """Every item's BCubed precision and recall (the values :func:`bcubed` averages); see :func:`bcubed` for the
    variants and :class:`BCubedItems` for the layout."""
    import scipy.sparse as sp
    nx, ng = _row_counts(c.output), _row_counts(c.gold)
    in_gold = ng > 0
    # Sizes of clusters restricted to gold documents (documents the gold lacks are ignored by BCubed).
    out_gold_sizes = np.asarray(c.output[in_gold].sum(axis=0)).ravel() if in_gold.any() else \
        np.zeros(c.output.shape[1])
    gold_sizes = c.gold_sizes
    table = c.table  # only gold documents contribute to intersections

    flat = (nx == 1) & (ng == 1)
    explicit = np.flatnonzero(in_gold & ~flat & (nx > 0))
    flat_docs = np.flatnonzero(flat)
    fi, fj = _flat_cell(c, flat_docs)
    n_ij = np.asarray(table[fi, fj]).ravel().astype(float) if len(flat_docs) else np.zeros(0)

    # ---- precision
    p_flat = n_ij / out_gold_sizes[fi] if len(flat_docs) else np.zeros(0)
    precision, p_docs, p_clusters = [p_flat], [flat_docs], [fi.astype(np.int64)]
    if variant == "item":
        if len(explicit):
            ratio, neighbours = _explicit_ratios(explicit, c, in_gold, "output")
            precision.append(np.asarray(ratio.sum(axis=1)).ravel() / neighbours)
            p_docs.append(explicit)
            p_clusters.append(np.full(len(explicit), -1))
        if c.policy == "weps":  # gold documents the output lacks: precision 1, averaged over gold documents
            missing = np.flatnonzero(in_gold & (nx == 0))
            precision.append(np.ones(len(missing)))
            p_docs.append(missing)
            p_clusters.append(np.full(len(missing), -1))
    elif len(explicit):
        ratio, _ = _explicit_ratios(explicit, c, in_gold, "output")
        per_cluster = sp.csr_array(ratio @ c.output)  # Σ over members of each cluster
        member = c.output[explicit]
        rows, clusters = member.nonzero()
        vals = np.asarray(per_cluster[rows, clusters]).ravel()
        precision.append(vals / out_gold_sizes[clusters])
        p_docs.append(explicit[rows])
        p_clusters.append(clusters.astype(np.int64))

    # ---- recall
    explicit_r = np.flatnonzero(in_gold & ~flat)
    r_flat = n_ij / gold_sizes[fj] if len(flat_docs) else np.zeros(0)
    recall, r_docs, r_classes = [r_flat], [flat_docs], [fj.astype(np.int64)]
    if len(explicit_r):
        ratio, neighbours = _explicit_ratios(explicit_r, c, in_gold, "gold")
        if variant == "item":
            recall.append(np.asarray(ratio.sum(axis=1)).ravel() / neighbours)
            r_docs.append(explicit_r)
            r_classes.append(np.full(len(explicit_r), -1))
        else:
            per_class = sp.csr_array(ratio @ c.gold)
            member = c.gold[explicit_r]
            rows, classes = member.nonzero()
            vals = np.asarray(per_class[rows, classes]).ravel() if ratio.nnz else np.zeros(member.nnz)
            recall.append(vals / gold_sizes[classes])
            r_docs.append(explicit_r[rows])
            r_classes.append(classes.astype(np.int64))
    return BCubedItems(tuple(precision), tuple(p_docs), tuple(p_clusters), tuple(recall), tuple(r_docs),
                       tuple(r_classes))


@validate(variant=VARIANT)
def bcubed(c: ClusterContingency, variant: str = "item", alpha: float = 0.5) -> dict[str, float]:
    """Extended BCubed ``{"precision", "recall", "f"}`` (Amigó et al. 2009 §4.2; Amigó et al., SIGIR 2013, §3.2, §4.2).

    Multiplicity precision of a document pair: min(cX, cG)/cX, recall min(cX, cG)/cG, where cX and cG
    count the output clusters and gold classes the two documents share (a document pairs with itself).

    - ``variant="item"``: precision(d) averages multiplicity precision over the documents sharing an output
      cluster with d; BCubed precision averages over documents (the ``bcubed`` package).
    - ``variant="occurrence"``: each (document, cluster) occurrence is an item: it averages multiplicity
      precision over the members of its own cluster; BCubed precision averages over occurrences (Amigó et al., SIGIR
      2013 §4.2; PyEvALL's ReliabilityBCubed / SensitivityBCubed). Equal to ``"item"`` without overlap.

    Only documents in the gold are scored (see the module's ``unmatched`` policies). Flat documents use
    the contingency (n_ij/|C_i|); documents in several clusters or classes are computed from their
    neighbourhoods, so the cost is O(nnz + Σ_overlapping |neighbourhood|). F is F_α; NaN where no gold
    document is returned (precision) or the gold is empty (recall). The values averaged, item by item:
    :func:`bcubed_items`.
    """
    items = bcubed_items(c, variant)
    precision, recall = _mean_of_groups(items.precision), _mean_of_groups(items.recall)
    return {"precision": precision, "recall": recall, "f": f_alpha(precision, recall, alpha)}


# ------------------------------------------------------------------------------- entropy family
def _flat_table(c: ClusterContingency) -> np.ndarray | None:
    """The contingency of two partitions of the gold documents, for the entropy family; None with overlap.

    Rows: output clusters restricted to gold documents, plus one singleton row per gold document the
    output lacks (see ``unmatched``); columns: gold classes. Entropy, MI, NMI and V-measure are defined for
    partitions: with a gold document in two clusters or classes they are NaN (use BCubed).
    """
    in_gold = _row_counts(c.gold) > 0
    if (_row_counts(c.output)[in_gold] > 1).any() or (_row_counts(c.gold) > 1).any():
        return None
    table = c.table.toarray() if c.table.shape[0] else np.zeros((0, c.table.shape[1]), dtype=np.int64)
    table = table[table.sum(axis=1) > 0]
    missing = (_row_counts(c.output) == 0) & (_row_counts(c.gold) > 0)
    if missing.any():
        table = np.vstack([table, c.gold[np.flatnonzero(missing)].toarray()])
    return table


def flat_cells(c: ClusterContingency) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """The cell of every gold document in :func:`_flat_table` (its row: the document's output cluster, or its own
    singleton row when the output lacks it; its column: its class), as ``(documents, rows, columns)``; None with
    overlap. Entry (r, k) of the table counts the documents whose cell is (r, k)."""
    nx, ng = _row_counts(c.output), _row_counts(c.gold)
    in_gold = ng > 0
    if (nx[in_gold] > 1).any() or (ng > 1).any():
        return None
    documents = np.flatnonzero(in_gold)
    columns = c.gold.indices[c.gold.indptr[documents]]
    counts = np.asarray(c.table.sum(axis=1)).ravel() if c.table.shape[0] else np.zeros(0)
    kept = np.cumsum(counts > 0) - 1  # the row of each output cluster holding gold documents
    returned = nx[documents] > 0
    rows = np.empty(len(documents), dtype=np.int64)
    rows[returned] = kept[c.output.indices[c.output.indptr[documents[returned]]]]
    rows[~returned] = int((counts > 0).sum()) + np.arange(int((~returned).sum()))
    return documents, rows, columns


def mutual_information_cells(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The non-empty cells (i, j) of a contingency and their terms (n_ij/N)·log(N·n_ij/(a_i·b_j)), in nats."""
    n = table.sum()
    a, b = table.sum(axis=1), table.sum(axis=0)
    i, j = np.nonzero(table)
    nij = table[i, j].astype(float)
    return i, j, nij / n * (np.log(nij * n) - np.log(a[i].astype(float) * b[j]))


def _entropy(counts: np.ndarray) -> float:
    counts = counts[counts > 0].astype(float)
    total = counts.sum()
    if total == 0:
        return 0.0
    p = counts / total
    return float(-(p * np.log(p)).sum())


def mutual_information(c: ClusterContingency) -> float:
    """MI = Σ_ij (n_ij/N) log(N n_ij / (a_i b_j)) in nats (scikit-learn's ``mutual_info_score``)."""
    table = _flat_table(c)
    if table is None:
        return math.nan
    if table.sum() == 0 or table.shape[0] == 1 or table.shape[1] == 1:
        return 0.0
    return max(float(mutual_information_cells(table)[2].sum()), 0.0)


def entropy(c: ClusterContingency) -> float:
    """Entropy of the output clustering H(K) in nats (over gold documents; NaN with overlap)."""
    table = _flat_table(c)
    return math.nan if table is None else _entropy(table.sum(axis=1))


def class_entropy(c: ClusterContingency) -> float:
    """Entropy of the gold classes H(C) in nats (NaN with overlap)."""
    table = _flat_table(c)
    return math.nan if table is None else _entropy(table.sum(axis=0))


AVERAGE_METHODS = ("arithmetic", "geometric", "min", "max")
AVERAGE_METHOD = Choices(AVERAGE_METHODS)
"""The domain of ``average_method``: the mean of H(C) and H(K) that normalises NMI and AMI (scikit-learn's)."""


def _generalized_average(u: float, v: float, average_method: str) -> float:
    """The mean of two entropies that normalises NMI and AMI (scikit-learn's ``average_method``)."""
    if average_method == "min":
        return min(u, v)
    if average_method == "geometric":
        return math.sqrt(u * v)
    if average_method == "max":
        return max(u, v)
    return (u + v) / 2


def _normalisable_table(c: ClusterContingency, average_method: str) -> tuple[np.ndarray | None, float]:
    """The flat table NMI and AMI normalise, or None and their limit: NaN without a flat table (overlap), 1
    when both sides are one cluster or empty (scikit-learn's limit)."""
    table = _flat_table(c)
    if table is None:
        return None, math.nan
    if table.shape[0] == table.shape[1] == 1 or table.size == 0:
        return None, 1.0
    return table, math.nan


@validate(average_method=AVERAGE_METHOD)
def nmi(c: ClusterContingency, average_method: str = "arithmetic") -> float:
    """NMI = MI / mean(H(C), H(K)), the mean named by ``average_method`` (arithmetic, scikit-learn's default;
    geometric as Strehl & Ghosh 2002; min; max). 1 when both sides are one cluster or empty, 0 when MI is 0
    otherwise (scikit-learn's limits)."""
    table, limit = _normalisable_table(c, average_method)
    if table is None:
        return limit
    return nmi_of(mutual_information(c), _entropy(table.sum(axis=0)), _entropy(table.sum(axis=1)), average_method)


@validate(average_method=AVERAGE_METHOD)
def nmi_of(mi: float, h_c: float, h_k: float, average_method: str = "arithmetic") -> float:
    """NMI from the mutual information and the entropies of the classes H(C) and of the clusters H(K): 0 when
    MI is 0, else min(MI / mean(H(C), H(K)), 1)."""
    if mi == 0:
        return 0.0
    return float(min(mi / _generalized_average(h_c, h_k, average_method), 1.0))


def expected_mutual_information(table: np.ndarray) -> float:
    """E[MI] of two random partitions with the margins of ``table`` (the hypergeometric model of Vinh, Epps &
    Bailey, JMLR 2010, eq. 24a), in nats. Terms depend only on a row sum a and a column sum b, so each
    distinct (a, b) is summed once over n_ij = max(1, a + b − N) .. min(a, b), weighted by its multiplicity.

    >>> round(expected_mutual_information(np.array([[2, 0], [0, 2]])), 6)  # ln 2 / 3
    0.231049
    """
    from scipy.special import gammaln

    table = np.asarray(table, dtype=np.int64)
    n = int(table.sum())
    if table.shape[0] <= 1 or table.shape[1] <= 1 or n == 0:
        return 0.0
    a_values, a_count = np.unique(table.sum(axis=1), return_counts=True)
    b_values, b_count = np.unique(table.sum(axis=0), return_counts=True)
    a = np.repeat(a_values, len(b_values))
    b = np.tile(b_values, len(a_values))
    weight = np.repeat(a_count, len(b_values)) * np.tile(b_count, len(a_values))
    start = np.maximum(1, a + b - n)
    length = np.maximum(np.minimum(a, b) - start + 1, 0)
    pair = np.repeat(np.arange(len(a)), length)  # one entry per (a, b, n_ij) term
    nij = (np.arange(int(length.sum())) - np.repeat(np.cumsum(length) - length, length) + start[pair]).astype(float)
    a, b, weight = a[pair].astype(float), b[pair].astype(float), weight[pair]
    log_term = (gammaln(a + 1) + gammaln(b + 1) + gammaln(n - a + 1) + gammaln(n - b + 1) - gammaln(n + 1)
                - gammaln(nij + 1) - gammaln(a - nij + 1) - gammaln(b - nij + 1) - gammaln(n - a - b + nij + 1))
    terms = nij / n * (np.log(n * nij) - np.log(a * b)) * np.exp(log_term)
    return float((weight * terms).sum())


@validate(average_method=AVERAGE_METHOD)
def adjusted_mutual_information(c: ClusterContingency, average_method: str = "arithmetic") -> float:
    """AMI = (MI − E[MI]) / (mean(H(C), H(K)) − E[MI]) (Vinh, Epps & Bailey 2010; scikit-learn's
    ``adjusted_mutual_info_score``): 0 on average for random clusterings, 1 for a perfect one. 1 when both
    sides are one cluster or empty, 0 when only one side is. A numerator or denominator within rounding of 0
    (1e-12 of the normaliser) is one machine epsilon, as scikit-learn does for exact zeros: 0/0 (E[MI] equal
    to the normaliser, e.g. ``min`` against all-singleton clusters) is 1, where scikit-learn's sign follows
    its rounding."""
    table, limit = _normalisable_table(c, average_method)
    if table is None:
        return limit
    if table.shape[0] == 1 or table.shape[1] == 1:
        return 0.0
    return ami_of(mutual_information(c), expected_mutual_information(table), _entropy(table.sum(axis=0)),
                  _entropy(table.sum(axis=1)), average_method)


@validate(average_method=AVERAGE_METHOD)
def ami_of(mi: float, emi: float, h_c: float, h_k: float, average_method: str = "arithmetic") -> float:
    """AMI from MI, its expectation E[MI] and the entropies H(C), H(K), rounding guarded as
    :func:`adjusted_mutual_information` says."""
    normaliser = _generalized_average(h_c, h_k, average_method)
    eps, rounding = float(np.finfo(np.float64).eps), 1e-12 * max(normaliser, 1.0)
    numerator, denominator = mi - emi, normaliser - emi
    numerator = -max(-numerator, eps) if numerator < -rounding else max(numerator, eps)
    denominator = -max(-denominator, eps) if denominator < -rounding else max(denominator, eps)
    return float(numerator / denominator)


def variation_of_information(c: ClusterContingency) -> float:
    """VI = H(C) + H(K) − 2·MI = H(C|K) + H(K|C) in nats (Meilă, J. Multivariate Analysis 2007): a distance
    between partitions, 0 when they are equal, at most log N; lower is better."""
    table = _flat_table(c)
    if table is None:
        return math.nan
    return vi_of(_entropy(table.sum(axis=0)), _entropy(table.sum(axis=1)), mutual_information(c))


def vi_of(h_c: float, h_k: float, mi: float) -> float:
    """VI = H(C) + H(K) − 2·MI, never below 0 (rounding)."""
    return max(h_c + h_k - 2 * mi, 0.0)


V_BETA = Interval(0, low_open=True)
"""The domain of V-measure's β: the weight of completeness against homogeneity."""


@validate(beta=V_BETA)
def homogeneity_completeness_v(c: ClusterContingency, beta: float = 1.0) -> dict[str, float]:
    """Rosenberg & Hirschberg (2007): homogeneity 1 − H(C|K)/H(C), completeness 1 − H(K|C)/H(K), and
    V = (1+β)·h·c/(β·h + c), β > 0; h (c) is 1 when H(C) (H(K)) is 0, as in scikit-learn."""
    table = _flat_table(c)
    if table is None:
        return {"homogeneity": math.nan, "completeness": math.nan, "v": math.nan}
    return hcv_of(_entropy(table.sum(axis=0)), _entropy(table.sum(axis=1)), mutual_information(c), beta)


@validate(beta=V_BETA)
def hcv_of(h_c: float, h_k: float, mi: float, beta: float = 1.0) -> dict[str, float]:
    """Homogeneity, completeness and V from H(C), H(K) and MI (see :func:`homogeneity_completeness_v`)."""
    h = 1.0 if h_c == 0 else mi / h_c
    comp = 1.0 if h_k == 0 else mi / h_k
    v = 0.0 if h + comp == 0 else (1 + beta) * h * comp / (beta * h + comp)
    return {"homogeneity": h, "completeness": comp, "v": v}


# ----------------------------------------------------------------------------------- pair counting
def pair_counts(c: ClusterContingency) -> dict[str, int]:
    """Unordered pairs of distinct gold documents: ``tp`` (together in both), ``fp`` (output only), ``fn``
    (gold only), ``tn`` (apart in both). Two documents are together when they share at least one cluster,
    so with overlap a pair counts once (the WePS scorer's pair measures); without overlap this is
    scikit-learn's pair confusion matrix. Output documents the gold lacks are not items; a gold document
    the output lacks is together with nothing. Counted per document from neighbourhood sizes, O(nnz) for
    documents in one cluster and one class.
    """
    size_x, size_g, size_both, in_gold = pair_sizes(c)
    items = int(in_gold.sum())
    self_pairs = (in_gold & (_row_counts(c.output) > 0)).astype(np.int64)
    pred = int((size_x - self_pairs)[in_gold].sum()) // 2
    true = int((size_g - 1)[in_gold].sum()) // 2
    tp = int((size_both - self_pairs)[in_gold].sum()) // 2
    fp, fn = pred - tp, true - tp
    return {"tp": tp, "fp": fp, "fn": fn, "tn": items * (items - 1) // 2 - tp - fp - fn}


def pair_sizes(c: ClusterContingency) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per document, the gold documents it is together with in the output, in the gold and in both (itself
    included when it is on that side), and whether it is a gold document: what :func:`pair_counts` counts."""
    import scipy.sparse as sp
    nx, ng = _row_counts(c.output), _row_counts(c.gold)
    in_gold = ng > 0
    items = int(in_gold.sum())
    out_gold_sizes = np.asarray(c.output[in_gold].sum(axis=0)).ravel() if items else np.zeros(0)
    flat = (nx == 1) & (ng == 1)
    size_x = np.zeros(len(nx), dtype=np.int64)
    size_g = np.zeros(len(nx), dtype=np.int64)
    size_both = np.zeros(len(nx), dtype=np.int64)
    docs = np.flatnonzero(flat)
    fi, fj = _flat_cell(c, docs)
    size_x[docs] = out_gold_sizes[fi]
    size_g[docs] = c.gold_sizes[fj]
    size_both[docs] = np.asarray(c.table[fi, fj]).ravel() if len(docs) else 0
    docs = np.flatnonzero(in_gold & ~flat)
    if len(docs):
        keep = sp.diags_array(in_gold.astype(np.int64), dtype=np.int64)
        cx = sp.csr_array(c.output[docs] @ (keep @ c.output).T)
        cg = sp.csr_array(c.gold[docs] @ (keep @ c.gold).T)
        size_x[docs] = _row_counts(cx)
        size_g[docs] = _row_counts(cg)
        size_both[docs] = _row_counts(sp.csr_array(cx.multiply(cg)))
    return size_x, size_g, size_both, in_gold


def rand(c: ClusterContingency) -> float:
    """Rand index = (tp + tn) / C(N, 2); 1 when there are fewer than two items (scikit-learn)."""
    return rand_of(pair_counts(c))


def rand_of(p: Mapping[str, float]) -> float:
    """The Rand index of the pair counts ``{"tp", "fp", "fn", "tn"}``."""
    total = sum(p.values())
    return 1.0 if total == 0 else (p["tp"] + p["tn"]) / total


def adjusted_rand(c: ClusterContingency) -> float:
    """Hubert–Arabie adjusted Rand index (scikit-learn's pair-confusion form); 1 when fp = fn = 0."""
    return adjusted_rand_of(pair_counts(c))


def adjusted_rand_of(p: Mapping[str, float]) -> float:
    """The adjusted Rand index of the pair counts ``{"tp", "fp", "fn", "tn"}``."""
    tp, fp, fn, tn = p["tp"], p["fp"], p["fn"], p["tn"]
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def jaccard(c: ClusterContingency) -> float:
    """Pair-counting Jaccard = tp / (tp + fp + fn); 1 when no pair is together on either side."""
    return jaccard_of(pair_counts(c))


def jaccard_of(p: Mapping[str, float]) -> float:
    """The pair-counting Jaccard coefficient of the pair counts ``{"tp", "fp", "fn", "tn"}``."""
    denom = p["tp"] + p["fp"] + p["fn"]
    return 1.0 if denom == 0 else p["tp"] / denom


FM_CONVENTIONS = ("sklearn", "weps")
FM_CONVENTION = Choices(FM_CONVENTIONS)
"""The domain of Fowlkes–Mallows' ``convention``: scikit-learn's limits, or the WePS scorer's."""


@validate(convention=FM_CONVENTION)
def fowlkes_mallows(c: ClusterContingency, convention: str = "sklearn") -> float:
    """Fowlkes–Mallows = tp / sqrt((tp + fp)(tp + fn)).

    Its limits differ between tools: ``"sklearn"`` gives 0 whenever tp = 0; ``"weps"`` (the WePS scorer's
    PM) gives 1 when either side has no pair together (e.g. the one-in-one baseline), else the formula.
    """
    return fowlkes_mallows_of(pair_counts(c), convention)


@validate(convention=FM_CONVENTION)
def fowlkes_mallows_of(p: Mapping[str, float], convention: str = "sklearn") -> float:
    """Fowlkes–Mallows of the pair counts ``{"tp", "fp", "fn", "tn"}`` under ``convention``."""
    tp = p["tp"]
    if convention == "weps" and (tp + p["fp"] == 0 or tp + p["fn"] == 0):
        return 1.0
    return 0.0 if tp == 0 else float(tp / math.sqrt((tp + p["fp"]) * (tp + p["fn"])))


# --------------------------------------------------------------- EvALL's entropies and F-measure
PROBABILITIES = ("conditional", "joint")
PROBABILITY = Choices(PROBABILITIES)
"""The domain of ``probability`` in Entropy and Class Entropy: a cell's share of its cluster (class), or of all."""


def disorder_terms(c: ClusterContingency, of: str = "clusters", probability: str = "conditional"
                   ) -> tuple[np.ndarray, np.ndarray] | None:
    """Per gold document (``(documents, terms)``, the terms summing to :func:`cluster_disorder`): in a cell of
    n_ij documents of cluster i (size a_i, over the gold documents) and class j (size b_j), of N, with
    ``of="clusters"`` (Entropy) and ``probability="conditional"`` −log2(n_ij/a_i)/N, so that the sum is
    H(L|C) = −Σ_i (a_i/N) Σ_j (n_ij/a_i) log2(n_ij/a_i) (Zhao & Karypis 2001), and with ``"joint"``
    −(a_i/N)·log2(n_ij/N)/N, PyEvALL 0.2.11's −Σ_i (a_i/N) Σ_j (n_ij/N) log2(n_ij/N); ``of="classes"`` (Class
    Entropy) swaps the roles (b_j for a_i). None with overlap (a partition is needed, as PyEvALL requires)."""
    cells, table = flat_cells(c), _flat_table(c)
    if cells is None or table is None:
        return None
    documents, rows, columns = cells
    n = float(table.sum())
    if n == 0:
        return documents, np.zeros(0)
    sizes = (table.sum(axis=1)[rows] if of == "clusters" else table.sum(axis=0)[columns]).astype(float)
    cell = table[rows, columns].astype(float)
    if probability == "conditional":
        return documents, np.log2(sizes / cell) / n
    return documents, (sizes / n) * np.log2(n / cell) / n


def cluster_disorder(c: ClusterContingency, of: str = "clusters", probability: str = "conditional") -> float:
    """Entropy (``of="clusters"``) or Class Entropy (``of="classes"``) in bits: :func:`disorder_terms` added
    (NaN with overlap; 0 for no gold document). Lower is better.

    >>> c = contingency_from_labels([0, 0, 1, 1], ["a", "a", "a", "b"])  # cluster a: 2 of class 0, 1 of class 1
    >>> [round(cluster_disorder(c, of, p), 4) for of, p in (("clusters", "conditional"), ("classes", "conditional"),
    ...                                                     ("clusters", "joint"))]
    [0.6887, 0.5, 0.875]
    """
    terms = disorder_terms(c, of, probability)
    return math.nan if terms is None else float(np.cumsum(terms[1])[-1]) if len(terms[1]) else 0.0


def clustering_f_terms(c: ClusterContingency, alpha: float = 0.5) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per gold class j: ``(weights, best F, best cluster)``, the weight |L_j|/Σ_j |L_j| (occurrences, with
    overlap), F_α(P_ij, R_ij) of its best output cluster i, P_ij = n_ij/|C_i ∩ G| (the cluster's documents the
    gold has: the others are ignored, as PyEvALL filters them), R_ij = n_ij/|L_j|; cluster −1 for none."""
    table = c.table.toarray().astype(float) if c.table.shape[0] else np.zeros((0, c.table.shape[1]))
    in_gold = _row_counts(c.gold) > 0
    kept = np.asarray(c.output[np.flatnonzero(in_gold)].sum(axis=0)).ravel().astype(float) if len(in_gold) else \
        np.zeros(table.shape[0])
    sizes = c.gold_sizes.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(kept[:, None] > 0, table / kept[:, None], 0.0)
        recall = np.where(sizes[None, :] > 0, table / sizes[None, :], 0.0)
        f = np.where((precision > 0) & (recall > 0), 1.0 / (alpha / precision + (1 - alpha) / recall), 0.0)
    best = f.argmax(axis=0) if table.shape[0] else np.full(table.shape[1], -1)
    values = f.max(axis=0) if table.shape[0] else np.zeros(table.shape[1])
    total = sizes.sum()
    return (sizes / total if total else sizes), values, best


def clustering_f(c: ClusterContingency, alpha: float = 0.5) -> float:
    """The clustering F-measure F = Σ_j (|L_j|/N) max_i F_α(P_ij, R_ij) (Larsen & Aone, KDD 1999; EvALL's and
    PyEvALL's FMeasureClustering with α = 0.5): each gold class scored by its best cluster.

    >>> round(clustering_f(contingency_from_labels([0, 0, 1, 1], ["a", "a", "a", "b"])), 4)
    0.7333
    """
    weights, values, _ = clustering_f_terms(c, alpha)
    return float(np.cumsum(weights * values)[-1]) if len(values) else 0.0


# --------------------------------------------------------------------------------------- registry
_SOURCE = "Amigó, Gonzalo, Artiles, Verdejo 2009 (Inf. Retrieval 12); WePS scorer"


def _purity_family(gold, output, *, unmatched="weps", alpha=0.5):
    c = contingency(gold, output, unmatched=unmatched)
    p, ip = purity(c), inverse_purity(c)
    return {"purity": p, "inverse_purity": ip, "f_purity": f_alpha(p, ip, alpha)}


def _bcubed(gold, output, *, unmatched="weps", variant="item", alpha=0.5):
    return bcubed(contingency(gold, output, unmatched=unmatched), variant=variant, alpha=alpha)


def _entropy_family(gold, output, *, unmatched="weps", beta=1.0):
    return homogeneity_completeness_v(contingency(gold, output, unmatched=unmatched), beta)


def _pair_family(gold, output, *, unmatched="weps"):
    c = contingency(gold, output, unmatched=unmatched)
    return {"rand": rand(c), "ari": adjusted_rand(c), "jaccard": jaccard(c)}


def _fm(gold, output, *, unmatched="weps", convention="sklearn"):
    return fowlkes_mallows(contingency(gold, output, unmatched=unmatched), convention)


_UNMATCHED = {"unmatched": Param("weps", UNMATCHED, "documents on one side only: kept as the WePS scorer "
                                                            "keeps them, as singletons, or refused (strict)")}
_ALPHA = {"alpha": Param(0.5, Interval(0, 1), "α: the weight of the first measure in F_α = 1/(α/x + (1 − α)/y)")}
_VARIANT = {"variant": Param("item", VARIANT, "extended BCubed (Amigó et al. 2009) over items, or over "
                                                        "occurrences of overlapping clusters")}
_PYEVALL = {"Purity": {"pyevall": "Purity"}, "InversePurity": {"pyevall": "InversePurity"},
            "F(P,IP)": {"pyevall": "FMeasurePurityInversePurity"}, "Rand": {"pyevall": "RandStatistics"},
            "Jaccard": {"pyevall": "Jaccard"}, "FM": {"pyevall": "FolkesAndMallows"},
            "BCubed-P": {"pyevall": "ReliabilityBCubed (variant=occurrence)"},
            "BCubed-R": {"pyevall": "SensitivityBCubed (variant=occurrence)"}}
"""PyEvALL 0.2.11's names of the clustering measures it defines as the workbench does (its VariationOfInformation
is N times VI in bits, unnormalised: not a spelling of VI)."""
for _name, _compute, _field, _params, _range, _desc in (
    ("Purity", _purity_family, "purity", {}, (0, 1), "Σ_i max_j |C_i∩L_j| / Σ_i |C_i|"),
    ("InversePurity", _purity_family, "inverse_purity", {}, (0, 1), "Σ_j max_i |L_j∩C_i| / Σ_j |L_j|"),
    ("F(P,IP)", _purity_family, "f_purity", _ALPHA, (0, 1), "F_α of Purity and Inverse Purity"),
    ("BCubed-P", _bcubed, "precision", _VARIANT, (0, 1), "extended BCubed precision"),
    ("BCubed-R", _bcubed, "recall", _VARIANT, (0, 1), "extended BCubed recall"),
    ("BCubed-F", _bcubed, "f", {**_VARIANT, **_ALPHA}, (0, 1), "F_α of BCubed P and R"),
    ("Homogeneity", _entropy_family, "homogeneity", {}, (0, 1), "1 − H(C|K)/H(C)"),
    ("Completeness", _entropy_family, "completeness", {}, (0, 1), "1 − H(K|C)/H(K)"),
    ("ARI", _pair_family, "ari", {}, (-1, 1), "adjusted Rand index (Cohen's κ of the pair table)"),
    ("Rand", _pair_family, "rand", {}, (0, 1), "Rand index over document pairs"),
    ("Jaccard", _pair_family, "jaccard", {}, (0, 1), "pair-counting Jaccard coefficient"),
    ("FM", _fm, None, {"convention": Param("sklearn", FM_CONVENTION, "scikit-learn's pair counts, or "
                                           "the WePS scorer's")}, (0, 1), "Fowlkes–Mallows index"),
):
    register(_name, _compute, task="clustering", source=_SOURCE, params={**_params, **_UNMATCHED}, range=_range,
             field=_field, description=_desc, explained=_EXPLAINED, spellings=_PYEVALL.get(_name))


# Information-theoretic measures with their own parameters (scikit-learn's average_method and beta).
def _nmi(gold, output, *, unmatched="weps", average_method="arithmetic"):
    return nmi(contingency(gold, output, unmatched=unmatched), average_method)


def _ami(gold, output, *, unmatched="weps", average_method="arithmetic"):
    return adjusted_mutual_information(contingency(gold, output, unmatched=unmatched), average_method)


def _vi(gold, output, *, unmatched="weps"):
    return variation_of_information(contingency(gold, output, unmatched=unmatched))


def _disorder(gold, output, *, unmatched="weps", probability="conditional", of="clusters"):
    return cluster_disorder(contingency(gold, output, unmatched=unmatched), of, probability)


def _class_disorder(gold, output, *, unmatched="weps", probability="conditional"):
    return _disorder(gold, output, unmatched=unmatched, probability=probability, of="classes")


def _clustering_f(gold, output, *, unmatched="weps", alpha=0.5):
    return clustering_f(contingency(gold, output, unmatched=unmatched), alpha)


_EVALL = "Amigó, Gonzalo, Artiles, Verdejo 2009 (Inf. Retrieval 12), §3; EvALL; PyEvALL 0.2.11 (pyevall/metrics)"
_PROBABILITY = {"probability": Param("conditional", PROBABILITY, "each cell's share of its cluster (class): the "
                                     "conditional entropy of the classes given the clusters (Zhao & Karypis), or of "
                                     "all the documents, as PyEvALL 0.2.11 computes it (joint)")}
register("Entropy", _disorder, task="clustering", source=_EVALL + "; Zhao & Karypis, CIKM 2001",
         params={**_PROBABILITY, **_UNMATCHED}, range=(0, math.inf), direction="lower",
         spellings={"pyevall": "Entropy (probability=joint)"}, explained=_EXPLAINED,
         description="the disorder of the gold classes inside each output cluster, in bits: −Σ_i (|C_i|/N) Σ_j "
                     "p_ij log2 p_ij (NaN with overlap, as PyEvALL's precondition refuses it)")
register("ClassEntropy", _class_disorder, task="clustering", source=_EVALL,
         params={**_PROBABILITY, **_UNMATCHED}, range=(0, math.inf), direction="lower",
         spellings={"pyevall": "ClassEntropy (probability=joint)"}, explained=_EXPLAINED,
         description="the disorder of the output clusters inside each gold class, in bits: −Σ_j (|L_j|/N) Σ_i "
                     "p_ij log2 p_ij (NaN with overlap)")
register("ClusteringF", _clustering_f, task="clustering", source=_EVALL + "; Larsen & Aone, KDD 1999",
         params={**_ALPHA, **_UNMATCHED}, aliases=("FMeasureClustering",),
         spellings={"pyevall": "FMeasureClustering"}, explained=_EXPLAINED,
         description="the clustering F-measure Σ_j (|L_j|/N) max_i F_α(P_ij, R_ij): each gold class scored by its "
                     "best output cluster (output documents the gold lacks ignored)")

_AVERAGE = {"average_method": Param("arithmetic", AVERAGE_METHOD, "the mean of H(C) and H(K) that "
                                                                            "normalises (scikit-learn's)")}
register("NMI", _nmi, task="clustering", source=_SOURCE + "; Strehl & Ghosh 2002",
         params={**_AVERAGE, **_UNMATCHED}, spellings={"pyevall": "NMI-SG (average_method=geometric)"},
         description="normalised mutual information MI / mean(H(C), H(K)), the mean "
                                           "named by average_method (scikit-learn's)", explained=_EXPLAINED)
register("AMI", _ami, task="clustering", source="Vinh, Epps & Bailey, JMLR 11 (2010)",
         params={**_AVERAGE, **_UNMATCHED}, range=(-1, 1),
         description="adjusted mutual information (MI − E[MI]) / (mean(H(C), H(K)) − E[MI])", explained=_EXPLAINED)
register("VI", _vi, task="clustering", source="Meilă, J. Multivariate Analysis 98 (2007)",
         params=_UNMATCHED, range=(0, math.inf), direction="lower",
         description="variation of information H(C) + H(K) − 2·MI in nats (a distance: lower is better)",
         explained=_EXPLAINED)
register("V-measure", _entropy_family, task="clustering", source="Rosenberg & Hirschberg, EMNLP 2007",
         params={"beta": Param(1.0, V_BETA, "β: the weight of completeness against homogeneity"), **_UNMATCHED},
         field="v",
         description="(1+β)·h·c / (β·h + c) of homogeneity h and completeness c (β > 1 weighs completeness)",
         explained=_EXPLAINED)
