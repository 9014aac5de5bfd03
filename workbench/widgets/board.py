"""Documents as tokens: one organization drawn level by level, cluster by cluster, each document a token that
can be clicked (to ask why it scores as it does) or dragged to another cluster, level, or to the tail/rest.

The board only draws and reports; :func:`move_document` is the pure edit a drop asks for, and the editor
owning the board turns its result back into notation text (so text, board and scores never disagree).
The front end is an anywidget whose ES module is inlined below (nothing is fetched: it works offline, in
JupyterLab and in Voilà).

    >>> move_document(Organization.parse("d1 {d6 d7 d8}"), "d8", (0, 1), (0, None)).format()
    'd1 {d6 d7} d8'
"""

from __future__ import annotations

from collections.abc import Callable

import anywidget
import traitlets as T

from workbench.model import Organization, OrganizationError, natural_key

# Where an occurrence sits or goes: (level, cluster) with 0-based indices into ``Organization.levels``
# (``cluster`` None: a new singleton cluster in that level; ``level == len(levels)``: a new level at the
# bottom), or ``"tail"`` (below the levels: the unlimited tail, or the finite rest).
Place = tuple[int, int | None] | str
TAIL = "tail"


class MoveError(OrganizationError):
    """A drop that names no occurrence of the document, or a place the organization does not have."""


def move_document(organization: Organization, document: str, source: Place, target: Place) -> Organization:
    """The organization with the occurrence of ``document`` at ``source`` moved to ``target``.

    Emptied clusters and levels disappear; dropping into a cluster that already holds the document only
    removes the moved occurrence (overlap is kept, never doubled). Dropping on the tail of an organization with
    a finite rest puts the document in the rest (unless another occurrence keeps it in a level).
    """
    levels = [[set(cluster) for cluster in level] for level in organization.levels]
    rest = None if organization.rest is None else set(organization.rest)
    if source == TAIL:
        if document in organization.prioritised and document not in (rest or ()):
            raise MoveError(f"{document!r} is not in the tail: it occurs in a level")
        if rest is not None:
            rest.discard(document)
    else:
        level, cluster = _place(levels, source, "source")
        if cluster is None or document not in levels[level][cluster]:
            raise MoveError(f"{document!r} is not in cluster {cluster} of level {level + 1}")
        levels[level][cluster].discard(document)
    if target == TAIL:
        if rest is not None:
            rest.add(document)
    else:
        level, cluster = _place(levels, target, "target")
        if level == len(levels):
            levels.append([])
        if cluster is None:
            levels[level].append({document})
        else:
            levels[level][cluster].add(document)
    kept = [[c for c in level if c] for level in levels]
    kept = [level for level in kept if level]
    if rest is not None:
        rest -= {d for level in kept for c in level for d in c}
    same_levels = len(kept) == len(levels) == len(organization.levels)
    grades = organization.grades if same_levels else None
    return Organization(tuple(tuple(frozenset(c) for c in level) for level in kept),
                        None if rest is None else frozenset(rest), grades)


def _place(levels: list, place: Place, what: str) -> tuple[int, int | None]:
    if not isinstance(place, tuple | list) or len(place) != 2:
        raise MoveError(f"{what} {place!r}: expected (level, cluster) or 'tail'")
    level, cluster = place
    if not isinstance(level, int) or not 0 <= level <= len(levels) or (
            cluster is not None and (level == len(levels) or not 0 <= cluster < len(levels[level]))):
        raise MoveError(f"{what} {place!r}: no such level/cluster among {len(levels)} levels")
    return level, cluster


_ESM = r"""
function token(doc, place, model) {
  const t = document.createElement("span");
  t.className = "wb-doc";
  t.textContent = doc;
  t.dataset.doc = doc;
  t.draggable = true;
  t.title = "click: why this score; drag: move it";
  t.addEventListener("click", (e) => { e.stopPropagation(); model.send({kind: "select", document: doc}); });
  t.addEventListener("dragstart", (e) => {
    e.stopPropagation();
    e.dataTransfer.effectAllowed = "move";
    e.dataTransfer.setData("text/plain", JSON.stringify({board: model.get("board_id"), document: doc,
                                                          source: place}));
  });
  return t;
}
function dropZone(node, target, model) {
  node.addEventListener("dragover", (e) => { e.preventDefault(); e.stopPropagation();
                                             node.classList.add("wb-over"); });
  node.addEventListener("dragleave", () => node.classList.remove("wb-over"));
  node.addEventListener("drop", (e) => {
    e.preventDefault(); e.stopPropagation(); node.classList.remove("wb-over");
    let moved;
    try { moved = JSON.parse(e.dataTransfer.getData("text/plain")); } catch (_) { return; }
    if (!moved || moved.board !== model.get("board_id")) return;   // another table: not a move
    model.send({kind: "move", document: moved.document, source: moved.source, target: target});
  });
}
function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "wb-board";
  el.appendChild(root);
  const draw = () => {
    root.replaceChildren();
    root.classList.toggle("wb-stale", !!model.get("stale"));
    const levels = model.get("levels");
    levels.forEach((level, i) => {
      const row = document.createElement("div");
      row.className = "wb-board-level";
      row.dataset.level = String(i + 1);
      const label = document.createElement("span");
      label.className = "wb-board-label";
      label.textContent = String(i + 1);
      row.appendChild(label);
      level.forEach((cluster, j) => {
        const box = document.createElement("span");
        box.className = cluster.length > 1 ? "wb-cluster" : "wb-cluster wb-singleton";
        box.dataset.cluster = String(j);
        cluster.forEach((doc) => box.appendChild(token(doc, [i, j], model)));
        dropZone(box, [i, j], model);
        row.appendChild(box);
      });
      dropZone(row, [i, null], model);
      root.appendChild(row);
    });
    const more = model.get("hidden_levels");
    if (more) {
      const note = document.createElement("div");
      note.className = "wb-board-more";
      note.textContent = "… " + more + " more levels";
      root.appendChild(note);
    }
    const fresh = document.createElement("div");
    fresh.className = "wb-board-level wb-new-level";
    fresh.textContent = "+ new level (drop here)";
    dropZone(fresh, [levels.length + more, null], model);
    root.appendChild(fresh);
    const tail = document.createElement("div");
    tail.className = "wb-board-tail";
    const caption = document.createElement("span");
    caption.className = "wb-board-label";
    caption.textContent = model.get("finite") ? "rest:" : "tail:";
    tail.appendChild(caption);
    model.get("tail").forEach((doc) => tail.appendChild(token(doc, "tail", model)));
    if (!model.get("finite")) tail.appendChild(document.createTextNode(" …"));
    dropZone(tail, "tail", model);
    root.appendChild(tail);
    mark();
  };
  const mark = () => {
    const chosen = model.get("highlight");
    root.querySelectorAll(".wb-doc").forEach((t) => t.classList.toggle("wb-chosen", t.dataset.doc === chosen));
  };
  model.on("change:levels", draw);
  model.on("change:tail", draw);
  model.on("change:finite", draw);
  model.on("change:stale", draw);
  model.on("change:highlight", mark);
  draw();
}
export default { render };
"""

_CSS = """
.wb-board { font-family: var(--jp-code-font-family, monospace); font-size: 12px; margin: 2px 0 6px 0; }
.wb-board-level, .wb-board-tail { display: flex; flex-wrap: wrap; align-items: center; gap: 4px;
  min-height: 22px; padding: 1px 2px; border-radius: 3px; }
.wb-board-label { color: #777; min-width: 26px; }
.wb-cluster { display: inline-flex; gap: 2px; padding: 1px 3px; border: 1px solid #9ab; border-radius: 8px; }
.wb-singleton { border-color: transparent; }
.wb-doc { cursor: pointer; padding: 0 4px; border-radius: 4px; background: #e8eef6; user-select: none; }
.wb-doc.wb-chosen { background: #ffd54f; outline: 2px solid #f57f17; }
.wb-new-level { color: #999; font-style: italic; border: 1px dashed #ccc; }
.wb-board-tail { border-top: 1px dotted #bbb; }
.wb-over { background: #dff0d8; }
.wb-stale { opacity: 0.5; }
"""


class DocumentBoard(anywidget.AnyWidget):
    """The tokens of one organization; ``on_select`` and ``on_move`` callbacks get the front end's clicks and
    drops (``select(document)``, ``move(document, source, target)`` with :data:`Place` values)."""

    _esm = T.Unicode(_ESM).tag(sync=True)
    _css = T.Unicode(_CSS).tag(sync=True)
    board_id = T.Unicode("").tag(sync=True)
    levels = T.List().tag(sync=True)          # levels of clusters of documents, as drawn
    tail = T.List().tag(sync=True)            # the finite rest, or the known documents in the unlimited tail
    finite = T.Bool(False).tag(sync=True)
    hidden_levels = T.Int(0).tag(sync=True)   # levels beyond max_levels, not drawn
    highlight = T.Unicode("").tag(sync=True)  # the document whose tokens are marked
    stale = T.Bool(False).tag(sync=True)      # the text is invalid: the board shows the last valid one

    def __init__(self, max_levels: int = 200, **kwargs) -> None:
        super().__init__(**kwargs)
        self.board_id = self.model_id
        self.max_levels = max_levels
        self._select: list[Callable[[str], None]] = []
        self._move: list[Callable[[str, Place, Place], None]] = []
        self.on_msg(self._message)

    def show(self, organization: Organization, tail: frozenset[str] = frozenset()) -> None:
        """Draw ``organization`` (``tail``: the documents to show in an unlimited tail)."""
        drawn = organization.levels[:self.max_levels]
        self.hidden_levels = len(organization.levels) - len(drawn)
        self.finite = organization.finite
        self.levels = [[sorted(cluster, key=natural_key) for cluster in level] for level in drawn]
        self.tail = sorted(organization.rest if organization.finite else tail, key=natural_key)

    def on_select(self, callback: Callable[[str], None]) -> None:
        self._select.append(callback)

    def on_move(self, callback: Callable[[str, Place, Place], None]) -> None:
        self._move.append(callback)

    def _message(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        if content.get("kind") == "select":
            for callback in self._select:
                callback(str(content["document"]))
        elif content.get("kind") == "move":
            source, target = (_as_place(content.get(key)) for key in ("source", "target"))
            for callback in self._move:
                callback(str(content["document"]), source, target)


def _as_place(value) -> Place:
    """A place as JSON brings it (``[level, cluster]`` or ``"tail"``) back to a :data:`Place`."""
    return TAIL if value == TAIL else tuple(value) if isinstance(value, list) else value
