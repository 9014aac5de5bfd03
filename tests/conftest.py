"""Shared test helpers: where the real evaluation data beside the project lives.

The real samples notebooks fetch (``workbench.datasets.fetch``) come from ``../shared/datasets`` as a mirror when it
is there (CI, the project's machines), into a cache under ``test-output/``; tests never reach the public URLs."""

import os
from pathlib import Path

import pytest

from workbench.datasets import shared

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = ROOT.parent / "shared" / "datasets"
if SHARED_DATASETS.is_dir():
    os.environ.setdefault("WORKBENCH_DATA_MIRROR", str(SHARED_DATASETS))
os.environ.setdefault("WORKBENCH_CACHE", str(ROOT / "test-output" / "cache"))


def shared_dataset(*parts: str) -> Path:
    """Path to ``../shared/datasets/<parts>``; skips the test with a clear message where it is absent."""
    path = shared(*parts)
    if path is None:
        pytest.skip(f"{SHARED_DATASETS.joinpath(*parts)} is absent: the real evaluation samples live beside the "
                    "project (../shared/datasets)")
    return path

