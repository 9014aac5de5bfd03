"""Measures by name: ``"P@10"``, ``"nDCG(gain=exp)@10"``, ``"RBP(p=0.8)"``, ``"R≺(n=10, wn=0.8)"``.

Every metric module registers its measures here with :func:`register`; :func:`parse` turns a name into a
callable :class:`Measure` whose ``str()`` parses back to an equal measure; :func:`workbench.evaluate` scores one
topic through the engine each declaration names (:mod:`workbench.data.engines`).

    >>> m = parse("RBP(p=0.9)")
    >>> str(m), m.params["p"]
    ('RBP(p=0.9)', 0.9)

Grammar: ``NAME [ "(" key=value, ... ")" ] [ "@" cutoff ]`` (the two suffixes in either order), where NAME
is a registered name or alias and may itself hold parentheses (``F(R,S)``). Values are ints, floats or bare
words. The names and parameter names are ir_measures' (``AP(rel=2)@100``, ``P(rel=2)@5``, ``RBP(p=0.8)``);
trec_eval's spellings are aliases, and a trec_eval ``NAME_CUTOFF`` (``P_10``, ``ndcg_cut_10``, ``recall_100``)
is the measure NAME with that cutoff. A parameter may also be written under an older name
(:data:`PARAMETER_ALIASES`: ``rel_level=2`` is ``rel=2``), the cutoff as ``cutoff=k`` (ir_measures' spelling of
``@k``), and a parameter as another tool writes it, with its values (:attr:`Param.spelled`).

    >>> str(parse("ndcg_cut_10")), str(parse("P_5")), str(parse("AP(rel_level=2)")), str(parse("P(cutoff=10)"))
    ('nDCG@10', 'P@5', 'AP(rel=2)', 'P@10')
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from workbench.errors import ParameterError, quoted
from workbench.lazy import deprecated_names, resolve
from workbench.metrics.summary import AGGREGATES
from workbench.model import Organization
from workbench.model.labelling import Labelling
from workbench.scalars import parse_scalar, plain_number
from workbench.validation import (
    AnyOf,
    Anything,
    Choices,
    Flag,
    Instance,
    Interval,
    Levels,
    LevelsValue,
    ListOf,
    MappingValue,
    Pairs,
    format_value,
    validate,
)

__all__ = ["UnknownMeasureError", "MeasureParameterError", "MeasureRegistrationError", "MeasureResultError",
           "DIRECTIONS", "PARAMETER_ALIASES", "Interval", "Choices", "LevelsValue", "Levels", "MappingValue",
           "Pairs", "ORGANIZATION", "SIDE", "Param", "Explainer", "MISSING_VALUES", "READS", "ENGINE_NAMES",
           "TREC_EVAL_KINDS", "TREC_EVAL_GROUPS", "TrecEvalName", "Words", "MeasureSpec",
           "register", "unregister", "registered", "specs", "spec_of", "explanation_of", "declared_terms",
           "known_names", "Measure", "MEASURE", "MEASURES", "parse", "bind", "with_defaults",
           "direction", "SPELLING_TOOLS", "TOOL", "measures", "missing_value", "worst", "aggregate",
           "as_spelled", "NEAREST"]


class UnknownMeasureError(ParameterError):
    """A measure name or parameter the registry does not know; the message lists what it knows."""


class MeasureParameterError(UnknownMeasureError, ParameterError):
    """A parameter value outside the domain its measure declares, e.g. ``nDCG@-1`` or ``WAcc(lam=-5)``."""


class MeasureRegistrationError(ParameterError):
    """A measure registered with a name taken, an unknown parameter, direction or aggregate."""


class MeasureResultError(ParameterError):
    """A measure's compute function (a custom one, registered with :func:`register`) returned no number."""


DIRECTIONS = ("higher", "lower")

ORGANIZATION = Instance((Organization,), "an Organization (Organization.parse, from_ranking, ...)")
"""The domain of a gold or an output that is an organization (R&S, clustering, filtering)."""
SIDE = Instance((Organization, Labelling), "an Organization (Organization.parse, from_ranking, ...) or a Labelling "
                                           "(classification)")
"""The domain of a gold or an output a measure scores."""
_INTEGER = Instance((int,), "an integer")

PARAMETER_ALIASES = {"rel_level": "rel"}
"""Older parameter names → the name measures declare (ir_measures' ``rel``); either spelling is read."""


@dataclass(frozen=True)
class Param:
    """One parameter of a measure: its ``default`` (None: "not given", allowed only where the domain is optional or
    the parameter must be written), the values it may take (``domain``, checked when a name is parsed) and what it
    means (``description``, printed in the catalogue).

    >>> Param(10, Interval(1, integer=True), "the cutoff").domain.reason(0)
    'must be an integer ≥ 1'
    """

    default: Any = None
    domain: Interval | Choices | Pairs | Levels | None = None
    description: str = ""
    spelled: Mapping[str, Mapping[Any, Any]] | None = None
    """How another tool writes this parameter: its name → {its value: this parameter's value} (ir_measures'
    ``nDCG(dcg=exp-log2)`` is ``nDCG(gain=exp)``), read by :func:`parse`."""


@dataclass(frozen=True)
class Explainer:
    """How a measure is explained: the family's explainer ``function(gold, output, measure)`` named as
    ``"module:function"`` (imported when first asked, so that declaring a measure loads no pandas), ``how`` in words
    (``"per document"``, ``"through its parts: P, R"``; None: as the explainer's module says it for the measure, in
    its ``HOW`` table), and for a measure explained per rank, its ``terms`` function
    (:class:`workbench.metrics.ranking.terms.Terms` of a gain table)."""

    function: str
    how: str | None = None
    terms: Callable[..., Any] | None = None

    def load(self) -> Callable[..., Any]:
        """The explainer function itself."""
        return resolve(self.function)

    def describe(self, measure: str) -> str:
        """How ``measure`` is explained, in words."""
        if self.how is not None:
            return self.how
        return resolve(self.function.partition(":")[0] + ":HOW")[measure]


MISSING_VALUES = ("worst", "empty")
"""What a topic a system did not answer scores, as a measure declares it (:func:`missing_value`): ``"worst"``, the
worst value of its range (0 where higher is better, 1 for Lam%; refused for a measure unbounded where it is bad,
such as VI), or ``"empty"``, the measure on an output that retrieves nothing (trec_eval's ``-c`` placeholder
ranking for the ranking measures: every measure of retrieval 0, counts of the judgements such as NumRel keep
their value)."""

READS = ("organizations", "preferences", "judgement groups")
"""What a measure's kernel reads: a gold and an output (:class:`~workbench.model.Organization`, or the arrays a
campaign holds), or trec_eval's preference judgements (``-R prefs``) or judgement groups (``-R qrels_jg``), which
only the ``trec_eval`` drop-in reads."""
ENGINE_NAMES = ("gain table", "subtopic table", "R&S", "per topic", "preferences", "judgement groups")
"""How a measure is computed in bulk, as its declaration names it (:attr:`MeasureSpec.engine`; the engines themselves
are :data:`workbench.data.engines.ENGINES`): a whole run at once on the one gain table or subtopic table, every
(system, topic) of a campaign at once by the R&S kernel, topic by topic through ``compute`` (``"per topic"``, the
default: a measure registered in a notebook), or, for trec_eval's measures of ``-R prefs`` and ``-R qrels_jg``,
by the ``trec_eval`` drop-in."""


TREC_EVAL_KINDS = ("plain", "long", "cut_long", "cut_double", "params", "pairs")
"""How trec_eval reads a measure's parameters after ``-m name.`` (:attr:`TrecEvalName.kind`): ``plain`` and ``long``
(a count, printed as an integer) take none, ``cut_long`` / ``cut_double`` a list of cutoffs, ``params`` a list of
numbers, ``pairs`` ``name=value`` pairs (trec_eval's ``meas_init.c``)."""
TREC_EVAL_GROUPS = ("official", "all_trec", "set", "all_prefs", "prefs", "qrels_jg")
"""trec_eval's nicknames for groups of measures (``-m official``, its default; ``measures.c``), in its order."""


@dataclass(frozen=True)
class TrecEvalName:
    """A measure as trec_eval 10.0 names, reads and prints it (a declaration's :attr:`MeasureSpec.trec_eval`): its
    ``name``; how its parameters read (``kind``, :data:`TREC_EVAL_KINDS`) and their ``default`` (the cutoffs, or
    numbers, trec_eval uses without ``-m name.PARAMS``); the nicknames that select it (``groups``,
    :data:`TREC_EVAL_GROUPS`); how topics combine in its ``all`` row when trec_eval does not take the declared
    aggregate (``summary``: ``count`` prints the number of topics, ``none`` no row); whether it prints a value per
    topic (``per_topic``); which declared parameters a ``params`` list sets (``takes``, in order; one parameter
    whose default is a list takes them all), how many numbers it needs (``count``) and whether the first is cast
    to a C long (``cast="long"``); and trec_eval's own defaults where they differ from the declaration's
    (``defaults``: ``rbp``'s p = 0.9).

    >>> TrecEvalName("P", "cut_long", (5, 10), groups=("official", "all_trec")).kind
    'cut_long'
    """

    name: str
    kind: str = "plain"
    default: tuple = ()
    groups: tuple[str, ...] = ()
    summary: str | None = None
    per_topic: bool = True
    takes: tuple[str, ...] = ()
    count: int | None = None
    cast: str = "double"
    defaults: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Words(Choices):
    """The domain of a parameter that names something of the data, such as a class of a classification task
    (``Pr(label=TRUE)``, ``CEM(order=neg<neu<pos)``): any word, the choices being the data's (one written as a
    number is read as one), or None (not given) when ``optional``.

    >>> Words("class").reason("TRUE") is None, Words("class").reason(""), Words("class", optional=False).reason(None)
    (True, 'must be a class', 'must be given (a class)')
    """

    values: tuple = ()
    what: str = "word"
    optional: bool = True

    def __init__(self, what: str, optional: bool = True) -> None:
        object.__setattr__(self, "values", ())
        object.__setattr__(self, "what", what)
        object.__setattr__(self, "optional", optional)

    def __str__(self) -> str:
        return f"a {self.what}"

    def reason(self, value: Any) -> str | None:
        if value is None:
            return None if self.optional else f"must be given ({self})"
        if isinstance(value, bool) or not isinstance(value, str | int | float) or str(value).strip() == "":
            return f"must be {self}"
        return None


@dataclass(frozen=True)
class MeasureSpec:
    """One measure, declared once: everything the registry, the parser, ``explain``, ``wb.measures()``, the
    ``trec_eval`` drop-in and the catalogue know about it.

    ``compute(gold, output, **params)`` returns a float, or a mapping from which ``field`` is taken (so that
    measures computed together, like R≺ S≺ R∼ S∼, are computed once per :func:`workbench.evaluate` call); a measure
    scored a whole table at once (the ranking measures) has a ``compute`` object with a ``score(table, **params)``
    method. ``parameters``: name → :class:`Param` (the ``cutoff`` one written ``@k``). ``direction``: whether a
    ``"higher"`` or ``"lower"`` value is better; ``range``: its values. ``aggregate``: how topics combine
    (:func:`workbench.metrics.summary.summarize`: ``"mean"``, ``"sum"`` for counts, ``"gmean"`` for trec_eval's
    ``gm_*``). ``missing``: what a topic the system did not answer scores (:data:`MISSING_VALUES`).
    ``spellings``: the measure's names in other tools (``{"trec_eval": ("map", "map_cut"), "ir_measures": ("AP",),
    "ranx": ("map",)}``; a name may say the parameters it implies, ``"ndcg_burges (gain=exp)"``). ``explained``:
    how :func:`workbench.explain` explains it (:class:`Explainer`). ``reads``: what its kernel reads
    (:data:`READS`); ``returns``: ``"number"``, or ``"text"`` for trec_eval's
    ``relstring``, which only the drop-in prints. ``fixed``: another tool's parameters that have one value for this
    measure (ir_measures' ``SDCG(dcg=log2)``), read and dropped by :func:`parse`, any other value refused.
    ``engine``: how it is computed in bulk (:data:`ENGINE_NAMES`). ``formula``: the measure's formula, for a
    measure without an explanation (an explained one's formula is its explanation's, which the catalogue prints).
    ``trec_eval``: how trec_eval names, reads and
    prints it (:class:`TrecEvalName`, one per trec_eval name; their names are ``spellings["trec_eval"]``), from which
    the ``trec_eval`` drop-in's tables are generated.
    """

    name: str
    compute: Callable[..., Any]
    task: str
    source: str
    parameters: Mapping[str, Param] = field(default_factory=dict)
    range: tuple[float, float] = (0.0, 1.0)
    field: str | None = None
    cutoff: str | None = None
    aliases: tuple[str, ...] = ()
    description: str = ""
    direction: str = "higher"
    aggregate: str = "mean"
    missing: str = "worst"
    spellings: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    explained: Explainer | None = None
    reads: str = "organizations"
    returns: str = "number"
    fixed: Mapping[str, str] = dataclasses.field(default_factory=dict)
    engine: str = "per topic"
    formula: str = ""
    trec_eval: tuple[TrecEvalName, ...] = ()

    @property
    def params(self) -> Mapping[str, Any]:
        """Each parameter's default, in declaration order."""
        return MappingProxyType({key: param.default for key, param in self.parameters.items()})

    @property
    def domains(self) -> Mapping[str, Interval | Choices | Pairs | Levels]:
        """Each parameter's domain (those that declare one)."""
        return MappingProxyType({key: param.domain for key, param in self.parameters.items()
                                 if param.domain is not None})


_REGISTRY: dict[str, MeasureSpec] = {}
_BY_NAME: dict[str, MeasureSpec] = {}
_loader: list[Callable[[], None]] = []  # imports the modules that declare measures (set by workbench.metrics)


def register(name: str, compute: Callable[..., Any], *, task: str, source: str,
             params: Mapping[str, Any] | None = None, choices: Mapping[str, tuple] | None = None,
             range: tuple[float, float] = (0.0, 1.0), field: str | None = None, cutoff: str | None = None,
             aliases: Iterable[str] = (), description: str = "", direction: str = "higher",
             domains: Mapping[str, Interval | Choices | Pairs] | None = None, aggregate: str = "mean",
             missing: str = "worst", spellings: Mapping[str, str | tuple[str, ...]] | None = None,
             explained: Explainer | None = None,
             reads: str = "organizations", returns: str = "number",
             fixed: Mapping[str, str] | None = None, engine: str = "per topic", formula: str = "",
             trec_eval: TrecEvalName | Iterable[TrecEvalName] = ()) -> MeasureSpec:
    """Declare a measure (the metric modules at import time, or a user's own measure in a notebook).

    ``params`` maps each parameter to a :class:`Param`, or to its bare default (then ``choices`` and ``domains``
    give its domain); ``spellings`` maps a tool to the measure's name there, or to several (a tuple): ir_measures'
    names are read as aliases too (its vocabulary is the workbench's), except one followed by a note in parentheses,
    which says why it is not (ir_measures' ranking ``Accuracy`` is the workbench's ``PairwiseAccuracy``, its
    ``Accuracy`` the filtering measure); ``trec_eval`` gives its trec_eval name or names with how trec_eval reads
    and prints them (:class:`TrecEvalName`), a trec_eval spelling given without them being read as a ``plain``
    measure in no group; the other arguments are the fields of :class:`MeasureSpec`.

    >>> spec = register("half", lambda gold, output, k=1: 0.5, task="ranking", source="a notebook",
    ...                 params={"k": Param(1, Interval(1, integer=True), "a cutoff")}, cutoff="k")
    >>> str(parse("half@3")), unregister("half") is spec
    ('half@3', True)
    """
    declared: dict[str, Interval | Choices | Pairs] = {key: Choices(tuple(values))
                                                      for key, values in (choices or {}).items()}
    declared.update(domains or {})
    parameters = {key: value if isinstance(value, Param) else Param(value, declared.get(key))
                  for key, value in (params or {}).items()}
    spelled: dict[str, tuple[str, ...]] = {tool: (names,) if isinstance(names, str) else tuple(names)
                 for tool, names in (spellings or {}).items()}
    forms = _trec_eval_forms(name, (trec_eval,) if isinstance(trec_eval, TrecEvalName) else tuple(trec_eval),
                             spelled.pop("trec_eval", ()))
    if forms:  # trec_eval first, as the declarations wrote it
        spelled = {"trec_eval": tuple(form.name for form in forms), **spelled}
    aliases = tuple(dict.fromkeys([*aliases, *(s for s in spelled.get("ir_measures", ()) if s != name
                                               and " (" not in s)]))
    spec = MeasureSpec(name, compute, task, source, MappingProxyType(parameters), range, field, cutoff, aliases,
                       description, direction, aggregate, missing, MappingProxyType(spelled), explained, reads,
                       returns, MappingProxyType(dict(fixed or {})), engine, formula, forms)
    for what, value, allowed in (("aggregate", aggregate, AGGREGATES), ("direction", direction, DIRECTIONS),
                                 ("missing", missing, MISSING_VALUES), ("reads", reads, READS),
                                 ("returns", returns, ("number", "text")), ("engine", engine, ENGINE_NAMES)):
        why = Choices(allowed).reason(value)
        if why is not None:
            raise MeasureRegistrationError(f"measure {name}: {what} {why}, got {quoted(value)}")
    if cutoff is not None and cutoff not in parameters:
        raise MeasureRegistrationError(f"measure {name}: cutoff parameter {cutoff!r} is not among its parameters")
    unknown = sorted(set(declared) - set(parameters))
    if unknown:
        raise MeasureRegistrationError(f"measure {name}: domains for unknown parameters {unknown}")
    for key in (name, *spec.aliases):
        if key in _BY_NAME and _BY_NAME[key].name != name:
            raise MeasureRegistrationError(f"measure name {key!r} registered twice")
    for key in (name, *spec.aliases):
        _BY_NAME[key] = spec
    _REGISTRY[name] = spec
    return spec


def _trec_eval_forms(name: str, forms: tuple[TrecEvalName, ...], spelled: tuple[str, ...]) -> tuple[TrecEvalName, ...]:
    """A declaration's trec_eval names, checked: given once (as :class:`TrecEvalName` or as bare spellings), of a
    known kind and in known groups."""
    if forms and spelled:
        raise MeasureRegistrationError(f"measure {name}: give its trec_eval names once, as trec_eval=(TrecEvalName"
                                       "(...), ...), not in spellings too")
    forms = forms or tuple(TrecEvalName(spelling) for spelling in spelled)
    for form in forms:
        for what, values, allowed in (("kind", (form.kind,), TREC_EVAL_KINDS),
                                      ("group", form.groups, TREC_EVAL_GROUPS)):
            for value in values:
                why = Choices(allowed).reason(value)
                if why is not None:
                    raise MeasureRegistrationError(f"measure {name}: trec_eval {form.name}'s {what} {why}, got "
                                                   f"{quoted(value)}")
    return forms


def unregister(name: str) -> MeasureSpec:
    """Remove a registered measure, with its aliases and explanation, and return it (custom measures; see
    :func:`registered`). :class:`UnknownMeasureError` for a name no measure has.

    >>> spec = register("half", lambda gold, output: 0.5, task="ranking", source="a notebook")
    >>> unregister("half") is spec, "half" in known_names()
    (True, False)
    """
    _load()
    spec = _REGISTRY.pop(name, None)
    if spec is None:
        raise UnknownMeasureError(f"no measure named {name!r} is registered{_did_you_mean(name)}")
    for key in (spec.name, *spec.aliases):
        _BY_NAME.pop(key, None)
    return spec


@contextlib.contextmanager
def registered(name: str, compute: Callable[..., Any], **spec: Any) -> Iterator[MeasureSpec]:
    """:func:`register` for the length of a ``with`` block, then :func:`unregister` (a custom measure tried in a
    notebook cell, a test).

    >>> with registered("half", lambda gold, output: 0.5, task="ranking", source="a notebook"):
    ...     "half" in known_names()
    True
    >>> "half" in known_names()
    False
    """
    _load()
    if name in _BY_NAME:
        raise MeasureRegistrationError(f"measure name {name!r} is taken (by {_BY_NAME[name].name}): registered() "
                                       "adds a new measure and removes it after the block")
    added = register(name, compute, **spec)
    try:
        yield added
    finally:
        unregister(added.name)


def specs() -> list[MeasureSpec]:
    """Every registered measure's specification, in registration order (what :func:`measures` tabulates)."""
    _load()
    return list(_REGISTRY.values())


def spec_of(name: str, tool: str | None = None) -> MeasureSpec:
    """The declaration a measure's name or alias denotes, without binding parameters (``IPrec`` needs no recall
    here), or with ``tool``, the one whose spelling in that tool it is (:attr:`MeasureSpec.spellings`: trec_eval's
    ``rbp`` is RBP with trec_eval's own default p); :class:`UnknownMeasureError` for a name no measure has.

    >>> spec_of("map").name, spec_of("iprec_at_recall").cutoff, spec_of("rbp", "trec_eval").name
    ('AP', 'recall', 'RBP')
    """
    _load()
    spec = _BY_NAME.get(name) if tool is None else next(
        (spec for spec in _REGISTRY.values() if name in spec.spellings.get(tool, ())), None)
    if spec is None:
        raise UnknownMeasureError(f"unknown measure {name!r}" + (f" in {tool}'s spellings" if tool else
                                                                  _did_you_mean(name)))
    return spec


def explanation_of(measure: str | Measure) -> tuple[Callable[..., Any], str]:
    """``(explainer, how)`` declared for a measure (:class:`Explainer`); :class:`UnknownMeasureError` for an unknown
    name, ``LookupError`` for a measure declared without an explanation (a user's own). A bare name needs no
    parameters (``IPrec`` is explained whatever its recall)."""
    _load()
    spec = _BY_NAME.get(measure) if isinstance(measure, str) else None
    spec = spec or parse(measure).spec
    if spec.explained is None:
        raise LookupError(f"measure {spec.name!r} has no explanation (declare it with explained=Explainer(...))")
    return spec.explained.load(), spec.explained.describe(spec.name)


def declared_terms(spec: MeasureSpec) -> Callable[..., Any]:
    """The per-rank terms a measure's declaration explains it by (:attr:`Explainer.terms`); ``LookupError`` for a
    measure explained otherwise."""
    if spec.explained is None or spec.explained.terms is None:
        raise LookupError(f"measure {spec.name!r} is not explained by per-rank terms")
    return spec.explained.terms


def set_loader(loader: Callable[[], None]) -> None:
    """The function that imports every module declaring measures, called once before the first look-up by name
    (the package :mod:`workbench.metrics` sets it, so that this module imports none of the measure modules, which
    import it)."""
    _loader[:] = [loader]


def _load() -> None:
    while _loader:
        _loader.pop()()


def _parameters(spec: MeasureSpec) -> str:
    """The parameters with their defaults, e.g. ``n, wn, missing=tail`` (a bare key has no default)."""
    return ", ".join(k if v is None else f"{k}={format_value(v)}" for k, v in spec.params.items()
                     if k != spec.cutoff)


def _spelling(spec: MeasureSpec, with_parameters: bool = True) -> str:
    """How a user writes the measure, e.g. ``P@k`` or ``RBP(p=0.8)``."""
    text = spec.name
    if with_parameters and _parameters(spec):
        text += f"({_parameters(spec)})"
    if spec.cutoff:
        text += f"@{spec.cutoff}"
    return text


def known_names() -> list[str]:
    """Every registered spelling, for error messages and listings."""
    _load()
    return [_spelling(spec) for spec in _REGISTRY.values()]


@dataclass(frozen=True)
class Measure:
    """A registered measure with its parameters bound; call it as ``measure(gold, output) → float``."""

    spec: MeasureSpec
    bound: tuple[tuple[str, Any], ...]

    @property
    def params(self) -> dict[str, Any]:
        return dict(self.bound)

    @property
    def name(self) -> str:
        return self.spec.name

    def __str__(self) -> str:
        params = self.params
        shown = [(k, v) for k, v in params.items() if k != self.spec.cutoff and v != self.spec.params[k]]
        text = self.spec.name
        if shown:
            text += "(" + ", ".join(f"{k}={format_value(v)}" for k, v in shown) + ")"
        if self.spec.cutoff and params[self.spec.cutoff] is not None:
            text += f"@{format_value(params[self.spec.cutoff])}"
        return text

    @validate(gold=SIDE, output=SIDE)
    def compute(self, gold: Organization | Labelling, output: Organization | Labelling) -> Any:
        """The raw result of the spec's compute function (a float or a mapping)."""
        return self.spec.compute(gold, output, **self.params)

    @validate(result=Anything("the compute function's result: one that holds no number is refused here, naming "
                              "the measure (MeasureResultError)"))
    def pick(self, result: Any) -> Any:  # a float, or text for a measure declared returns="text"
        """The measure's value in a result of its compute function, as a float (as text for a measure declared
        ``returns="text"``); a value that is not a number (a custom measure returning text, None, a list) raises
        :class:`MeasureResultError`."""
        value = result[self.spec.field] if self.spec.field else result
        if self.spec.returns == "text" and isinstance(value, str):
            return value
        if not isinstance(value, str | bytes | complex):
            try:
                return float(value)
            except (TypeError, ValueError):
                pass
        raise MeasureResultError(f"measure {str(self)!r} returned {value!r} ({type(value).__name__}), not a number: "
                                 "its compute function must return a float (or a mapping holding one under its "
                                 "field)")

    def __call__(self, gold: Organization | Labelling, output: Organization | Labelling) -> float:
        return self.pick(self.compute(gold, output))


MEASURE = Instance((str, Measure), "a measure name or a Measure")
"""The domain of a measure given by name (``"nDCG@10"``) or as a parsed :class:`Measure`."""
MEASURES = AnyOf(MEASURE, ListOf(MEASURE), what="a measure name, a Measure or a list of them")
"""The domain of the measures of :func:`workbench.evaluate`: one, or a list."""


def _parse_value(text: str, where: str = "") -> Any:
    """A written value: a scalar (:func:`parse_scalar`) or a ``{key:value,...}`` mapping, whose keys must
    differ (``where`` names the parameter in the refusal)."""
    text = text.strip().strip("'\"")
    if text.startswith("[") and text.endswith("]"):
        return LevelsValue(plain_number(_parse_value(item)) for item in text[1:-1].split(",") if item.strip())
    if text.startswith("{") and text.endswith("}"):
        items = [(_parse_value(k), _parse_value(v)) for k, _, v in
                 (item.partition(":") for item in text[1:-1].split(",") if item.strip())]
        keys = [k for k, _ in items]
        twice = sorted({format_value(k) for k in keys if keys.count(k) > 1})
        if twice:
            raise UnknownMeasureError(f"{where}gives key{'s' if len(twice) > 1 else ''} {', '.join(twice)} twice")
        return MappingValue(items)
    return parse_scalar(text)


def _coerce(spec: MeasureSpec, key: str, value: Any, name: str) -> Any:
    value = plain_number(value)
    default = spec.params[key]
    if isinstance(default, bool) and isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    if isinstance(default, bool) and not isinstance(value, bool):  # 1 == True, yet not a truth value here
        raise MeasureParameterError(f"{name!r}: parameter {key} {Flag().reason(value)}, got {quoted(value)}",
                                    parameter=key)
    domain = spec.domains.get(key)
    if value == "None" and domain is not None and domain.reason(None) is None:  # an optional parameter left unset
        return None
    integer = isinstance(domain, Interval) and domain.integer
    if (integer or isinstance(default, int) and not isinstance(default, bool)) and isinstance(value, float) and \
            value.is_integer():  # RR@2.0 is RR@2: the kernels slice with an integer cutoff
        value = int(value)
    if isinstance(default, int) and not isinstance(default, bool):
        real = isinstance(domain, Interval) and not domain.integer and isinstance(value, float)
        if not isinstance(value, int) and not real:
            why = (domain.reason(value) if domain is not None else None) or _INTEGER.reason(value)
            raise MeasureParameterError(f"{name!r}: parameter {key} {why}, got {quoted(value)}", parameter=key)
    elif isinstance(default, float) and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    reason = domain.reason(value) if domain is not None else None
    if reason is not None:
        raise MeasureParameterError(f"{name!r}: parameter {key} {reason}, got {quoted(value)}", parameter=key)
    return value


_TREC_EVAL_CUTOFF = re.compile(r"(?P<base>.+?)_(?P<cutoff>\d+(?:\.\d+)?)")


def _trec_eval_spelling(text: str) -> tuple[MeasureSpec | None, str]:
    """trec_eval's ``NAME_CUTOFF`` (``P_10``, ``ndcg_cut_10``, ``recall_100``): NAME's measure at that cutoff,
    as ``(spec, "@CUTOFF")`` for the suffix reader; ``(None, "")`` when the text is not such a spelling."""
    match = _TREC_EVAL_CUTOFF.fullmatch(text)
    spec = _BY_NAME.get(match.group("base")) if match else None
    if match is None or spec is None or spec.cutoff is None:
        return None, ""
    return spec, "@" + match.group("cutoff")


def _parameter_name(spec: MeasureSpec, key: str) -> str:
    """The parameter ``key`` names in ``spec``, reading :data:`PARAMETER_ALIASES` both ways, and ``cutoff`` as the
    cutoff written ``@`` (ir_measures' ``P(cutoff=10)`` is ``P@10``)."""
    if key in spec.params:
        return key
    if key == "cutoff" and spec.cutoff:
        return spec.cutoff
    for old, new in PARAMETER_ALIASES.items():
        if key == old and new in spec.params:
            return new
        if key == new and old in spec.params:
            return old
    return key


def _spelled_parameter(spec: MeasureSpec, key: str, value: str, name: str) -> tuple[str, str]:
    """A parameter written as another tool writes it (:attr:`Param.spelled`), as ``(parameter, value)``; ``key``
    and ``value`` unchanged when no parameter of ``spec`` is spelled so."""
    for parameter, declared in spec.parameters.items():
        if declared.spelled and key in declared.spelled:
            values = declared.spelled[key]
            read = _parse_value(value)
            why = Choices(tuple(values)).reason(read)
            if why is not None:
                raise MeasureParameterError(f"{name!r}: parameter {key} {why}, got {quoted(read)}", parameter=key)
            return parameter, str(values[read])
    return key, value


def _fixed_parameter(spec: MeasureSpec, key: str, value: str, name: str) -> None:
    """Another tool's parameter that has one value for ``spec`` (:attr:`MeasureSpec.fixed`): that value is read
    and dropped, any other refused."""
    read = _parse_value(value)
    why = Choices((spec.fixed[key],)).reason(read)
    if why is not None:
        raise MeasureParameterError(f"{name!r}: parameter {key} {why} ({spec.name} has no other), got {quoted(read)}",
                                    parameter=key)


NEAREST = 5
"""How many known names an unknown measure's error suggests."""


def _nearest(text: str) -> list[str]:
    """The registered names and aliases nearest ``text`` (its name before any parameters or cutoff), nearest
    first, case aside: at most :data:`NEAREST`."""
    import difflib

    head = re.split(r"[(@]", text, maxsplit=1)[0].strip()
    folded: dict[str, str] = {}
    for key in _BY_NAME:
        folded.setdefault(key.lower(), key)
    exact = [key for key in _BY_NAME if key.lower() == head.lower()][:1]
    close = [folded[key] for key in difflib.get_close_matches(head.lower(), list(folded), n=NEAREST, cutoff=0.6)]
    return list(dict.fromkeys(exact + close))[:NEAREST]


def _did_you_mean(text: str) -> str:
    """``" (did you mean 'AP'?)"`` for a near miss of a registered name or alias, else empty."""
    nearest = _nearest(text)
    return f" (did you mean {nearest[0]!r}?)" if nearest else ""


def _unknown(name: str, text: str) -> UnknownMeasureError:
    """The error for a name no measure has: the nearest names, not every one (``measures()`` lists them).

    >>> str(_unknown("nDGC@10", "nDGC@10")).split("; ")[:2]
    ["unknown measure 'nDGC@10' (did you mean 'nDCG'?)", 'known measures near it: nDCG, RnDCG, α_nDCG']
    """
    nearest, count = _nearest(text), len(_REGISTRY)
    if not nearest:
        return UnknownMeasureError(f"unknown measure {name!r}; known measures: none near it; workbench.measures() "
                                   f"lists all {count}")
    return UnknownMeasureError(f"unknown measure {name!r} (did you mean {nearest[0]!r}?); known measures near it: "
                               f"{', '.join(nearest)}; workbench.measures() lists all {count}")


_PARAMETER_SEPARATOR = re.compile(r",(?![^{]*})(?![^\[]*\])")  # a comma outside {...} and [...]
_SUFFIX = re.compile(r"\s*(?:\((?P<params>[^()]*)\)|@(?P<cutoff>[^@()\s]+))")


@validate(name=MEASURE)
def parse(name: str | Measure) -> Measure:
    """The :class:`Measure` a name denotes; raises :class:`UnknownMeasureError` listing the known ones."""
    return name if isinstance(name, Measure) else _parse(name)[0]


def _parse(name: str) -> tuple[Measure, frozenset[str]]:
    """The measure a name denotes and the parameters the name writes out (a cutoff included)."""
    _load()
    text = name.strip()
    spec = None
    for key in sorted(_BY_NAME, key=len, reverse=True):
        if text.startswith(key) and (len(text) == len(key) or text[len(key)] in "(@ \t"):
            spec, rest = _BY_NAME[key], text[len(key):]
            break
    if spec is None:
        spec, rest = _trec_eval_spelling(text)
    if spec is None:
        raise _unknown(name, text)
    given: dict[str, Any] = {}
    seen_params = seen_cutoff = False
    while rest.strip():
        match = _SUFFIX.match(rest)
        if not match:
            raise UnknownMeasureError(
                f"cannot read {rest.strip()!r} after {spec.name!r} in {name!r}; write e.g. {_spelling(spec)}")
        if match.group("params") is not None and not seen_params:
            seen_params = True
            for item in filter(None, (p.strip() for p in _PARAMETER_SEPARATOR.split(match.group("params")))):
                written, sep, value = item.partition("=")
                key = _parameter_name(spec, written.strip())
                if sep and key in spec.fixed and key not in spec.params:
                    _fixed_parameter(spec, key, value, name)
                    continue
                if sep and key not in spec.params:
                    key, value = _spelled_parameter(spec, key, value, name)
                if not sep or key not in spec.params:
                    allowed = ", ".join(spec.params) or "none"
                    raise UnknownMeasureError(
                        f"{name!r}: unknown parameter {key!r} for {spec.name} (its parameters: {allowed})")
                _give(given, key, _parse_value(value, f"{name!r}: parameter {key} "), name)
        elif match.group("cutoff") is not None and spec.cutoff and not seen_cutoff:
            seen_cutoff = True
            _give(given, spec.cutoff, _parse_value(match.group("cutoff")), name)
        else:
            raise UnknownMeasureError(f"cannot read {match.group(0).strip()!r} in {name!r}; "
                                      f"write e.g. {_spelling(spec)}")
        rest = rest[match.end():]
    params = {key: _coerce(spec, key, given[key], name) if key in given else default
              for key, default in spec.params.items()}
    for key in spec.params.keys() - given.keys():  # a parameter without a usable default must be written
        domain = spec.domains.get(key)
        if domain is not None and domain.reason(params[key]) is not None:
            raise MeasureParameterError(f"{name!r}: parameter {key} {domain.reason(params[key])}; its spelling: "
                                        f"{_spelling(spec)}", parameter=key)
    return Measure(spec, tuple(params.items())), frozenset(given)


def _give(given: dict[str, Any], key: str, value: Any, name: str) -> None:
    """Record a written parameter; one written twice (``RBP(p=0.5, p=0.9)``, ``AP(rel=1, rel_level=2)``,
    ``P(k=5)@10``) is refused rather than won by the last."""
    if key in given:
        raise UnknownMeasureError(f"{name!r}: parameter {key} is given twice ({format_value(given[key])} and "
                                  f"{format_value(value)}); write it once")
    given[key] = value


def bind(spec: MeasureSpec, values: Mapping[str, Any]) -> Measure:
    """The measure ``spec`` with ``values`` for the parameters it declares (the others at their defaults), bound as
    given, without the domains' checks: what the ``trec_eval`` drop-in does, which reads parameters as trec_eval
    reads them (C's ``atol``/``atof``, any value trec_eval computes with).

    >>> str(bind(parse("P").spec, {"k": 5, "rel": 2}))
    'P(rel=2)@5'
    """
    params = dict(spec.params)
    params.update((key, value) for key, value in values.items() if key in params)
    return Measure(spec, tuple(params.items()))


@validate(measure=MEASURE)
def with_defaults(measure: str | Measure, **values: Any) -> Measure:
    """The measure with each parameter of ``values`` that it declares set: settings that apply to every measure
    having the parameter, as trec_eval's ``-l`` (``rel``) and ``-J`` (``judged_only``) do. Names are read
    through :data:`PARAMETER_ALIASES`; a parameter whose default is None stands for "not used" (RBP's ``rel``:
    graded RBP) and is left alone; values are checked against the measure's domains.

    A name that writes the parameter out keeps it when it agrees with the setting and is refused when it does
    not (``P(rel=3)`` with ``rel=2``); a :class:`Measure` given as an object writes out the parameters that
    differ from their defaults.

    >>> [str(with_defaults(m, rel=2, judged_only=True)) for m in ("P@5", "nDCG@10", "ERR")]
    ['P(rel=2, judged_only=True)@5', 'nDCG(judged_only=True)@10', 'ERR']
    >>> str(with_defaults("RBP", rel=2)), str(with_defaults("P(rel=2)@5", rel=2))
    ('RBP', 'P(rel=2)@5')
    """
    typed = str(measure)
    if isinstance(measure, Measure):
        written = frozenset(k for k, v in measure.bound if v != measure.spec.params[k])
    else:
        measure, written = _parse(measure)
    params = measure.params
    for key, value in values.items():
        key = _parameter_name(measure.spec, key)
        if key not in params or measure.spec.params[key] is None:
            continue
        value = _coerce(measure.spec, key, value, str(measure))
        if key in written and params[key] != value:
            raise MeasureParameterError(
                f"{typed!r} writes {key}={format_value(params[key])}, the setting for every measure (trec_eval's "
                f"-l, -J) asks {key}={format_value(value)}: drop one of them", parameter=key)
        params[key] = value
    return Measure(measure.spec, tuple(params.items()))


def direction(measure: str | Measure) -> str:
    """``"higher"`` or ``"lower"``: which values of a measure are better, as registered; ``"higher"`` for a
    name the registry does not know (a column of the user's own).

    >>> direction("Lam%"), direction("AP@10"), direction("my score")
    ('lower', 'higher', 'higher')
    """
    try:
        return parse(measure).spec.direction
    except ParameterError:  # not a name the registry knows (or not a name at all)
        return "higher"


SPELLING_TOOLS = ("trec_eval", "ir_measures", "ranx", "pyevall")
"""The tools whose spellings the declarations record (:attr:`MeasureSpec.spellings`), as ``wb.measures()`` shows
them."""


TOOL = Choices(SPELLING_TOOLS)
"""The domain of a tool whose spellings are read (:func:`as_spelled`)."""


@validate(name=Instance((str,), "a measure's name in another tool"), tool=TOOL)
def as_spelled(name: str, tool: str) -> Measure:
    """The measure ``tool`` means by ``name``, with the parameters its spelling implies
    (:attr:`MeasureSpec.spellings`: PyEvALL's ``nDCG`` is ``nDCG(gain=exp)``, ranx's ``ndcg_burges`` too);
    :class:`UnknownMeasureError` for a name the tool's spellings lack.

    >>> [str(as_spelled(n, "pyevall")) for n in ("nDCG", "PrecisionAtK", "FMeasureClustering", "Kappa")]
    ['nDCG(gain=exp)', 'P@10', 'ClusteringF', 'CohenKappa']
    """
    _load()
    for spec in _REGISTRY.values():
        for spelling in spec.spellings.get(tool, ()):
            head, _, implied = spelling.partition(" (")
            if head == name:
                text = spec.name + (f"({implied.rstrip(')')})" if implied and "=" in implied else "")
                return parse(text)
    raise UnknownMeasureError(f"{tool} has no measure spelled {name!r} among the declared spellings")


def measures() -> Any:
    """A DataFrame of every declared measure: name, aliases, task, parameters, range, direction, aggregate, the value
    a missing topic gets, source, description, how ``workbench.explain`` explains it (``explained``) and its
    spelling in trec_eval, ir_measures and ranx (empty where the tool lacks it)."""
    import pandas as pd

    return pd.DataFrame(
        [
            {
                "name": _spelling(spec, with_parameters=False),
                "aliases": ", ".join(spec.aliases),
                "task": spec.task,
                "parameters": _parameters(spec),
                "range": f"[{spec.range[0]:g}, {spec.range[1]:g}]",
                "direction": spec.direction,
                "aggregate": spec.aggregate,
                "missing": spec.missing,
                "source": spec.source,
                "description": spec.description,
                "explained": spec.explained.describe(spec.name) if spec.explained else "",
                **{tool: ", ".join(spec.spellings.get(tool, ())) for tool in SPELLING_TOOLS},
            }
            for spec in specs()
        ]
    )


def missing_value(measure: str | Measure) -> float | None:
    """What a topic a system did not answer scores on ``measure``, as its declaration says (:data:`MISSING_VALUES`):
    its :func:`worst` value, or None for a measure scored on an output that retrieves nothing (the ranking
    measures: trec_eval's ``-c`` placeholder ranking, which the gain table builds).

    >>> missing_value("Lam%"), missing_value("VI"), missing_value("AP")
    (1.0, inf, None)
    """
    spec = parse(measure).spec
    return None if spec.missing == "empty" else worst(measure)


def worst(measure: str | Measure) -> float:
    """The worst value a measure can take, from its registered range and direction (what a topic a system
    never answered scores); ±inf for a measure unbounded on its bad side (VI, the utilities), which has none.

    >>> worst("AP"), worst("Lam%"), worst("VI")
    (0.0, 1.0, inf)
    """
    spec = parse(measure).spec
    return float(spec.range[1] if spec.direction == "lower" else spec.range[0])


def aggregate(measure: str | Measure) -> str:
    """How a measure's per-topic values combine over topics (``"mean"``, ``"sum"``, ``"gmean"``); ``"mean"`` for
    a name the registry does not know.

    >>> aggregate("NumRel"), aggregate("gm_map"), aggregate("AP"), aggregate("my score")
    ('sum', 'gmean', 'mean', 'mean')
    """
    try:
        return parse(measure).spec.aggregate
    except ParameterError:  # not a name the registry knows (or not a name at all)
        return "mean"


__getattr__ = deprecated_names(__name__, {"evaluate": ("workbench.data.one_pair:evaluate", "workbench.evaluate")})
