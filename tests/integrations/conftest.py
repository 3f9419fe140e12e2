"""Fixtures of the adapter tests: one small store shared by the package (read only)."""

from __future__ import annotations

import pytest

from tests.integrations.adapter_harness import build_store


@pytest.fixture(scope="package")
def tender_lib(tmp_path_factory):
    lib = build_store(tmp_path_factory.mktemp("adapters") / "store")
    yield lib
    lib.close()
