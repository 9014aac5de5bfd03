"""The version, written here only: ``pyproject.toml`` reads it (``dynamic = ["version"]``), and
``workbench.__version__`` and ``python -m workbench --version`` show it. CHANGELOG.md says what each one holds."""

__all__ = ["__version__"]

__version__ = "0.2.0"
