// The inspector's two runs side by side (workbench/widgets/rankings.py): each list a run's documents on one
// topic, a token per document coloured by the gold (the palette comes from Python), a bar for its contribution,
// where the other run puts it; lines link the same document across the lists; a click or Enter on a token sends
// {kind: "select"} and the Python side sets `selected`, which both lists then mark. A board draws the lists
// (part "lists") or the table of the documents that make the difference (part "difference").

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function render({ model, el: root }) {
  root.classList.add("wb-rankings");
  let frame = null;

  const token = (row, palette) => {
    const [background, color] = palette[row.tone] || ["#FFFFFF", "#222222"];
    const button = el("button", "wb-rankings-doc" + (row.tone === "unjudged" ? " wb-unjudged" : ""),
                      row.document ?? "—");
    button.type = "button";
    button.style.background = background;
    button.style.color = color;
    button.dataset.doc = row.document ?? "";
    button.title = `${row.document}: ${row.label}; contributes ${row.contribution}`;
    button.setAttribute("aria-pressed", String(row.document !== null && row.document === model.get("selected")));
    button.addEventListener("click", () => row.document !== null && model.send({kind: "select", document: row.document}));
    return button;
  };

  const bar = (value, scale) => {
    const track = el("span", "wb-rankings-bar");
    const fill = el("span", value < 0 ? "wb-rankings-fill wb-negative" : "wb-rankings-fill");
    fill.style.width = `${Math.min(100, (100 * Math.abs(value)) / (scale || 1))}%`;
    track.append(fill);
    return track;
  };

  const list = (column, palette, scale, kind) => {
    const box = el("div", "wb-rankings-list");
    box.dataset.system = column.system;
    const head = el("div", "wb-rankings-head");
    head.append(el("span", "wb-rankings-system", column.system), el("span", "wb-rankings-score", column.score));
    head.title = column.caption || "";
    box.append(head);
    if (column.caption) box.append(el("div", "wb-rankings-note", column.caption));
    let group = null;
    for (const row of column.rows) {
      if (kind !== "ranking" && row.group !== group) {
        box.append(el("div", "wb-rankings-group", row.group));
        group = row.group;
      }
      const line = el("div", "wb-rankings-row");
      line.dataset.doc = row.document ?? "";
      if (row.document !== null && row.document === model.get("selected")) line.classList.add("wb-selected");
      line.append(el("span", "wb-rankings-rank", kind === "ranking" ? row.group : ""), token(row, palette),
                  el("span", "wb-rankings-label", row.label), bar(row.contribution, scale),
                  el("span", "wb-rankings-value", Number(row.contribution).toFixed(4)),
                  el("span", "wb-rankings-other", row.other || ""));
      box.append(line);
    }
    return box;
  };

  const link = (grid, svg) => {
    const lists = grid.querySelectorAll(".wb-rankings-list");
    if (lists.length !== 2) return;
    const origin = svg.getBoundingClientRect();
    const selected = model.get("selected");
    const left = new Map();
    lists[0].querySelectorAll(".wb-rankings-row").forEach((row) => row.dataset.doc && left.set(row.dataset.doc, row));
    const count = lists[1].querySelectorAll(".wb-rankings-row").length;
    svg.replaceChildren();
    lists[1].querySelectorAll(".wb-rankings-row").forEach((row) => {
      const other = left.get(row.dataset.doc);
      if (!other || (count > 60 && row.dataset.doc !== selected)) return;
      const a = other.getBoundingClientRect(), b = row.getBoundingClientRect();
      const line = document.createElementNS("http://www.w3.org/2000/svg", "line");
      line.setAttribute("x1", "0");
      line.setAttribute("y1", String(a.top + a.height / 2 - origin.top));
      line.setAttribute("x2", String(origin.width));
      line.setAttribute("y2", String(b.top + b.height / 2 - origin.top));
      line.setAttribute("class", row.dataset.doc === selected ? "wb-link wb-selected" : "wb-link");
      svg.append(line);
    });
    svg.setAttribute("height", String(grid.getBoundingClientRect().height));
  };

  const differenceTable = (palette) => {
    const difference = model.get("difference") || [];
    const table = el("table", "wb-rankings-difference");
    const caption = el("caption", "", difference.length ? "the documents that make the difference, largest first"
                                                       : "no document makes a difference");
    table.append(caption);
    if (difference.length) {
      const head = el("tr");
      for (const name of ["document", ...(model.get("systems") || []), "difference"]) {
        const cell = el("th", "", name);
        cell.scope = "col";
        head.append(cell);
      }
      table.append(caption, head);
      for (const row of difference) {
        const line = el("tr");
        line.dataset.doc = row.document;
        if (row.document === model.get("selected")) line.classList.add("wb-selected");
        const cell = el("td");
        cell.append(token({document: row.document, tone: row.tone, label: row.label, contribution: row.difference},
                          palette));
        line.append(cell, el("td", "", Number(row.a).toFixed(4)), el("td", "", Number(row.b).toFixed(4)),
                    el("td", "wb-rankings-delta", (row.difference >= 0 ? "+" : "") + Number(row.difference).toFixed(4)));
        table.append(line);
      }
    }
    return table;
  };

  const draw = () => {
    const palette = model.get("palette") || {};
    const scale = model.get("scale");
    const kind = model.get("kind");
    root.replaceChildren();
    if (model.get("part") === "difference") {
      root.append(differenceTable(palette));
      return;
    }
    root.append(el("div", "wb-rankings-caption", model.get("caption")));
    const grid = el("div", "wb-rankings-grid");
    const columns = model.get("columns") || [];
    const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
    svg.setAttribute("class", "wb-rankings-links");
    svg.setAttribute("aria-hidden", "true");
    columns.forEach((column, index) => {
      grid.append(list(column, palette, scale, kind));
      if (index === 0 && columns.length === 2) grid.append(svg);
    });
    root.append(grid);
    if (frame) cancelAnimationFrame(frame);
    frame = requestAnimationFrame(() => link(grid, svg));
  };

  model.on("change:columns", draw);
  model.on("change:selected", draw);
  model.on("change:difference", draw);
  model.on("change:caption", draw);
  model.on("change:systems", draw);
  draw();
  return () => { if (frame) cancelAnimationFrame(frame); };
}

export default { render };
