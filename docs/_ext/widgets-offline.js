// The notebook pages' widgets from the site (docs/_ext/offline_assets.py copies this file to
// _static/offline/widgets-offline.js, loaded before require.js on the pages with widgets).
(function () {
  "use strict";
  const NOTE = "An interactive view that cannot be shown on this page: run the notebook (./wb lab) to use it.";
  const VIEWS = 'script[type="application/vnd.jupyter.widget-view+json"]';
  const here = document.currentScript.src;

  // require.js (loaded next) reads its configuration from this object: anywidget's module from the site, where
  // the widget manager finds it before it would try a CDN; the manager's modules (defined in embed-amd.js) placed
  // beside it, where their bundles look for the icon fonts (in the folder of the module's address), as the
  // manager's own bundle does (in __jupyter_widgets_assets_path__).
  const config = (typeof window.require === "object" && window.require) || {};
  config.paths = Object.assign({}, config.paths, {
    "anywidget": new URL("anywidget", here).href,
    "@jupyter-widgets": new URL("html-manager", here).href,
  });
  window.require = config;
  window.__jupyter_widgets_assets_path__ = new URL("html-manager/", here).href;

  const line = () => {
    const note = document.createElement("p");
    note.className = "widgets-offline";
    note.textContent = NOTE;
    return note;
  };

  // A widget the manager did not draw (its script did not load, or its rendering failed): the note in place of
  // its empty box.
  const undrawn = () => document.querySelectorAll(VIEWS).forEach((view) => {
    const area = view.previousElementSibling;
    if (area && area.classList.contains("widget-subarea")) {
      if (area.getBoundingClientRect().height > 0) return;
      area.remove();
    }
    view.replaceWith(line());
  });
  const soon = () => document.readyState === "loading" ? document.addEventListener("DOMContentLoaded", undrawn)
    : undrawn();
  window.addEventListener("error", (event) => {  // capturing: a script's load error does not bubble
    if (event.target instanceof HTMLScriptElement && event.target.src.includes("html-manager")) soon();
  }, true);
  window.addEventListener("unhandledrejection", () => setTimeout(soon, 1000));  // the other views drawn first

  // A widget whose module could not be loaded: the manager draws "Click to show javascript error."; the note
  // above it says what it means.
  new MutationObserver(() => document.querySelectorAll(".jupyter-widgets-error-widget").forEach((error) => {
    const before = error.previousElementSibling;
    if (!(before && before.classList.contains("widgets-offline"))) error.before(line());
  })).observe(document.documentElement, {childList: true, subtree: true});
})();
