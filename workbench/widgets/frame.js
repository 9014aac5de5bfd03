// The workbench's frame (workbench/widgets/frame.py) draws nothing of its own. In the workbench around it, it
// gives each region the Python side marks with a class `wb-role-NAME` the attribute data-role="NAME" (and, with
// a label, role="region" and aria-label), keeps the notebook's own shortcuts out of the workbench, and turns
// Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) anywhere in it into undo / redo (but in the import box and the quiz's
// text boxes, which keep the browser's own undo of their text).

const PREFIX = "wb-role-";

function render({ model, el }) {
  el.classList.add("wb-frame");
  let root = null;
  let observer = null;
  let stopped = false;

  const roleOf = (node) => {
    const cls = Array.from(node.classList).find((c) => c.startsWith(PREFIX));
    return cls ? cls.slice(PREFIX.length) : null;
  };

  const apply = () => {
    const labels = model.get("labels") || {};
    root.querySelectorAll("[data-role]").forEach((node) => {
      if (roleOf(node) !== node.dataset.role) {
        delete node.dataset.role;
        if (node.dataset.wbRegion) {
          node.removeAttribute("role"); node.removeAttribute("aria-label"); delete node.dataset.wbRegion;
        }
      }
    });
    root.querySelectorAll(`[class*="${PREFIX}"]`).forEach((node) => {
      const role = roleOf(node);
      if (!role) return;
      if (node.dataset.role !== role) node.dataset.role = role;
      const label = labels[role];
      if (label && node.getAttribute("aria-label") !== label) {
        node.setAttribute("role", "region");
        node.setAttribute("aria-label", label);
        node.dataset.wbRegion = "1";
      }
    });
  };

  const keys = (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
    const key = e.key.toLowerCase();
    if (key !== "z" && key !== "y") return;
    if (e.target.closest && e.target.closest(".wb-exchange, .wb-quiz")) return;  // plain text boxes: their own undo
    e.preventDefault();
    e.stopPropagation();
    model.send({kind: key === "y" || e.shiftKey ? "redo" : "undo"});
  };

  const start = () => {
    if (stopped) return;
    root = el.closest(".wb-workbench");
    if (!root) { setTimeout(start, 50); return; }     // not attached to the page yet
    root.dataset.lmSuppressShortcuts = "true";          // JupyterLab: keys inside the workbench are its own
    root.addEventListener("keydown", keys, true);       // capture: before text boxes stop the event
    observer = new MutationObserver(apply);
    observer.observe(root, {subtree: true, childList: true, attributes: true, attributeFilter: ["class"]});
    apply();
  };
  model.on("change:labels", () => root && apply());
  start();
  return () => {
    stopped = true;
    if (observer) observer.disconnect();
    if (root) root.removeEventListener("keydown", keys, true);
  };
}

export default { render };
