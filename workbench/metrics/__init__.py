"""Pure metric kernels, one module per task, all reachable by name through :mod:`workbench.metrics.registry`."""

from workbench.metrics import registry


def _load_measures() -> None:
    """Import every module that registers measures: the registry calls this before its first look-up by name."""
    from workbench.metrics import baselines, classification, clustering, filtering, ranking, reliability  # noqa: F401


def _load_explanations() -> None:
    """Import the explanations of the measures: the registry calls this before its first question about one."""
    from workbench.metrics import explanations  # noqa: F401


registry.set_loader(_load_measures, _load_explanations)

from workbench.lazy import lazy_exports  # noqa: E402

_EXPORTS = {name: "workbench.metrics.registry" for name in ("Measure", "UnknownMeasureError", "evaluate", "measures")}
_EXPORTS["parse_measure"] = "workbench.metrics.registry:parse"
__all__ = sorted(_EXPORTS)

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, ("registry",))
