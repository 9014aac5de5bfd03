"""Labellings: the gold standard or a system output of a classification task (one topic of a campaign).

A :class:`Labelling` assigns items (string ids) values of one kind, the three shapes of PyEvALL's records:

* ``"mono"``: one class per item (mono-label classification);
* ``"multi"``: a set of classes per item (multi-label classification);
* ``"soft"``: a weight in [0, 1] per class ("learning with disagreement"): a probability distribution over the
  classes (``distribution=True``: each item's weights sum to 1 within :data:`SUM_TOLERANCE`) or independent
  per-class probabilities (``distribution=False``, multi-label soft labels).

A gold standard may carry a :class:`ClassTree` (hierarchical classification: every label of the gold and of the
outputs is then one of its classes) and the declared classes in their order (an ordinal scale, for CEM).

    >>> gold = Labelling.parse("i1: A\\ni2: B\\ni3: A")
    >>> gold.kind, gold["i2"], gold.labels()
    ('mono', 'B', ('A', 'B'))
    >>> Labelling.parse("i1: {A: 0.25, B: 0.75}\\ni2: {B: 1}")["i1"]
    {'A': 0.25, 'B': 0.75}
    >>> Labelling.parse("i1: [A, B]\\ni2: {A: 0.25, B: 0.75}")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.model.labelling.MixedKindsError: line 2, id 'i2': a soft value (weights per class) among multi ...

The notation (:meth:`Labelling.parse`, :meth:`Labelling.format`) writes one item per line, ``id: value``, the
value shaped as PyEvALL's JSON ``value``: ``A`` (one class), ``[A, B]`` (a set), ``{A: 0.6, B: 0.4}``
(weights); an empty value (``i1:``, ``[]``, ``{}``) is an item with no answer, which only an output may hold.

An :class:`Organization` with a finite rest reads as a mono-label labelling of its documents, the class of a
document being its priority level (``"1"``, ``"2"`` ... and ``"rest"``): filtering as binary classification,
graded relevance as an ordinal scale (:meth:`Labelling.from_organization`).
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from workbench.errors import InputError, quoted
from workbench.model.organization import Organization
from workbench.reading.text import lines
from workbench.validation import Anything, Choices, Flag, Instance, Interval, ListOf, MappingOf, Text, validate

__all__ = [
    "ClassTree", "EmptyLabelError", "HierarchyError", "KINDS", "KIND", "LabelNotInHierarchyError", "Labelling",
    "LabellingError", "MixedKindsError", "ProbabilityError", "RepeatedIdError", "SUM_TOLERANCE", "TOLERANCE",
    "check_value", "is_empty", "kind_of"
]

KINDS = ("mono", "multi", "soft")
KIND = Choices(KINDS)
"""The domain of a labelling's ``kind``."""
SUM_TOLERANCE = 1e-3
"""How far from 1 the weights of a soft label that is a distribution may sum: values published with four
decimals (1/3 as 0.3333) stay within it; ``tolerance=`` changes it."""
TOLERANCE = Interval(0, 1)
"""The domain of ``tolerance``."""
CLASSES = ListOf(Text(), optional=True)
ITEMS = MappingOf(Text(), what="a mapping item id → value")

_ONE = {"mono": "mono value (one class)", "multi": "multi value (a list of classes)",
        "soft": "soft value (weights per class)"}
_DESCRIBED = {"mono": "mono values (one class each)", "multi": "multi values (lists of classes)",
              "soft": "soft values (weights per class)"}


class LabellingError(InputError):
    """A labelling that cannot be read: says what is wrong and where (file, line, item id)."""

    def __init__(self, message: str, *, where: str = "", item: str | None = None, **location: Any) -> None:
        self.item = item
        place = ", ".join(part for part in (where, None if item is None else f"id {quoted(item)}") if part)
        super().__init__(message, where=place, **location)
        self.where = where


class EmptyLabelError(LabellingError):
    """An item with no class (``""``, ``[]``, ``{}``) where one is required: in a gold standard."""


class RepeatedIdError(LabellingError):
    """An item id given twice in one topic (PyEvALL's repeated ids: multi-label values are lists, not rows)."""


class ProbabilityError(LabellingError):
    """A soft label with a weight outside [0, 1] or not a number, or whose weights do not sum to 1."""


class MixedKindsError(LabellingError):
    """Values of different kinds in one topic, or a gold and an output of different kinds."""


class LabelNotInHierarchyError(LabellingError):
    """A label that the class tree of a hierarchical task does not hold."""


class HierarchyError(LabellingError):
    """A class hierarchy that is not a tree (a class twice, a cycle) or not written as PyEvALL writes one."""


def _children(node: Any, above: str | None, parent: Mapping[str, str | None]) -> Iterator[tuple[str, Any, str | None]]:
    """``(class, its children, parent)`` of each class one level of a nested hierarchy holds (``parent``: the
    classes met so far, which name the path in a refusal)."""
    if isinstance(node, Mapping):
        pairs = list(node.items())
    elif isinstance(node, list | tuple) and above is not None:
        pairs = [(leaf, []) for leaf in node]
    else:
        raise HierarchyError(f"{_path(above, parent)}: expected a dict of classes"
                             f"{' or a list of leaves' if above else ''}, got {type(node).__name__}", where="hierarchy")
    for name, children in pairs:
        if not isinstance(name, str) or not name:
            raise HierarchyError(f"{_path(above, parent)}: a class is a non-empty string, got {quoted(name)}",
                                 where="hierarchy")
        yield name, children, above


def _path(node: str | None, parent: Mapping[str, str | None]) -> str:
    """``/A/B/C``, the classes from the top down to ``node`` (``""`` at the top)."""
    names = []
    while node is not None:
        names.append(node)
        node = parent[node]
    return "".join(f"/{name}" for name in reversed(names))


# ------------------------------------------------------------------------------------------ the class tree
@dataclass(frozen=True)
class ClassTree:
    """A class hierarchy: ``parent[c]`` is the parent of class ``c`` (None for a root), ``classes`` in the
    order they were given (depth first).

    Written as PyEvALL writes one (:meth:`from_nested`): a dict from a class to its children, themselves a
    dict or a list of leaf classes.

    >>> tree = ClassTree.from_nested({"P": ["S1", "S2"], "Q": {"Q1": ["Q11"]}})
    >>> tree.classes, tree.ancestors("Q11")
    (('P', 'S1', 'S2', 'Q', 'Q1', 'Q11'), ('Q11', 'Q1', 'Q'))
    >>> ClassTree.from_nested({"P": ["S1"], "Q": ["S1"]})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    workbench.model.labelling.HierarchyError: hierarchy: class 'S1' is under 'P' and again under 'Q': a class ...
    """

    parent: Mapping[str, str | None]
    classes: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        parents = dict(self.parent)
        for child, parent in parents.items():
            if parent is not None and parent not in parents:
                raise HierarchyError(f"class {child!r} has parent {parent!r}, which is not a class of the tree",
                                     where="hierarchy")
        rooted: set[str] = set()  # classes known to reach a root (each class is walked up once in all)
        for start in parents:  # a parent map of a tree reaches a root from every class
            seen, node = [start], parents[start]
            while node is not None and node not in rooted:
                if node in seen:
                    raise HierarchyError(f"classes {' → '.join(seen + [node])} form a cycle", where="hierarchy")
                seen.append(node)
                node = parents[node]
            rooted.update(seen)
        order = tuple(self.classes) or tuple(parents)
        if sorted(order) != sorted(parents):
            raise HierarchyError("classes must list every class of the parent map once", where="hierarchy")
        object.__setattr__(self, "parent", MappingProxyType(parents))
        object.__setattr__(self, "classes", order)

    def __reduce__(self) -> tuple:
        """Pickled with its parent map as a dict (a mapping proxy does not pickle): a hierarchical campaign
        travels to an executor's workers (:mod:`workbench.data.distributed`)."""
        return ClassTree, (dict(self.parent), self.classes)

    @classmethod
    @validate(nested=Anything("read here, naming the class at fault: a hierarchy file's data"))
    def from_nested(cls, nested: Mapping | Sequence) -> ClassTree:
        """The tree of PyEvALL's hierarchy parameter: ``{class: children}``, children a dict of the same shape
        or a list of leaf classes (an empty list: no children)."""
        parent: dict[str, str | None] = {}
        stack = [_children(nested, None, parent)]  # depth first, without recursion: one iterator per open class
        while stack:
            found = next(stack[-1], None)
            if found is None:
                stack.pop()
                continue
            name, children, above = found
            if name in parent:
                first = "at the top" if parent[name] is None else f"under {parent[name]!r}"
                again = "at the top" if above is None else f"under {above!r}"
                raise HierarchyError(f"class {name!r} is {first} and again {again}: a class hierarchy is a "
                                     "tree, each class in one place", where="hierarchy")
            parent[name] = above
            if not (isinstance(children, list | tuple) and not children):
                stack.append(_children(children, name, parent))
        return cls(parent, tuple(parent))

    def to_nested(self) -> dict:
        """The tree as PyEvALL writes it (dicts for inner classes, lists for their leaves, ``[]`` for a root
        without children)."""
        children: dict[str | None, list[str]] = {}
        for name in self.classes:
            children.setdefault(self.parent[name], []).append(name)

        def below(name: str) -> dict | list:
            kids = children.get(name, [])
            if all(kid not in children for kid in kids):
                return list(kids)
            return {kid: below(kid) for kid in kids}

        return {root: below(root) for root in children.get(None, [])}

    @validate(name=Text())
    def ancestors(self, name: str) -> tuple[str, ...]:
        """``name`` and its ancestors, nearest first (a root: itself)."""
        if name not in self.parent:
            raise LabelNotInHierarchyError(f"class {name!r} is not in the hierarchy (its classes: "
                                           f"{_listing(self.classes)})", where="hierarchy")
        path = []
        node: str | None = name
        while node is not None:
            path.append(node)
            node = self.parent[node]
        return tuple(path)

    def __contains__(self, name: object) -> bool:
        return name in self.parent


HIERARCHY = Instance((ClassTree, Mapping), "a ClassTree or a nested dict of classes", optional=True)
"""The domain of a labelling's ``hierarchy`` where a nested dict is read too."""


# --------------------------------------------------------------------------------------------- the values
def kind_of(value: Any) -> str | None:
    """The kind a value has as PyEvALL reads it: a string is mono, a list multi, a dict soft; None otherwise."""
    if isinstance(value, str):
        return "mono"
    if isinstance(value, list | tuple | frozenset | set):
        return "multi"
    if isinstance(value, Mapping):
        return "soft"
    return None


def is_empty(value: Any) -> bool:
    """An item with no class: ``""``, ``[]``, ``{}`` (PyEvALL's non-evaluable values)."""
    return (isinstance(value, str) and value == "") or (kind_of(value) in ("multi", "soft") and len(value) == 0)


def check_value(value: Any, *, where: str = "", item: str | None = None, distribution: bool = True,
                tolerance: float = SUM_TOLERANCE, **location: Any) -> Any:
    """``value`` as a labelling holds it (a str, a tuple of distinct classes, or a dict class → float),
    checked: classes are non-empty strings, a set names a class once, weights are finite numbers in [0, 1] and, for
    a distribution, sum to 1 within ``tolerance``. Raises a :class:`LabellingError` naming ``where``, ``item`` and
    the ``location`` (``path``, ``line``) given."""
    kind = kind_of(value)
    if kind is None:
        shown = "null" if value is None else f"{value!r} ({type(value).__name__})"
        integer = isinstance(value, int) and not isinstance(value, bool)
        ranking = " (an integer is PyEvALL's ranking value)" if integer else ""
        raise LabellingError(f"value {shown} is not a class, a list of classes or a dict of weights{ranking}",
                             where=where, item=item, **location)
    if kind == "mono":
        return value
    if kind == "multi":
        labels = tuple(value)
        for label in labels:
            if not isinstance(label, str) or not label:
                raise LabellingError(f"a class is a non-empty string, got {label!r}", where=where, item=item,
                                     **location)
        twice = sorted({label for label in labels if labels.count(label) > 1})
        if twice:
            raise LabellingError(f"class{'es' if len(twice) > 1 else ''} {', '.join(map(repr, twice))} given twice "
                                 "in one set", where=where, item=item, **location)
        return labels
    weights: dict[str, float] = {}
    for label, weight in value.items():
        if not isinstance(label, str) or not label:
            raise LabellingError(f"a class is a non-empty string, got {label!r}", where=where, item=item,
                                 **location)
        if isinstance(weight, bool) or not isinstance(weight, numbers.Real) or not _unit(weight):
            raise ProbabilityError(f"the weight of {label!r} is {weight!r}: weights are numbers in [0, 1]",
                                   where=where, item=item, **location)
        weights[label] = float(weight)
    total = math.fsum(weights.values())
    if distribution and weights and abs(total - 1) > tolerance:
        raise ProbabilityError(f"the weights sum to {total:.6g}, not 1 (tolerance {tolerance:g}): a soft label is a "
                               "probability distribution over the classes; read independent per-class "
                               "probabilities with distribution=False", where=where, item=item, **location)
    return weights


def _unit(weight: numbers.Real) -> bool:
    """Whether a number lies in [0, 1] (an integer too long for a double, or NaN, does not)."""
    try:
        return 0 <= float(weight) <= 1
    except OverflowError:
        return False


def _describe(value: Any) -> str:
    return _ONE[kind_of(value) or "mono"]


# ------------------------------------------------------------------------------------------- the labelling
@dataclass(frozen=True, eq=False)
class Labelling:
    """Item id → value, all of one ``kind`` (``"mono"``, ``"multi"``, ``"soft"``), in the order given.

    ``hierarchy``: the class tree of a hierarchical task (on a gold standard; every label must be one of its
    classes); ``classes``: the classes in their declared order (an ordinal scale); ``distribution``: whether
    soft values are distributions (sum to 1 within ``tolerance``). An empty value (``""``, ``()``, ``{}``) is an
    item without an answer (an output only: a gold standard refuses it, :class:`EmptyLabelError`).
    """

    items: Mapping[str, Any]
    kind: str
    hierarchy: ClassTree | None = None
    classes: tuple[str, ...] | None = None
    distribution: bool = True
    gold: bool = False
    tolerance: float = SUM_TOLERANCE

    def __post_init__(self) -> None:
        checked = {item: self._checked(item, value) for item, value in self.items.items()}
        if self.classes is not None:
            object.__setattr__(self, "classes", tuple(self.classes))
            declared = set(self.classes)
            if len(declared) != len(self.classes):
                raise LabellingError(f"the declared classes {self.classes} name a class twice")
            unknown = [label for label in self.labels(checked) if label not in declared]
            if unknown:
                raise LabellingError(f"label {unknown[0]!r} is not among the declared classes "
                                     f"{', '.join(self.classes)}", item=self._holder(checked, unknown[0]))
        object.__setattr__(self, "items", MappingProxyType(checked))

    def __reduce__(self) -> tuple:
        """Pickled with its items as a dict (a mapping proxy does not pickle): a campaign of labellings travels to
        an executor's workers (:mod:`workbench.data.distributed`)."""
        return Labelling, (dict(self.items), self.kind, self.hierarchy, self.classes, self.distribution, self.gold,
                           self.tolerance)

    def _checked(self, item: str, value: Any, where: str = "") -> Any:
        if is_empty(value):
            if self.gold:
                raise EmptyLabelError("a gold item needs a class (PyEvALL drops it with a warning; here it is "
                                      "refused: give its class or remove the item)", where=where, item=item)
            return {"mono": "", "multi": (), "soft": {}}[self.kind]
        value = check_value(value, where=where, item=item, distribution=self.distribution, tolerance=self.tolerance)
        if kind_of(value) != self.kind:
            raise MixedKindsError(f"a {_describe(value)} among {_DESCRIBED[self.kind]}: a labelling holds values "
                                  "of one kind", where=where, item=item)
        if self.hierarchy is not None:
            for label in _labels_of(value):
                if label not in self.hierarchy:
                    raise LabelNotInHierarchyError(f"class {label!r} is not in the hierarchy (its classes: "
                                                   f"{_listing(self.hierarchy.classes)})", where=where, item=item)
        return value

    @staticmethod
    def _holder(items: Mapping[str, Any], label: str) -> str | None:
        return next((item for item, value in items.items() if label in _labels_of(value)), None)

    # ----------------------------------------------------------------------------------- constructors
    @classmethod
    @validate(items=ITEMS, gold=Flag(), hierarchy=HIERARCHY, classes=CLASSES, distribution=Flag(),
              tolerance=TOLERANCE)
    def of(cls, items: Mapping[str, Any], *, gold: bool = False, hierarchy: ClassTree | Mapping | None = None,
           classes: Sequence[str] | None = None, distribution: bool = True,
           tolerance: float = SUM_TOLERANCE) -> Labelling:
        """A labelling whose kind is read off its values (the first that is not empty; mono when all are)."""
        kind = next((found for value in items.values() if not is_empty(value) and (found := kind_of(value))), "mono")
        tree = hierarchy if hierarchy is None or isinstance(hierarchy, ClassTree) else ClassTree.from_nested(hierarchy)
        return cls(dict(items), kind, tree, None if classes is None else tuple(classes), distribution, gold, tolerance)

    @classmethod
    @validate(text=Text(empty=True), gold=Flag(), hierarchy=HIERARCHY, classes=CLASSES, distribution=Flag(),
              tolerance=TOLERANCE)
    def parse(cls, text: str, *, gold: bool = False, hierarchy: ClassTree | Mapping | None = None,
              classes: Sequence[str] | None = None, distribution: bool = True,
              tolerance: float = SUM_TOLERANCE) -> Labelling:
        """The notation: one ``id: value`` per line (``A``, ``[A, B]``, ``{A: 0.6, B: 0.4}``); blank lines and
        ``#`` comments are skipped. Errors name the line and the item."""
        items: dict[str, Any] = {}
        line_of: dict[str, int] = {}
        kind: str | None = None
        for number, line in lines(text):
            body = line.split("#", 1)[0].strip()
            if not body:
                continue
            item, sep, written = body.partition(":")
            item = item.strip()
            if not sep or not item:
                raise LabellingError(f"expected 'id: value', got {body!r}", line=number)
            if item in items:
                raise RepeatedIdError(f"given again (first on line {line_of[item]})", line=number, item=item)
            value = _parse_value(written.strip(), number, item)
            if not is_empty(value) and kind is not None and kind_of(value) != kind:
                raise MixedKindsError(f"a {_describe(value)} among {_DESCRIBED[kind]}: a labelling holds values of "
                                      "one kind", line=number, item=item)
            kind = kind or (kind_of(value) if not is_empty(value) else None)
            items[item], line_of[item] = value, number
        try:
            return cls.of(items, gold=gold, hierarchy=hierarchy, classes=classes, distribution=distribution,
                          tolerance=tolerance)
        except LabellingError as error:
            if error.item in line_of and error.line is None:
                raise type(error)(error.message, line=line_of[error.item], item=error.item) from None
            raise

    @classmethod
    @validate(organization=Instance((Organization,), "an Organization"), gold=Flag())
    def from_organization(cls, organization: Organization, *, gold: bool = False) -> Labelling:
        """An organization's documents labelled with their priority level (``"1"`` the highest ... ``"rest"``),
        declared in that order (an ordinal scale; the clusters inside a level are not classes); a document in two
        levels or an unlimited tail has no such reading (:class:`LabellingError`).

        >>> Labelling.from_organization(Organization.from_filtering(["d1"], ["d2"])).format()
        'd1: 1\\nd2: rest'
        """
        if not organization.finite:
            raise LabellingError("an organization with an unlimited tail labels no fixed set of items: give a "
                                 "finite rest (filtering, graded judgements)")
        items: dict[str, str] = {}
        names = [str(number) for number in range(1, len(organization.levels) + 1)]
        for name, level in zip(names, organization.levels, strict=True):
            for document in sorted(frozenset().union(*level)):
                if document in items:
                    raise LabellingError(f"document {document!r} is in levels {items[document]} and {name}: an item "
                                         "has one class")
                items[document] = name
        for document in sorted(organization.rest or ()):
            items[document] = "rest"
        used = set(items.values())
        return cls(items, "mono", classes=tuple(name for name in [*names, "rest"] if name in used), gold=gold)

    # ------------------------------------------------------------------------------------------ reading
    def __getitem__(self, item: str) -> Any:
        return self.items[item]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[str]:
        return iter(self.items)

    @validate(items=MappingOf(Text(), optional=True, what="a mapping item id → value"))
    def labels(self, items: Mapping[str, Any] | None = None) -> tuple[str, ...]:
        """The classes the values name, in order of first appearance."""
        seen: dict[str, None] = {}
        for value in (self.items if items is None else items).values():
            seen.update(dict.fromkeys(_labels_of(value)))
        return tuple(seen)

    @validate(item=Text(empty=True))
    def answered(self, item: str) -> bool:
        """Whether ``item`` is in the labelling with a non-empty value."""
        return item in self.items and not is_empty(self.items[item])

    def format(self) -> str:
        """The notation (:meth:`parse` reads it back)."""
        return "\n".join(f"{item}: {_format_value(value)}".rstrip() for item, value in self.items.items())

    @validate(items=ITEMS)
    def with_items(self, items: Mapping[str, Any]) -> Labelling:
        """The same task (kind, hierarchy, classes, side) over other items (an edit)."""
        return Labelling(dict(items), self.kind, self.hierarchy, self.classes, self.distribution, self.gold,
                         self.tolerance)

    def __repr__(self) -> str:
        extra = ", hierarchical" if self.hierarchy is not None else ""
        return f"<Labelling {'gold' if self.gold else 'output'}, {self.kind}{extra}: {len(self)} items>"


ClassTree.__init__ = validate(  # type: ignore[method-assign]
    parent=MappingOf(Text(), Text(optional=True), what="a mapping class → its parent class (None for a root)"),
    classes=ListOf(Text()))(ClassTree.__init__)
Labelling.__init__ = validate(  # type: ignore[method-assign]
    items=ITEMS, kind=KIND, hierarchy=Instance((ClassTree,), "a ClassTree", optional=True), classes=CLASSES,
    distribution=Flag(), gold=Flag(), tolerance=TOLERANCE)(Labelling.__init__)


def _labels_of(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,) if value else ()
    if isinstance(value, Mapping):
        return tuple(value)
    return tuple(value)


def _listing(names: Iterable[str], limit: int = 12) -> str:
    names = list(names)
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


_WORD = re.compile(r"[^\s,:\[\]{}#]+(?:\s+[^\s,:\[\]{}#]+)*")


def _parse_value(text: str, line: int, item: str) -> Any:
    """One value of the notation: ``A``, ``[A, B]``, ``{A: 0.6, B: 0.4}`` (or empty)."""
    if text.startswith("[") or text.startswith("{"):
        close = "]" if text.startswith("[") else "}"
        if not text.endswith(close):
            raise LabellingError(f"{text!r} opens {text[0]!r} but does not end with {close!r}", line=line,
                                 item=item)
        parts = [part.strip() for part in text[1:-1].split(",")] if text[1:-1].strip() else []
        if close == "]":
            for part in parts:
                if not _WORD.fullmatch(part):
                    raise LabellingError(f"{part!r} is not a class name (no commas, colons or brackets in one)",
                                         line=line, item=item)
            return parts
        weights: dict[str, Any] = {}
        for part in parts:
            label, sep, number = part.partition(":")
            label = label.strip()
            if not sep or not _WORD.fullmatch(label):
                raise LabellingError(f"expected 'class: weight' in {text!r}, got {part!r}", line=line, item=item)
            try:
                weight = float(number)
            except ValueError:
                raise ProbabilityError(f"the weight of {label!r} is {number.strip()!r}, not a number", line=line,
                                       item=item) from None
            if label in weights:
                raise LabellingError(f"class {label!r} is given two weights", line=line, item=item)
            weights[label] = weight
        return weights
    if text and not _WORD.fullmatch(text):
        raise LabellingError(f"{text!r} is not a class name (write a set as [A, B], weights as {{A: 0.6, B: 0.4}})",
                             line=line, item=item)
    return text


def _format_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{label}: {weight!r}" for label, weight in value.items()) + "}"
    return "[" + ", ".join(value) + "]"
