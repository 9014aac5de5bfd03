"""Shared test helpers: where the real evaluation data beside the project lives."""

from pathlib import Path

import pytest

from workbench.datasets import shared

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"


def shared_dataset(*parts: str) -> Path:
    """Path to ``../shared/datasets/<parts>``; skips the test with a clear message where it is absent."""
    path = shared(*parts)
    if path is None:
        pytest.skip(f"{SHARED_DATASETS.joinpath(*parts)} is absent: the real evaluation samples live beside the "
                    "project (../shared/datasets)")
    return path

