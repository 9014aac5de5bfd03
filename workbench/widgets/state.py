"""The workbench without widgets: the tables (each as typed, with the organization in force), the weights, the
scores of every output against the gold, the edit history with undo and redo, the output in focus and the
document it explains, imports and exports, and a predict-then-reveal quiz. Plain Python over plain data: the
``Workbench`` widget binds it to controls and draws it, and it can be driven and tested without a browser or
ipywidgets.

Every change is all or nothing. Every public method declares its arguments (:func:`~workbench.validation.validate`):
a bad one is refused before anything is looked at, as the validator's
:class:`~workbench.errors.ParameterError`. An import or a set of tables with a table that does not parse, or tables or
weights the kernel cannot score, raises a named :class:`~workbench.errors.WorkbenchError`, says the same in
:attr:`WorkbenchState.status` and leaves everything else as it was, so the workbench always has scores. An edit
whose text does not parse (typing) is kept as typed while the last valid organization stays in force. Scores
come from ``workbench.reliability_sensitivity`` and, for the output in focus, ``workbench.explain`` (the same
numbers); nothing here computes a score. Views follow the state through :meth:`WorkbenchState.on_change`: every
public change calls them once, refused or not (a call whose arguments are refused changes nothing and calls
none).

    >>> state = WorkbenchState("d1 {d2 d3}", ["d1 d2 d3"], n=10, wn=0.8)
    >>> state.edit(0, "d1 {d2 d3}")                      # output 0, as typed
    >>> state.scores[0].s_relatedness, state.step
    (1.0, 1)
    >>> state.undo()
    True
    >>> state.outputs[0].text, state.step
    ('d1 d2 d3', 0)
"""

from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace

import pandas as pd

from workbench.errors import WorkbenchError, quoted
from workbench.metrics.explain import Explanation, explain_rs
from workbench.metrics.reliability import RSScores, reliability_sensitivity
from workbench.model import Organization, natural_key
from workbench.validation import (
    AnyOf,
    Choices,
    Flag,
    Function,
    Instance,
    Interval,
    Text,
    check,
    parameter_error,
    validate,
)
from workbench.widgets import exchange
from workbench.widgets.errors import (
    DocumentNotInOutputError,
    InvalidEditError,
    QuizError,
    SelectionError,
    UnknownOutputError,
    WeightsError,
    WorkbenchFormatError,
)
from workbench.widgets.gallery import EXAMPLES
from workbench.widgets.moves import PLACE, MoveError, Place, move_document
from workbench.widgets.quiz import MEASURE, ORDER, PREDICTIONS, Quiz, checked_predictions, disagreement, verdicts
from workbench.widgets.tables import (
    GOLD,
    OPTIONAL_OUTPUTS,
    OPTIONAL_TABLE,
    OUTPUTS,
    TABLE,
    WN,
    N,
    OutputName,
    Table,
    Tables,
    table_text,
    weights,
)
from workbench.widgets.why import EXPLAINED, FIELDS, lost_by_document, lost_rows, why_frame

__all__ = ["HISTORY_COLUMNS", "OUTPUT", "TABLE_NAME", "Step", "WhyShown", "WorkbenchState"]

HISTORY_COLUMNS = ["step", "output", "measure", "value", "current"]
OUTPUT = AnyOf(Interval(0, integer=True), Text(), what="an output: its 0-based index or its name")
"""The domain of an output named in a call (whether the workbench has it depends on the tables:
:class:`UnknownOutputError`)."""
TABLE_NAME = AnyOf(Interval(0, integer=True), Text(), what=f"a table: {GOLD!r}, an output's 0-based index or its name")
"""The domain of a table named in a call."""
_TEXT = Text(empty=True)
_IMPORT = AnyOf(Text(empty=True), Instance((bytes, bytearray), "bytes"), what="text or bytes (UTF-8)")


def _change(what: str = "", *, explains: bool = False):
    """A public change of the state. Nested changes tell the views once, when the outermost ends (refused or
    not); a refusal (a :class:`WorkbenchError`) is raised and said in ``status``, after ``what`` (selections
    are said by the why panel instead). ``explains``: the change only picks what is explained, so the status
    line keeps what it says."""
    def decorate(method):
        @functools.wraps(method)
        def run(self, *args, **kwargs):
            outermost = self._depth == 0
            self._depth += 1
            try:
                if outermost and not explains:
                    self.status = ""
                return method(self, *args, **kwargs)
            except WorkbenchError as problem:
                if outermost and not isinstance(problem, SelectionError):
                    self.status = f"{what}: {problem}" if what else str(problem)
                raise
            finally:
                self._depth -= 1
                if outermost:
                    for listener in list(self._listeners):
                        listener()
        return run
    return decorate


@dataclass(frozen=True)
class Step:
    """One step of the edit history: the tables and weights, and the scores of each output."""

    tables: Tables
    scores: tuple[RSScores, ...]


@dataclass(frozen=True)
class WhyShown:
    """What the why panel shows: ``document``'s relations in ``output`` (``why.why_frame``) and its scores."""

    output: str
    document: str
    frame: pd.DataFrame
    scores: RSScores


class WorkbenchState:
    """See the module docstring. With no tables it opens on Table 9 of Amigó et al. (SIGIR 2013); with a gold
    and no outputs, one output starts as a copy of the gold.

    A table is named by ``"gold"``, an output's 0-based index, or an output's name.
    """

    @validate(gold=OPTIONAL_TABLE, outputs=OPTIONAL_OUTPUTS, n=N, wn=WN)
    def __init__(self, gold: Organization | str | None = None, outputs=None, n: int | None = 10,
                 wn: float | None = 0.8) -> None:
        self._listeners: list[Callable[[], None]] = []
        self._depth = 0                    # how deep in nested public changes (views are told at 0)
        self._steps: list[Step] = []
        self._position = 0
        self._joinable: int | None = None  # the step the last commit made, while a change may join it
        self._last_weights: tuple[int, float] = (10, 0.8)
        self._focus = 0
        self._chosen: str | None = None
        self._explanation: Explanation | None = None
        self._explained_for: tuple = ()
        self._lost_by_document: dict[str, dict[str, float]] = {}
        self._why = why_frame(None, "")
        self.why_message = ""              # what the why panel says above the last valid explanation
        self.why_shown: WhyShown | None = None
        self.highlighted = ""              # the document marked in the gold and the output in focus
        self.lost: tuple[str, list[dict]] = ("", [])  # (output, rows): where the output in focus loses mass
        self.status = ""                   # what was refused last ("" when the last change applied)
        self.example: str | None = None    # the gallery's example last loaded
        self.quiz: Quiz | None = None
        if gold is None and outputs is None:
            self.example = next(iter(EXAMPLES))
            tables = _example_tables(self.example)
        else:
            gold = "" if gold is None else gold
            tables = _read_tables(gold, [gold] if outputs is None else outputs, n, wn, "WorkbenchState.__init__")
        self._tables = tables
        self._commit(tables, self._score(tables))

    @validate(callback=Function())
    def on_change(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Call ``callback()`` after every public change (once per change, refused or not); returns a function
        that stops the calls."""
        self._listeners.append(callback)
        return lambda: self._listeners.remove(callback) if callback in self._listeners else None

    # ------------------------------------------------------------------------------------------ tables
    @property
    def tables(self) -> Tables:
        """The tables as they stand (edits in progress included)."""
        return self._tables

    @property
    def gold(self) -> Table:
        return self._tables.gold

    @property
    def outputs(self) -> tuple[Table, ...]:
        return self._tables.outputs

    @property
    def names(self) -> list[str]:
        """The outputs' names, in order."""
        return self._tables.names

    @property
    def n(self) -> int | None:
        """The number of positions that carry :attr:`wn` of the score (None: uniform weights). Setting a number
        keeps W_n (or brings back the last one); setting None asks for uniform weights (both None)."""
        return self._tables.n

    @n.setter
    def n(self, value: int | None) -> None:
        self.set_weights(*((None, None) if value is None else (value, self.last_weights[1] if self.wn is None
                                                                else self.wn)))

    @property
    def wn(self) -> float | None:
        """The share of the score the first :attr:`n` positions carry (None: uniform weights); set as :attr:`n`."""
        return self._tables.wn

    @wn.setter
    def wn(self, value: float | None) -> None:
        self.set_weights(*((None, None) if value is None else (self.last_weights[0] if self.n is None else self.n,
                                                                value)))

    @property
    def last_weights(self) -> tuple[int, float]:
        """(n, W_n) now, or the last ones in force before uniform weights: what a number for one of them keeps."""
        return (self.n, self.wn) if self.n is not None and self.wn is not None else self._last_weights

    @property
    def scores(self) -> list[RSScores]:
        """One :class:`workbench.RSScores` per output, in order (those of the current step)."""
        return list(self._steps[self._position].scores)

    def scores_frame(self) -> pd.DataFrame:
        """The current scores: one row per output and measure (columns ``output, measure, value``)."""
        return pd.DataFrame([(name, measure, float(getattr(score, field)))
                             for name, score in zip(self.names, self.scores, strict=True)
                             for measure, field in FIELDS.items()], columns=["output", "measure", "value"])

    @validate(gold=TABLE, outputs=OUTPUTS, n=N, wn=WN)
    @_change()
    def set_tables(self, gold, outputs, n: int | None = 10, wn: float | None = 0.8) -> None:
        """Replace the gold, the outputs (a list, one table, or a dict name → table; tables as Organizations or
        notation) and (n, W_n) in one step, or raise and change nothing (a text that does not parse is refused,
        naming the table and the line)."""
        self._replace(_read_tables(gold, outputs, n, wn, "WorkbenchState.set_tables"))

    @validate(name=Choices(tuple(EXAMPLES)))
    @_change()
    def load_example(self, name: str) -> None:
        """Show one of the papers' examples (``gallery.EXAMPLES``) with its weighting."""
        self._replace(_example_tables(name))
        self.example = name

    def printed(self) -> tuple[str, dict[str, tuple]] | None:
        """(source, output → the (R≺, S≺, R∼, S∼) the paper prints) while the tables are exactly those of the
        example last loaded, else None."""
        example = EXAMPLES.get(self.example) if self.example is not None else None
        if (example is None or not example.printed or self.gold.text != example.gold
                or {t.name: t.text for t in self.outputs} != example.outputs
                or (self.n, self.wn) != (example.weights or (None, None))):
            return None
        return example.source, example.printed

    @validate(table=TABLE_NAME, text=_TEXT, parsed=Instance((Organization,), "an Organization", optional=True),
              joins=Flag())
    @_change()
    def edit(self, table: int | str, text: str, *, parsed: Organization | None = None, joins: bool = False) -> None:
        """Set one table's text, as typing does. Text that does not parse is kept as an edit in progress (the
        last valid organization stays in force); an organization the kernel cannot score with the weights is
        kept likewise, and :attr:`status` says why. Any other change of the organizations is a new step.
        ``parsed``: ``Organization.parse(text)`` when the caller has it already (an editor), not parsed again.
        ``joins``: the change goes on from the one that made the current step (a token carried on by the
        keyboard's arrows): it replaces that step, when it is the newest and no undo or redo came between, so
        that one move is one step, whatever keys made it."""
        index = self._table_index(table)
        old = self._table(index)
        new = old.edited(text) if parsed is None else Table(old.name, text, parsed)
        if new == old:
            return
        tables = self._with(index, new)
        if new.error or new.organization == old.organization:
            self._tables = tables           # an edit in progress, or one the scores do not see (spacing)
            self._explain()
            return
        try:
            scores = self._score(tables)
        except WeightsError as problem:
            self._tables = self._with(index, replace(new, organization=old.organization, error=str(problem)))
            self.status = str(problem)
            self._explain()
            return
        self._commit(tables, scores, joins=joins)

    @validate(table=TABLE_NAME, document=Text(), source=PLACE, target=PLACE, joins=Flag())
    @_change()
    def move(self, table: int | str, document: str, source: Place, target: Place, *, joins: bool = False) -> None:
        """Move one occurrence of ``document`` (a drag; see ``moves.move_document`` for places), as an edit
        (``joins``: as :meth:`edit`'s, for the second arrow of one keyboard move)."""
        index = self._table_index(table)
        current = self._table(index)
        if current.error:
            raise MoveError(f"{current.name}: fix the text before moving documents ({current.error})")
        self.edit(index, move_document(current.organization, document, source, target).format(), joins=joins)

    @validate(n=N, wn=WN)
    @_change()
    def set_weights(self, n: int | None, wn: float | None) -> None:
        """Score with (n, W_n), or uniform weights with ``(None, None)``; :class:`WeightsError` (and no change)
        when the kernel cannot score the tables with them."""
        n, wn = weights(n, wn, "WorkbenchState.set_weights")
        if (n, wn) == (self.n, self.wn):
            return
        current = self._tables
        reread = Tables(_reread(current.gold), tuple(map(_reread, current.outputs)), n, wn)
        try:
            self._commit(reread, self._score(reread))  # edits the old weights refused may score now
        except WeightsError:
            weighed = replace(current, n=n, wn=wn)
            self._commit(weighed, self._score(weighed))

    @validate(value=TABLE, name=OutputName(optional=True))
    @_change()
    def add_output(self, value: Organization | str = "", name: str | None = None) -> Table:
        """Add an output (named ``output k``, the first k free, unless a name is given) as one step; a text that
        does not parse is refused."""
        if name is None:
            k = len(self.outputs) + 1
            while f"output {k}" in self.names:
                k += 1
            name = f"output {k}"
        elif name in self.names:
            raise parameter_error("WorkbenchState.add_output", "name", name, OutputName(),
                                  f"must differ from the outputs' names ({', '.join(map(quoted, self.names))})")
        table = Table.parsed(name, table_text(value))
        tables = replace(self._tables, outputs=(*self.outputs, table))
        self._commit(tables, self._score(tables))
        return table

    @_change()
    def remove_output(self) -> None:
        """Remove the last output (one output always stays) as one step."""
        if len(self.outputs) > 1:
            tables = replace(self._tables, outputs=self.outputs[:-1])
            self._commit(tables, self._score(tables))

    # ------------------------------------------------------------------------------------- history
    @property
    def step(self) -> int:
        """The current step of the history (0: the start, or the last :meth:`clear_history`)."""
        return self._position

    @property
    def steps(self) -> int:
        """How many steps the history holds (those after :attr:`step` can be redone)."""
        return len(self._steps)

    @property
    def can_undo(self) -> bool:
        return self._position > 0 or self._tables is not self._steps[self._position].tables

    @property
    def can_redo(self) -> bool:
        return self._position < len(self._steps) - 1

    @_change()
    def undo(self) -> bool:
        """Back to the step before (an edit in progress is dropped first); False when there is none."""
        current = self._steps[self._position]
        if self._tables is not current.tables:
            self._restore(current)
        elif self._position > 0:
            self._position -= 1
            self._restore(self._steps[self._position])
        else:
            return False
        return True

    @_change()
    def redo(self) -> bool:
        """Forward to the step an undo left; False when there is none."""
        if not self.can_redo:
            return False
        self._position += 1
        self._restore(self._steps[self._position])
        return True

    @_change()
    def clear_history(self) -> None:
        """Forget the history; the current step becomes step 0 (an edit in progress stays in progress)."""
        self._steps = [self._steps[self._position]]
        self._position = 0
        self._joinable = None

    @property
    def history(self) -> pd.DataFrame:
        """Scores at every step: columns ``step, output, measure, value`` and ``current`` (the step shown)."""
        return pd.DataFrame(self.history_rows(), columns=HISTORY_COLUMNS)

    @validate(last=Interval(0, integer=True, optional=True))
    def history_rows(self, last: int | None = None) -> list[dict]:
        """:attr:`history` as records, of the ``last`` steps up to the newest (all by default)."""
        first = 0 if last is None else max(0, len(self._steps) - last)
        return [{"step": number, "output": name, "measure": measure,
                 "value": float(getattr(score, FIELDS[measure])), "current": number == self._position}
                for number, step in enumerate(self._steps[first:], start=first)
                for name, score in zip(step.tables.names, step.scores, strict=True) for measure in EXPLAINED]

    # ------------------------------------------------------------------------------------ focus, why
    @property
    def focus(self) -> int:
        """The output shown beside the gold, explained by the why panel and the lost-mass chart."""
        return self._focus

    @property
    def chosen(self) -> str | None:
        """The document the why panel explains (None: none selected)."""
        return self._chosen

    @validate(output=OUTPUT)
    @_change(explains=True)
    def focus_output(self, output: int | str) -> None:
        """Put ``output`` (index or name) in focus; a chosen document it holds stays chosen."""
        self._focus = self._output_index(output)
        self._explain()

    @validate(output=OUTPUT, document=Text())
    @_change(explains=True)
    def select(self, output: int | str, document: str) -> pd.DataFrame:
        """Explain ``document`` in ``output`` (a 0-based index or a displayed name such as ``"output 4"``), as a
        click on its token does, and return :attr:`why`. Raises :class:`UnknownOutputError`,
        :class:`DocumentNotInOutputError` or :class:`InvalidEditError` (the why message says the same and the
        last valid explanation stays)."""
        index = self._output_index(output)
        problem = self._edit_problem(index)
        if problem:
            self.why_message = problem
            raise InvalidEditError(problem)
        gold, organization = self.gold.organization, self.outputs[index].organization
        if document not in _documents(gold, organization):
            self.why_message = (f"{quoted(document)} is not in {self.names[index]}"
                                + ("" if organization.finite else " nor in the gold")
                                + f": pick one of {_listing(_documents(gold, organization))}")
            raise DocumentNotInOutputError(self.why_message)
        self._focus, self._chosen = index, document
        self._explain()
        return self.why

    @property
    def why(self) -> pd.DataFrame:
        """The why panel's table (``why.why_frame``): the selected document's relations per measure, the last
        valid one while an edit is invalid."""
        return self._why.copy()

    @property
    def explanation(self) -> Explanation | None:
        """The last valid :class:`workbench.Explanation` of the output in focus."""
        return self._explanation

    # --------------------------------------------------------------------------------- export, import
    def to_text(self) -> str:
        return exchange.to_text(self._tables)

    def to_json(self) -> str:
        return exchange.to_json(self._tables)

    @validate(text=_TEXT)
    @_change("import")
    def load_text(self, text: str) -> None:
        """Inverse of :meth:`to_text`, as one step; raises and changes nothing on any bad line (a section whose
        text does not parse included), which :attr:`status` names."""
        self._replace(exchange.read_text(text))

    @validate(text=_IMPORT)
    @_change("import")
    def load_json(self, text: str | bytes) -> None:
        """Inverse of :meth:`to_json`, as one step; raises and changes nothing on any bad field, which
        :attr:`status` names."""
        self._replace(exchange.read_json(text))

    @validate(text=_IMPORT, source=_TEXT)
    @_change("import")
    def load(self, text: str | bytes, source: str = "") -> None:
        """:meth:`load_json` when ``text`` is a JSON object, else :meth:`load_text` (bytes: UTF-8); a refusal
        names ``source`` (a file's name) first."""
        try:
            if isinstance(text, bytes):
                try:
                    text = text.decode("utf-8")
                except UnicodeDecodeError as problem:
                    raise WorkbenchFormatError(f"not UTF-8 text (byte {problem.start})") from None
            (self.load_json if text.lstrip().startswith("{") else self.load_text)(text)
        except WorkbenchError as problem:
            if source:
                problem.args = (f"{source}: {problem}",)
            raise

    # ------------------------------------------------------------------------------------------ quiz
    @property
    def predictions(self) -> dict[str, list[str]]:
        """Who → the outputs in the order they predicted on the quiz's measure (best first); {} without a
        quiz."""
        return {who: list(order) for who, order in (self.quiz.predictions if self.quiz else {}).items()}

    @predictions.setter
    @_change()
    def predictions(self, predictions: Mapping[str, list[str]]) -> None:
        checked = checked_predictions(check(predictions, PREDICTIONS, "predictions", "WorkbenchState.predictions"),
                                      self.names)
        self._started_quiz().predictions = checked

    @property
    def revealed(self) -> bool:
        """A quiz's scores are shown (True also without a quiz: nothing is hidden)."""
        return self.quiz is None or self.quiz.revealed

    @revealed.setter
    @_change()
    def revealed(self, value: bool) -> None:
        if check(value, Flag(), "revealed", "WorkbenchState.revealed"):
            self.reveal()
        elif self.quiz is None:
            self.start_quiz()
        else:
            self.quiz.revealed = False

    @property
    def scores_hidden(self) -> bool:
        return not self.revealed

    @validate(measure=MEASURE)
    @_change()
    def start_quiz(self, measure: str = "R∼") -> None:
        """Hide the scores; predictions on ``measure`` are taken until :meth:`reveal`."""
        self.quiz = Quiz(measure)

    def _started_quiz(self) -> Quiz:
        """The quiz running, started (on R∼) if none runs."""
        if self.quiz is None:
            self.quiz = Quiz()
        return self.quiz

    @validate(order=ORDER, who=Text())
    @_change()
    def predict(self, order: list[str], who: str = "class") -> None:
        """Record ``who``'s prediction: outputs (names) from the one predicted to score highest."""
        checked = checked_predictions({who: order}, self.names)  # before a quiz starts: all or nothing
        self._started_quiz().predictions.update(checked)

    @_change()
    def reveal(self) -> pd.DataFrame:
        """Show the scores and return :meth:`verdicts`; the why panel explains the output most predictions put
        too high, through the document that loses it most mass on the quiz's measure."""
        if self.quiz is None:
            raise QuizError("no quiz to reveal: start one (start_quiz) or set predictions")
        self.quiz.revealed = True
        table = self.verdicts()
        pair = disagreement(table)
        if pair is not None:
            self.focus_output(pair[0])
            lost = self._explanation.lost() if self._explanation is not None else pd.DataFrame()
            worst = lost[(lost["measure"] == self.quiz.measure) & lost["document"].notna() & (lost["lost"] > 0)]
            if not worst.empty:
                with contextlib.suppress(SelectionError):  # revealed all the same; the why panel says why not
                    self.select(pair[0], str(worst["document"].iloc[0]))
        return table

    def verdicts(self) -> pd.DataFrame:
        """Per predictor and ordered pair: who, higher, lower, both scores and the ``outcome`` (right, wrong,
        tie); only once revealed."""
        if self.quiz is None or not self.quiz.revealed:
            raise QuizError("the verdicts come with the reveal")
        field = FIELDS[self.quiz.measure]
        return verdicts(self.quiz, {name: float(getattr(score, field))
                                    for name, score in zip(self.names, self.scores, strict=True)})

    @_change()
    def end_quiz(self) -> None:
        self.quiz = None

    # ----------------------------------------------------------------------------------- plumbing
    def _table_index(self, table: int | str) -> int:
        """-1 for the gold, else the output's index."""
        return -1 if table == GOLD else self._output_index(table)

    def _table(self, index: int) -> Table:
        return self.gold if index < 0 else self.outputs[index]

    def _with(self, index: int, table: Table) -> Tables:
        return replace(self._tables, gold=table) if index < 0 else self._tables.with_output(index, table)

    def _output_index(self, output: int | str) -> int:
        """The index of ``output`` (inside :data:`OUTPUT`), or :class:`UnknownOutputError` when the workbench
        has no such output."""
        if not isinstance(output, str):
            if output < len(self.outputs):
                return int(output)
            message = f"no output {quoted(output)}: the indices are 0 to {len(self.outputs) - 1}"
        elif output in self.names:
            return self.names.index(output)
        else:
            message = f"no output named {quoted(output)}: the outputs are {', '.join(map(quoted, self.names))}"
        self.why_message = message
        raise UnknownOutputError(message)

    def _score(self, tables: Tables) -> tuple[RSScores, ...]:
        """The scores of ``tables`` (the output in focus through ``explain_rs``, unchanged pairs reused from the
        current step), or :class:`WeightsError` naming the output the kernel refuses."""
        previous = self._steps[self._position] if self._steps else None
        cache = self._explanation, self._explained_for, self._lost_by_document
        try:
            return self._scored(tables, previous)
        except WeightsError:  # the explanation of the tables in force stays
            self._explanation, self._explained_for, self._lost_by_document = cache
            raise

    def _scored(self, tables: Tables, previous: Step | None) -> tuple[RSScores, ...]:
        reusable = {}
        if previous is not None and (previous.tables.gold.organization, previous.tables.n, previous.tables.wn) == (
                tables.gold.organization, tables.n, tables.wn):
            reusable = {id(t.organization): s for t, s in zip(previous.tables.outputs, previous.scores, strict=True)}
        focus = min(self._focus, len(tables.outputs) - 1)
        gold, scores = tables.gold.organization, []
        for index, table in enumerate(tables.outputs):
            try:
                if index == focus:
                    score = self._explained(gold, table.organization, tables.n, tables.wn).scores
                else:
                    score = reusable.get(id(table.organization)) or reliability_sensitivity(
                        gold, table.organization, n=tables.n, wn=tables.wn)
            except ValueError as problem:  # the kernel's ParameterError, e.g. uniform weights over a tail
                raise WeightsError(f"{table.name}: {problem}") from None
            values = (score.r_priority, score.s_priority, score.r_relatedness, score.s_relatedness)
            if not all(map(math.isfinite, values)):
                raise WeightsError(f"{table.name}: no finite scores with n={tables.n}, W_n={tables.wn}")
            scores.append(score)
        return tuple(scores)

    def _commit(self, tables: Tables, scores: tuple[RSScores, ...], *, joins: bool = False) -> None:
        """A new step (``joins``: in place of the current one, when it is the newest and made by a commit)."""
        self._keep_weights()
        self._tables = tables
        joined = joins and self._joinable == self._position == len(self._steps) - 1 > 0
        del self._steps[self._position + (0 if joined else 1):]
        self._steps.append(Step(tables, scores))
        self._position = len(self._steps) - 1
        self._joinable = self._position
        self.status = ""
        self._focus = min(self._focus, len(tables.outputs) - 1)
        self._keep_predictions()
        self._explain()

    def _keep_predictions(self) -> None:
        """Predictions that name an output the tables no longer have are dropped."""
        if self.quiz is not None:
            names = set(self.names)
            self.quiz.predictions = {who: order for who, order in self.quiz.predictions.items() if set(order) <= names}

    def _replace(self, tables: Tables) -> None:
        """New tables (an import): scored with the focus on the first output, committed only if they score;
        the very tables already shown are no new step."""
        if tables == self._tables:
            return
        focus, self._focus = self._focus, 0
        try:
            scores = self._score(tables)
        except WeightsError:
            self._focus = focus
            raise
        self._chosen = None
        self._commit(tables, scores)

    def _keep_weights(self) -> None:
        if self._tables.n is not None and self._tables.wn is not None:
            self._last_weights = (self._tables.n, self._tables.wn)

    def _restore(self, step: Step) -> None:
        self._joinable = None
        self._keep_weights()
        self._tables = step.tables
        self._focus = min(self._focus, len(step.tables.outputs) - 1)
        self.status = ""
        self._keep_predictions()
        self._explain()

    def _edit_problem(self, index: int) -> str:
        """What makes the gold or output ``index`` invalid right now ("" when both are valid)."""
        for table in (self.gold, self.outputs[index]):
            if table.error:
                return (f"{table.name} has an invalid edit in progress ({table.error}); the explanation shown is "
                        "the last valid one")
        return ""

    def _explained(self, gold: Organization, output: Organization, n, wn) -> Explanation:
        """``explain_rs`` of one pair, reused while the pair and the weights stay the same."""
        key = (gold, output, n, wn)
        if key != self._explained_for or self._explanation is None:  # tuples compare items by identity first
            explanation = explain_rs(gold, output, n=n, wn=wn)
            self._explanation, self._explained_for = explanation, key
            self._lost_by_document = lost_by_document(explanation)
            return explanation
        return self._explanation

    def _explain(self) -> None:
        """Explain the output in focus for the why panel and the lost-mass chart; on any problem say so in
        :attr:`why_message` and keep the last valid explanation."""
        problem = self._edit_problem(self._focus)
        if problem:
            self.why_message = problem
            return
        name = self.names[self._focus]
        gold, organization = self.gold.organization, self.outputs[self._focus].organization
        try:
            explanation = self._explained(gold, organization, self.n, self.wn)
        except ValueError as problem:
            self.why_message = f"{name}: {problem}"
            return
        chosen = self._chosen if self._chosen in _documents(gold, organization) else None
        self.highlighted = chosen or ""
        self.lost = (name, lost_rows(self._lost_by_document, chosen))
        if self._chosen is None:
            self.why_message, self.why_shown = "", None
        elif chosen is None:
            self.why_message = f"{self._chosen!r} is no longer in {name}: the explanation shown is the last valid one"
        else:
            self._why = why_frame(explanation, chosen)
            self.why_message, self.why_shown = "", WhyShown(name, chosen, self._why, explanation.scores)


def _read_tables(gold, outputs, n: int | None, wn: float | None, function: str) -> Tables:
    """The tables ``set_tables`` takes (inside their domains), read: every text must parse."""
    if isinstance(outputs, Mapping):
        texts = {name: table_text(value) for name, value in outputs.items()}
    else:
        listed = [outputs] if isinstance(outputs, str | Organization) else outputs
        texts = {f"output {i}": table_text(value) for i, value in enumerate(listed, start=1)}
    return Tables(Table.parsed(GOLD, table_text(gold)), tuple(Table.parsed(name, text) for name, text in texts.items()),
                  *weights(n, wn, function))


def _example_tables(name: str) -> Tables:
    """The tables of one of the papers' examples (``gallery.EXAMPLES``), with its weighting."""
    example = EXAMPLES[name]
    n, wn = example.weights or (None, None)
    return _read_tables(example.gold, example.outputs, n, wn, "WorkbenchState.load_example")


def _reread(table: Table) -> Table:
    """A table holding an error read again from its text (a refusal of the kernel's, kept in ``error``, is
    forgotten); other tables as they are."""
    return Table.read(table.name, table.text, table.organization) if table.error else table


def _documents(gold: Organization, output: Organization) -> frozenset[str]:
    """The documents one can ask about in ``output``: those it names, and (unlimited tail) the gold's too."""
    return output.documents if output.finite else output.documents | gold.documents


def _listing(documents: frozenset[str], shown: int = 12) -> str:
    names = sorted(documents, key=natural_key)
    return " ".join(names[:shown]) + (f" … ({len(names)} in all)" if len(names) > shown else "")
