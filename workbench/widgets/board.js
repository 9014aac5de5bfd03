// The document board (workbench/widgets/board.py): one organization as tokens, level by level, cluster by
// cluster. A click, Enter or Space selects a token (the kernel explains it); a drop or, with a token picked up
// (Enter/Space), an arrow key asks the kernel to move it ("move"); the arrows after the first while it is held
// carry on the same move ("carry": one step of the history, however many keys made it). One token of the board is in the tab order (roving
// tabindex); the arrow keys, Home and End walk the others, and typing a document's name jumps to it.

const HELP = "type a document's name to go to it; Enter or Space: select and pick up; arrows: move it; " +
  "Escape: put it down";
const TYPE_AHEAD_MS = 1000;   // letters typed within this time make one name

function place(token) {
  return token.dataset.place === "tail" ? "tail" : JSON.parse(token.dataset.place);
}

// Where an arrow key sends a picked-up token at `from` ([level, cluster] or "tail"), or null (it stays).
function arrowTarget(key, from, levels) {
  const last = levels.length - 1;
  if (from === "tail") {
    return key === "ArrowUp" ? [Math.max(last, 0), null] : null;
  }
  const [i, j] = from;
  const level = levels[i];
  const alone = level[j].length === 1;
  if (key === "ArrowLeft") return j > 0 ? [i, j - 1] : null;
  if (key === "ArrowRight") {
    if (j + 1 < level.length) return [i, j + 1];
    return alone ? null : [i, null];
  }
  if (key === "ArrowUp") return i > 0 ? [i - 1, null] : null;
  if (key === "ArrowDown") {
    if (i < last) return [i + 1, null];
    return alone && level.length === 1 ? "tail" : [i + 1, null];
  }
  return null;
}

function render({ model, el }) {
  const root = document.createElement("div");
  root.className = "wb-board";
  const live = document.createElement("div");
  live.className = "wb-sr-only";
  live.setAttribute("aria-live", "polite");
  el.append(root, live);
  let grabbed = null;    // {doc, place, moved} of the picked-up token (moved: an arrow has moved it already)
  let focused = null;    // {doc, place} of the token in the tab order
  let typedName = "";    // what was typed to find a token, and when
  let typedAt = 0;

  const say = (text) => { live.textContent = text; };
  const tokens = () => Array.from(root.querySelectorAll(".wb-doc"));

  const token = (doc, where, context) => {
    const t = document.createElement("span");
    t.className = "wb-doc";
    t.textContent = doc;
    t.dataset.doc = doc;
    t.dataset.place = JSON.stringify(where);
    t.draggable = true;
    t.tabIndex = -1;
    t.setAttribute("role", "button");
    t.setAttribute("aria-label", `${doc}, ${context}`);
    t.title = "click: why this score; drag: move it; " + HELP;
    t.addEventListener("click", (e) => { e.stopPropagation(); select(t); });
    t.addEventListener("keydown", (e) => keydown(e, t));
    t.addEventListener("focus", () => { focused = {doc, place: where}; roving(t); });
    t.addEventListener("dragstart", (e) => {
      e.stopPropagation();
      e.dataTransfer.effectAllowed = "move";
      e.dataTransfer.setData("text/plain", JSON.stringify({board: model.get("board_id"), document: doc,
                                                            source: where}));
    });
    return t;
  };

  const roving = (current) => tokens().forEach((t) => { t.tabIndex = t === current ? 0 : -1; });

  const select = (t) => model.send({kind: "select", document: t.dataset.doc});

  // Typing a name goes to its token: the one named exactly so, else the first whose name starts so.
  const typeAhead = (key) => {
    const now = Date.now();
    typedName = (now - typedAt < TYPE_AHEAD_MS ? typedName : "") + key.toLowerCase();
    typedAt = now;
    const all = tokens();
    const name = (x) => x.dataset.doc.toLowerCase();
    const found = all.find((x) => name(x) === typedName) || all.find((x) => name(x).startsWith(typedName));
    if (found) {
      if (grabbed) { grabbed = null; mark(); }
      found.focus();
    } else {
      say(`no document ${typedName} here`);
    }
  };

  const keydown = (e, t) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;   // shortcuts (undo, redo) belong to the workbench
    const key = e.key;
    if (key === "Enter" || key === " ") {
      e.preventDefault(); e.stopPropagation();
      if (grabbed && grabbed.doc === t.dataset.doc) {
        grabbed = null; mark(); say(`${t.dataset.doc} put down`);
        return;
      }
      grabbed = {doc: t.dataset.doc, place: place(t), moved: false};
      mark();
      select(t);
      say(`${t.dataset.doc} picked up: arrows move it, Escape puts it down`);
    } else if (key.length === 1) {
      e.preventDefault(); e.stopPropagation();
      typeAhead(key);
    } else if ((key === "Home" || key === "End") && !grabbed) {
      e.preventDefault(); e.stopPropagation();
      const all = tokens();
      all[key === "Home" ? 0 : all.length - 1].focus();
    } else if (key === "Escape" && grabbed) {
      e.preventDefault(); e.stopPropagation();
      grabbed = null; mark(); say(`${t.dataset.doc} put down`);
    } else if (key.startsWith("Arrow")) {
      e.preventDefault(); e.stopPropagation();
      if (grabbed && grabbed.doc === t.dataset.doc) {
        const target = arrowTarget(key, place(t), model.get("levels"));
        if (target === null) { say(`${t.dataset.doc} cannot move further that way`); return; }
        grabbed.place = target;
        model.send({kind: grabbed.moved ? "carry" : "move", document: t.dataset.doc, source: place(t),
                    target: target});
        grabbed.moved = true;
      } else {
        const all = tokens();
        const step = key === "ArrowLeft" || key === "ArrowUp" ? -1 : 1;
        const next = all[(all.indexOf(t) + step + all.length) % all.length];
        if (next) next.focus();
      }
    }
  };

  const dropZone = (node, target) => {
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
  };

  const mark = () => {
    const chosen = model.get("highlight");
    tokens().forEach((t) => {
      t.classList.toggle("wb-chosen", t.dataset.doc === chosen);
      const held = grabbed !== null && t.dataset.doc === grabbed.doc;
      t.classList.toggle("wb-grabbed", held);
      t.setAttribute("aria-pressed", held ? "true" : "false");
    });
  };

  // After a redraw, keep the keyboard where it was: on the moved (or last focused) document, nearest its place.
  const refocus = (hadFocus) => {
    const wanted = grabbed || focused;
    const all = tokens();
    if (!all.length) return;
    let target = all[0];
    if (wanted) {
      const same = all.filter((t) => t.dataset.doc === wanted.doc);
      const level = wanted.place === "tail" ? "tail" : Array.isArray(wanted.place) ? wanted.place[0] : null;
      target = same.find((t) => (t.dataset.place === "tail" ? "tail" : JSON.parse(t.dataset.place)[0]) === level)
        || same[0] || target;
    }
    roving(target);
    if (hadFocus) target.focus();
  };

  const draw = () => {
    const hadFocus = root.contains(document.activeElement);
    root.replaceChildren();
    root.classList.toggle("wb-stale", !!model.get("stale"));
    root.setAttribute("aria-label", `${model.get("caption") || "table"}: documents as tokens. ${HELP}`);
    root.setAttribute("role", "group");
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
        const others = (doc) => cluster.filter((d) => d !== doc);
        cluster.forEach((doc) => box.appendChild(token(doc, [i, j], `level ${i + 1}` +
          (cluster.length > 1 ? `, with ${others(doc).join(" ")}` : ""))));
        dropZone(box, [i, j]);
        row.appendChild(box);
      });
      dropZone(row, [i, null]);
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
    dropZone(fresh, [levels.length + more, null]);
    root.appendChild(fresh);
    const tail = document.createElement("div");
    tail.className = "wb-board-tail";
    const caption = document.createElement("span");
    caption.className = "wb-board-label";
    const finite = model.get("finite");
    caption.textContent = finite ? "rest:" : "tail:";
    tail.appendChild(caption);
    model.get("tail").forEach((doc) => tail.appendChild(token(doc, "tail", finite ? "in the rest" : "in the tail")));
    if (!finite) tail.appendChild(document.createTextNode(" …"));
    dropZone(tail, "tail");
    root.appendChild(tail);
    mark();
    refocus(hadFocus);
    if (grabbed && hadFocus) {
      const where = grabbed.place === "tail" ? (finite ? "the rest" : "the tail")
        : `level ${grabbed.place[0] + 1}`;
      say(`${grabbed.doc} moved to ${where}`);
    }
  };

  // The keyboard left the board for another element (a redraw only drops the focus): a later arrow is a new move.
  root.addEventListener("focusout", (e) => {
    if (grabbed && e.relatedTarget && !root.contains(e.relatedTarget)) grabbed.moved = false;
  });
  model.on("change:levels", draw);
  model.on("change:tail", draw);
  model.on("change:finite", draw);
  model.on("change:stale", draw);
  model.on("change:caption", draw);
  model.on("change:highlight", mark);
  draw();
}

export default { render };
