"""Pure metric kernels, one module per task, each measure declared once (:mod:`workbench.metrics.registry`) and
reachable by name."""

from workbench.metrics import registry


def _load_measures() -> None:
    """Import every module that declares measures: the registry calls this before its first look-up by name."""
    from workbench.metrics import baselines, classification, clustering, filtering, ranking, reliability  # noqa: F401


registry.set_loader(_load_measures)

from workbench.lazy import deprecated_names, lazy_exports  # noqa: E402

_EXPORTS = {name: "workbench.metrics.registry" for name in ("Measure", "UnknownMeasureError", "measures")}
_EXPORTS["parse_measure"] = "workbench.metrics.registry:parse"
__all__ = sorted(_EXPORTS)

_exported, __dir__ = lazy_exports(__name__, _EXPORTS, ("registry",))
__getattr__ = deprecated_names(__name__, {"evaluate": ("workbench.data.one_pair:evaluate", "workbench.evaluate")},
                               _exported)
