"""An editor for one organization: a text row per priority level in the papers' notation, the finite rest
or the unlimited tail below, and the whole notation in a second tab for pasting.

A row, the rest and the notation reach Python when the typing is committed: Enter, leaving the field, or (the
workbench's ``frame.js``) a pause; not at each keystroke, so that what is half typed never reaches the scores.
``text`` is the notation as committed; ``organization`` the last valid :class:`Organization` (it stays in force
while the text is invalid); ``error`` explains what is wrong and where ("" when valid), and the row it names
shows the message beside it (:attr:`OrganizationEditor.row_errors`). A level row holds one level: ``rest:``
typed into the last row becomes the finite rest (the box below the rows), typed into any other row it is
refused there, and a line break pasted into a row splits it into rows, so rows, text and organization never
disagree.

    >>> editor = OrganizationEditor("d1 {d2 d3}\\n{d4 d5}")
    >>> editor.levels[1].value = "{d4 d5"                       # as the front end would set it
    >>> editor.error, editor.organization.format()
    ("line 2, column 1, at '{': unbalanced '{' is never closed", 'd1 {d2 d3}\\n{d4 d5}')
    >>> editor.row_errors
    ['', "column 1, at '{': unbalanced '{' is never closed"]
"""

from __future__ import annotations

import html
import re

import ipywidgets as W
import traitlets as T

from workbench.errors import WorkbenchError
from workbench.model import Organization, OrganizationError, natural_key
from workbench.validation import Anything, Choices, Flag, Interval, Text, check, validate
from workbench.widgets.board import DocumentBoard
from workbench.widgets.moves import PLACE, Place, move_document
from workbench.widgets.tables import TABLE

__all__ = ["split_notation", "join_notation", "close_tree", "LevelRow", "OrganizationEditor"]

_REST_LINE = re.compile(r"^\s*rest\s*:(.*)$", re.IGNORECASE)
_MISPLACED_REST = ("'rest:' is not a level: the finite rest is the last line (its box below the rows; tick "
                   "'finite rest')")
_INVALID = "#fde2e2"
_BUTTON = W.Layout(width="1.9em", padding="0px")
_ROW_TEXT = W.Layout(flex="1 1 8em", width="auto", min_width="min-content")  # never narrower than its text
_INDEX = Interval(0, integer=True)


def split_notation(text: str) -> tuple[list[str], str | None]:
    """The level lines of a notation text and the body of its ``rest:`` line (None: unlimited tail).

    Only a ``rest:`` line that is the last non-blank line is taken apart; trailing blank lines are dropped,
    so level line *i* of the text is row *i* of the editor.
    """
    lines = text.splitlines()
    while lines and not lines[-1].strip():
        lines.pop()
    if lines:
        match = _REST_LINE.match(lines[-1])
        if match:
            return lines[:-1], match.group(1).strip()
    return lines, None


def join_notation(levels: list[str], rest: str | None) -> str:
    """Inverse of :func:`split_notation` (up to the spacing of the ``rest:`` line)."""
    lines = list(levels)
    if rest is not None:
        lines.append(f"rest: {rest}".rstrip())
    return "\n".join(lines)


def close_tree(widget: W.Widget) -> None:
    """Close ``widget`` and, depth first, every widget among its children (layouts may be shared: kept)."""
    for child in getattr(widget, "children", ()):
        close_tree(child)
    widget.close()


def _breaks_lines(value: str) -> bool:
    return len((value + "x").splitlines()) > 1


def _red(message: str) -> str:
    return f'<span class="wb-error">{html.escape(message)}</span>' if message else ""


class LevelRow:
    """The widgets of one level row: its text (labelled with the level's number), buttons to move it up or
    down or remove it, and the note that explains an error in it."""

    def __init__(self, editor: OrganizationEditor, value: str) -> None:
        self.text = W.Text(value=value, continuous_update=False, placeholder="{d1 d2} d3", layout=_ROW_TEXT,
                           style={"description_width": "1.8em"})
        self.text.add_class("wb-level")
        self.up = W.Button(description="↑", tooltip="move this level up", layout=_BUTTON)
        self.down = W.Button(description="↓", tooltip="move this level down", layout=_BUTTON)
        self.remove = W.Button(description="✕", tooltip="remove this level", layout=_BUTTON)
        self.note = W.HTML()
        self.note.add_class("wb-level-error")
        self.error = ""
        self.box = W.HBox([self.text, self.up, self.down, self.remove])
        self.box.add_class("wb-level-row")
        self.text.observe(lambda _: editor._row_edited(), "value")
        self.up.on_click(lambda _: editor.move_level(editor.rows.index(self), -1))
        self.down.on_click(lambda _: editor.move_level(editor.rows.index(self), +1))
        self.remove.on_click(lambda _: editor.remove_level(editor.rows.index(self)))

    @property
    def number(self) -> str:
        """The level's number as shown (1 for the top level)."""
        return self.text.description

    def mark(self, message: str) -> None:
        self.error = message
        self.text.style.background = _INVALID if message else ""
        self.note.value = _red(message)
        self.box.children = (self.text, self.up, self.down, self.remove, *((self.note,) if message else ()))


class OrganizationEditor(W.VBox):
    """Edit one organization level by level; see the module docstring. Levels beyond ``max_rows`` get no
    row (thousands of widgets would take seconds to draw): they are edited in the notation tab."""

    text = T.Unicode("")
    organization = T.Instance(Organization, args=())  # until a valid text arrives: empty
    error = T.Unicode("")
    caption = T.Unicode("")
    known_documents = T.Instance(frozenset, args=())

    @validate(value=TABLE, caption=Text(empty=True), max_rows=Interval(1, 10_000, integer=True),
              kwargs=Anything("passed to ipywidgets"))
    def __init__(self, value: Organization | str = "", *, caption: str = "", max_rows: int = 200,
                 **kwargs) -> None:
        super().__init__(**kwargs)
        self._syncing = self._composing = False
        self.carrying = False  # while the text changes for a move that carries on the one before (one step)
        self._rows: list[LevelRow] = []
        self._hidden: list[str] = []  # the levels beyond max_rows, as text
        self.max_rows = max_rows
        self.status = ""              # what is wrong, said under the editor ("" when valid)
        self.rest_error = ""          # the message beside the rest box
        self._hidden_note = W.HTML()
        self._title = W.HTML()
        self._title.add_class("wb-editor-title")
        self._rows_box = W.VBox()
        self.add_level_button = W.Button(description="+ level", tooltip="add a level at the bottom",
                                         layout=W.Layout(width="auto"))
        self.add_level_button.on_click(lambda _: self.add_level())
        self._finite = W.Checkbox(description="finite rest", indent=False, layout=W.Layout(width="auto"))
        self._rest = W.Text(placeholder="d8 d9", continuous_update=False, description="rest",
                            layout=W.Layout(flex="1 1 6em", width="auto"), style={"description_width": "2.5em"})
        self._rest.add_class("wb-rest")
        self._rest_note = W.HTML()
        self._tail = ""               # what the tail holds, as the board shows it
        self._status = W.HTML()
        self._status.add_class("wb-editor-status")
        self.board = DocumentBoard(max_levels=max_rows)
        self.board.add_class("wb-board-view")
        self.board.on_move(self._dropped)
        self._notation = W.Textarea(continuous_update=False, description="notation",
                                    layout=W.Layout(width="100%", height="10em"),
                                    style={"description_width": "initial"})
        self._notation.add_class("wb-notation")
        self._finite.observe(lambda _: self._row_edited(), "value")
        self._rest.observe(lambda _: self._row_edited(), "value")
        self._notation.observe(self._notation_edited, "value")
        levels_view = W.VBox([self.board, self._rows_box, self._hidden_note,
                              W.HBox([self.add_level_button, self._finite, self._rest],
                                     layout=W.Layout(align_items="center", flex_flow="row wrap")),
                              self._rest_note])
        tabs = W.Tab([levels_view, self._notation], titles=("levels", "notation"))
        tabs.add_class("wb-editor-tabs")
        self.children = [self._title, tabs, self._status]
        self.add_class("wb-editor")
        self.caption = caption
        text = value.format() if isinstance(value, Organization) else value
        self.text = text
        if not text:  # no change event for the empty default
            self._text_changed({"new": text})

    # ------------------------------------------------------------------------------ public edits
    @property
    def rows(self) -> list[LevelRow]:
        """The level rows, top level first."""
        return list(self._rows)

    @property
    def levels(self) -> list[W.Text]:
        """The level rows' text widgets, top level first (what a user types into)."""
        return [row.text for row in self._rows]

    @property
    def rest(self) -> W.Text:
        """The text widget of the finite rest (used when ``finite`` is ticked)."""
        return self._rest

    @property
    def finite(self) -> W.Checkbox:
        """Ticked: a finite rest below the levels; unticked: an unlimited tail."""
        return self._finite

    @property
    def notation(self) -> W.Textarea:
        """The notation tab's text area: the whole table as text."""
        return self._notation

    @property
    def row_errors(self) -> list[str]:
        """The message beside each level row ("" where the row is fine)."""
        return [row.error for row in self._rows]

    @property
    def tail_text(self) -> str:
        """What the unlimited tail holds, as the board's tail row shows it ("" for a finite rest)."""
        return self._tail

    @property
    def hidden_levels_note(self) -> str:
        """The note on levels beyond ``max_rows`` ("" when every level has a row)."""
        return html.unescape(re.sub(r"<[^>]+>", "", self._hidden_note.value))

    @validate(value=Text(empty=True))
    def add_level(self, value: str = "") -> None:
        """Append a level row at the bottom (an empty row is ignored until something is typed in it)."""
        if self._hidden:
            self._hidden.append(value)
            self._row_edited()
            return
        self._rows.append(LevelRow(self, value))
        self._rows_changed()

    @validate(index=_INDEX)
    def remove_level(self, index: int) -> None:
        """Remove the level row at ``index`` (0-based; one of the rows)."""
        check(index, Interval(0, len(self._rows) - 1, integer=True), "index", "OrganizationEditor.remove_level")
        close_tree(self._rows.pop(int(index)).box)
        self._rows_changed()

    @validate(index=_INDEX, step=Choices((-1, 1)))
    def move_level(self, index: int, step: int) -> None:
        """Move the level row at ``index`` (one of the rows) up (``step=-1``) or down (``+1``); no-op at either
        end of the rows."""
        index = int(check(index, Interval(0, len(self._rows) - 1, integer=True), "index",
                          "OrganizationEditor.move_level"))
        target = index + int(step)
        if 0 <= target < len(self._rows):
            self._rows[index], self._rows[target] = self._rows[target], self._rows[index]
            self._rows_changed()

    @validate(document=Text(), source=PLACE, target=PLACE, carried=Flag())
    def move(self, document: str, source: Place, target: Place, *, carried: bool = False) -> None:
        """Move one occurrence of ``document`` (what a drag on the board asks): the text is rewritten from the
        moved organization (see :func:`workbench.widgets.moves.move_document` for places; a place it does not
        have raises :class:`~workbench.widgets.moves.MoveError`). Refused, with a note, while the text is
        invalid: the board then shows an organization the text no longer states. ``carried``: the move goes on
        from the one before (a token held on the keyboard; :attr:`carrying` says so while the text changes, and
        the workbench keeps one step for both)."""
        if self.error:
            self._say("⚠ fix the text before moving documents; the last valid organization stays in force")
            return
        moved = move_document(self.organization, document, source, target).format()
        self.carrying = carried
        try:
            self.text = moved
        finally:
            self.carrying = False

    def _dropped(self, document: str, source: Place, target: Place, carried: bool) -> None:
        """A drop on the board, or an arrow key: as :meth:`move`, a refused move said in the status line."""
        try:
            self.move(document, source, target, carried=carried)
        except WorkbenchError as problem:
            self._say(f"⚠ {problem}")

    def close(self) -> None:
        """Close this editor and every widget inside it (their front-end models go too)."""
        for child in self.children:
            close_tree(child)
        super().close()

    # --------------------------------------------------------------------------------- plumbing
    def _say(self, message: str) -> None:
        self.status = message
        self._status.value = _red(message)

    def _composed(self) -> tuple[list[str], str | None]:
        levels = [row.text.value for row in self._rows] + self._hidden
        return levels, self._rest.value if self._finite.value else None

    def _rows_changed(self) -> None:
        for number, row in enumerate(self._rows, start=1):
            row.text.description = str(number)
        self._rows_box.children = [row.box for row in self._rows]
        self._row_edited()

    def _row_edited(self) -> None:
        if self._syncing:
            return
        levels, rest = self._composed()
        text = join_notation(levels, rest)
        if any(map(_breaks_lines, [*levels, rest or ""])) or (
                rest is None and levels and _REST_LINE.match(levels[-1])):
            # a line break pasted into a row, or 'rest:' typed into the last row (the text then states a finite
            # rest): the rows, the finite box and the rest box are read again from the text
            if self.text == text:
                self._text_changed({"new": text})
            else:
                self.text = text
            return
        self._composing = True
        try:
            self.text = text
        finally:
            self._composing = False

    def _notation_edited(self, change) -> None:
        if not self._syncing:
            self.text = change["new"]

    @T.observe("caption")
    def _show_caption(self, change) -> None:
        self._title.value = f"<b>{html.escape(change['new'])}</b>" if change["new"] else ""
        self.board.caption = change["new"]

    @T.observe("text")
    def _text_changed(self, change) -> None:
        if self._composing:  # the rows made this text: they are already right
            self._sync_notation(change["new"])
            self._parse(len(self._rows) + len(self._hidden))
            return
        levels, rest = split_notation(change["new"])
        n_levels = len(levels)
        levels, self._hidden = levels[:self.max_rows], levels[self.max_rows:]
        self._hidden_note.value = (
            f"<i>… and {len(self._hidden)} more levels ({self.max_rows + 1}–{n_levels}): edit them in the "
            "notation tab</i>" if self._hidden else "")
        self._syncing = True
        try:
            while len(self._rows) < len(levels):
                self._rows.append(LevelRow(self, ""))
            for row in self._rows[len(levels):]:
                close_tree(row.box)
            del self._rows[len(levels):]
            for number, (row, value) in enumerate(zip(self._rows, levels, strict=True), start=1):
                row.text.description = str(number)
                if row.text.value != value:
                    row.text.value = value
            if len(self._rows_box.children) != len(self._rows):
                self._rows_box.children = [row.box for row in self._rows]
            self._finite.value = rest is not None
            self._rest.disabled = rest is None
            if rest is not None and self._rest.value.strip() != rest:
                self._rest.value = rest
        finally:
            self._syncing = False
        self._sync_notation(change["new"])
        self._parse(n_levels)

    def _sync_notation(self, text: str) -> None:
        self._rest.disabled = not self._finite.value
        if self._notation.value != text:
            self._syncing = True
            try:
                self._notation.value = text
            finally:
                self._syncing = False

    def _parse(self, n_levels: int) -> None:
        for row in self._rows:
            if row.error:
                row.mark("")
        self.rest_error = self._rest_note.value = ""
        misplaced = next((i for i, row in enumerate(self._rows) if _REST_LINE.match(row.text.value)), None)
        try:
            if misplaced is not None:
                raise OrganizationError(_MISPLACED_REST, line=misplaced + 1)
            organization = Organization.parse(self.text)
        except OrganizationError as problem:
            self.error = str(problem)
            where = [f"column {problem.column}"] if problem.column else []
            if problem.token is not None:
                where.append(f"at {problem.token!r}")
            local = f"{', '.join(where)}: {problem.message}" if where else problem.message
            if problem.line is not None and 1 <= problem.line <= len(self._rows):
                self._rows[problem.line - 1].mark(local)
            elif problem.line == n_levels + 1:
                self.rest_error = local
                self._rest_note.value = _red(f"rest: {local}")
            self._say(f"⚠ {problem}; the last valid organization stays in force")
            self.board.stale = True
        else:
            self.error = ""
            self.organization = organization
            self._say("")
            self.board.stale = False
        self._show_tail()

    @T.observe("known_documents")
    def _known_changed(self, _change) -> None:
        self._show_tail()

    def _show_tail(self) -> None:
        organization = self.organization
        below = sorted(self.known_documents - organization.prioritised, key=natural_key)
        self.board.show(organization, frozenset(below))
        self._tail = "" if organization.finite else f"unlimited tail: {' '.join([*below, '…'])}"
