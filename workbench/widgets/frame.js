// The workbench's frame (workbench/widgets/frame.py) draws nothing of its own. In the workbench around it, it
// - gives each region the Python side marks with a class `wb-role-NAME` the attribute data-role="NAME" (and, with
//   a label, role="region" and aria-label; the scores can take the keyboard's focus),
// - keeps the notebook's own shortcuts out of the workbench and turns Ctrl+Z / Ctrl+Shift+Z (or Ctrl+Y) anywhere
//   in it into undo / redo (but in the import box and the quiz's text boxes, which keep the browser's own undo);
//   a Ctrl+Z while a row's typing is not committed yet takes that typing back instead,
// - Alt+G, Alt+O, Alt+S: to the gold's tokens, the focused output's tokens, the scores; also while nothing on the
//   page has the focus (a page just opened in Voilà: the body has it), for the first workbench on the page,
// - commits a row, the rest or the notation being typed after a pause (Enter and leaving the field commit it
//   through the browser's own change event),
// - says "shown" to Python when the workbench is first drawn (the charts are built then),
// - in JupyterLab, keeps the workbench's cell at the top of the notebook from its first drawing until the user
//   scrolls, clicks or types in the notebook (Run All would leave the view at the notebook's end, cells below).

const PREFIX = "wb-role-";
const FIELDS = ".wb-editor input[type=text], .wb-editor textarea";

function render({ model, el }) {
  el.classList.add("wb-frame");
  let root = null;
  let observer = null;
  let stopped = false;
  const committed = new WeakMap();   // an editor field -> its value when last committed
  const timers = new WeakMap();      // an editor field being typed in -> the timer of its pause

  // "Alt+G" -> "gold-editor" (the model's jumps) read as key codes ("KeyG") and as the regions' shortcuts
  const jumps = () => Object.fromEntries(Object.entries(model.get("jumps") || {})
    .map(([keys, role]) => [`Key${keys.slice(-1).toUpperCase()}`, role]));
  const shortcutOf = (role) => Object.entries(model.get("jumps") || {}).find(([, r]) => r === role)?.[0];

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
          ["role", "aria-label", "aria-keyshortcuts", "tabindex"].forEach((a) => node.removeAttribute(a));
          delete node.dataset.wbRegion;
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
        if (shortcutOf(role)) node.setAttribute("aria-keyshortcuts", shortcutOf(role));
        if (role === "scores") node.tabIndex = -1;   // Alt+S focuses it
        node.dataset.wbRegion = "1";
      }
    });
  };

  const field = (target) => (target.matches && target.matches(FIELDS) ? target : null);

  const commit = (input) => {    // typing not committed yet goes to Python, as Enter would send it
    if (!timers.has(input)) return;
    clearTimeout(timers.get(input));
    timers.delete(input);
    input.dispatchEvent(new Event("change", {bubbles: true}));
  };

  const typing = (e) => {        // before the first keystroke since the last commit: what a Ctrl+Z comes back to
    const input = field(e.target);
    if (input && !timers.has(input)) committed.set(input, input.value);
  };

  const typed = (e) => {
    const input = field(e.target);
    if (!input) return;
    clearTimeout(timers.get(input));
    timers.set(input, setTimeout(() => commit(input), model.get("pause")));
  };

  const changed = (e) => {
    const input = field(e.target);
    if (!input) return;
    clearTimeout(timers.get(input));
    timers.delete(input);
    committed.set(input, input.value);
  };

  const jump = (role) => {
    const region = root.querySelector(`[data-role=${role}]`);
    if (!region) return;
    const target = role === "scores" ? region
      : region.querySelector(".wb-doc[tabindex='0']") || region.querySelector(".wb-doc")
        || region.querySelector("input[type=text]");
    if (target) target.focus();
  };

  const jumpOf = (e) => (e.altKey && !e.ctrlKey && !e.metaKey ? jumps()[e.code] : undefined);

  // A fresh page: the body has the focus and the workbench's own listener hears nothing. Only the page's first
  // workbench answers, and only while no element has the focus (JupyterLab's notebook always has it).
  const unfocused = (e) => {
    const role = jumpOf(e);
    const nothing = !document.activeElement || document.activeElement === document.body
      || document.activeElement === document.documentElement;
    if (!role || !nothing || document.querySelector(".wb-workbench") !== root) return;
    e.preventDefault();
    jump(role);
  };

  const keys = (e) => {
    const role = jumpOf(e);
    if (role) {
      e.preventDefault();
      e.stopPropagation();
      const input = field(document.activeElement);
      if (input) commit(input);
      jump(role);
      return;
    }
    if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
    const key = e.key.toLowerCase();
    if (key !== "z" && key !== "y") return;
    if (e.target.closest && e.target.closest(".wb-exchange, .wb-quiz")) return;  // plain text boxes: their own undo
    e.preventDefault();
    e.stopPropagation();
    const input = field(e.target);
    if (input && timers.has(input) && key === "z" && !e.shiftKey) {   // typing not committed yet: taken back
      clearTimeout(timers.get(input));
      timers.delete(input);
      input.value = committed.get(input);
      return;
    }
    if (input) commit(input);
    model.send({kind: key === "y" || e.shiftKey ? "redo" : "undo"});
  };

  // JupyterLab scrolls to each cell Run All reaches: until the user acts in the notebook (or a minute has passed),
  // every scroll that was not theirs comes back to the workbench's cell.
  let unpin = () => {};
  const pin = () => {
    const cell = root.closest(".jp-Cell");
    const scroller = root.closest(".jp-WindowedPanel-outer");
    if (!cell || !scroller) return;                  // not in a JupyterLab notebook: nothing to keep in view
    const hold = () => {
      if (!cell.isConnected) return;                 // a windowed notebook took the cell out: nothing to measure
      const offset = cell.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
      if (Math.abs(offset) > 1) scroller.scrollTop += offset;
    };
    const acts = ["wheel", "pointerdown", "keydown", "touchstart"];
    const timer = setTimeout(() => unpin(), 60_000);
    unpin = () => {
      clearTimeout(timer);
      scroller.removeEventListener("scroll", hold);
      acts.forEach((kind) => scroller.removeEventListener(kind, unpin, true));
      unpin = () => {};
    };
    scroller.addEventListener("scroll", hold);
    acts.forEach((kind) => scroller.addEventListener(kind, unpin, true));
    hold();
  };

  const start = () => {
    if (stopped) return;
    root = el.closest(".wb-workbench");
    if (!root) { setTimeout(start, 50); return; }     // not attached to the page yet
    root.dataset.lmSuppressShortcuts = "true";          // JupyterLab: keys inside the workbench are its own
    root.addEventListener("keydown", keys, true);       // capture: before text boxes stop the event
    root.addEventListener("beforeinput", typing, true);
    root.addEventListener("input", typed, true);
    root.addEventListener("change", changed, true);
    document.addEventListener("keydown", unfocused);
    observer = new MutationObserver(apply);
    observer.observe(root, {subtree: true, childList: true, attributes: true, attributeFilter: ["class"]});
    apply();
    pin();
    model.send({kind: "shown"});
  };
  model.on("change:labels", () => root && apply());
  start();
  return () => {
    stopped = true;
    unpin();
    if (observer) observer.disconnect();
    if (root) {
      root.removeEventListener("keydown", keys, true);
      root.removeEventListener("beforeinput", typing, true);
      root.removeEventListener("input", typed, true);
      root.removeEventListener("change", changed, true);
    }
    document.removeEventListener("keydown", unfocused);
  };
}

export default { render };
