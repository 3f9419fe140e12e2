"""Skips a user must hear about: missing ../shared/data folders and a missing Chromium.

A user's clone has no `../shared/data` beside it. A test that reads a folder there carries
`@pytest.mark.shared_data("cuad", ...)` (folders relative to the data root) and reads its
files through `shared_path` / `shared_files`. When a folder is absent the test is skipped
with the reason, and the terminal summary prints one line with the count. When the folder
is present but holds nothing to check, `shared_files` fails the test instead of letting it
pass on nothing.

The data root is `$PINCITE_SHARED_DATA` if set (`PINCITE_SHARED_DATA=/nonexistent`
simulates a fresh clone), else `../shared/data` beside the repository.

`@pytest.mark.chromium` marks browser tests: without Chromium they skip, and the summary
says how to install it. `@pytest.mark.tesseract` marks OCR tests the same way: they need
tesserocr and the English and Spanish Tesseract language packs.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENV = "PINCITE_SHARED_DATA"
CHROMIUM_ENV = "PINCITE_CHROMIUM"
INSTALL_CHROMIUM = "apt-get install chromium"
INSTALL_TESSERACT = "apt-get install tesseract-ocr tesseract-ocr-eng tesseract-ocr-spa"

# What a loud skip leaves on its setup report (`user_properties`), so the summary counts it
# in the process that prints it: the same one, or the controller of a `pytest -n` run.
SKIP_PROPERTY = "pincite_loud_skip"
_missing_data: pytest.StashKey[dict[str, tuple[str, ...]]] = pytest.StashKey()
_missing_browser: pytest.StashKey[list[str]] = pytest.StashKey()
_missing_ocr: pytest.StashKey[list[str]] = pytest.StashKey()


def shared_root() -> Path:
    """Return the folder that holds the shared evaluation data (it may not exist)."""
    env = os.environ.get(ENV)
    return Path(env) if env else ROOT.parent / "shared" / "data"


def shared_path(relative: str) -> Path:
    """Return `relative` under the shared data root; the marker has checked its folder."""
    return shared_root() / relative


def shared_files(relative: str, pattern: str = "*") -> list[Path]:
    """Return the files matching `pattern` in a shared folder, failing the test if there are none."""
    folder = shared_path(relative)
    found = sorted(p for p in folder.glob(pattern) if p.is_file())
    if not found:
        pytest.fail(f"{folder} is present but holds no {pattern}: the test would check nothing",
                    pytrace=False)
    return found


def chromium_path() -> str | None:
    """Return the Chromium executable to drive ($PINCITE_CHROMIUM, /usr/bin/chromium, PATH)."""
    for candidate in (os.environ.get(CHROMIUM_ENV), "/usr/bin/chromium"):
        if candidate and Path(candidate).exists():
            return candidate
    return shutil.which("chromium")


def tesseract_problem() -> str | None:
    """Return why OCR cannot run here (tesserocr or the eng/spa packs missing), or None."""
    try:
        import tesserocr  # noqa: F401
    except ImportError:
        return "tesserocr is not installed (pip install 'pincite[ocr]')"
    from pincite.parse.ocr import installed_languages

    missing = sorted({"eng", "spa"} - set(installed_languages()))
    return f"Tesseract language packs missing: {', '.join(missing)}" if missing else None


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "shared_data(*folders): reads ../shared/data/<folder>; skipped (and counted) "
                   "when a folder is absent")
    config.addinivalue_line(
        "markers", f"chromium: drives Chromium; skipped (and said so) when it is absent "
                   f"({INSTALL_CHROMIUM})")
    config.addinivalue_line(
        "markers", f"tesseract: runs OCR; skipped (and said so) when Tesseract or its eng/spa "
                   f"packs are absent ({INSTALL_TESSERACT})")
    config.stash[_missing_data] = {}
    config.stash[_missing_browser] = []
    config.stash[_missing_ocr] = []
    config.pluginmanager.register(_SkipCounter(config), "pincite-loud-skip-counter")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    folders = [f for m in item.iter_markers("shared_data") for f in m.args]
    root = shared_root()
    missing = tuple(f for f in folders if not (root / f).is_dir())
    if missing:
        item.user_properties.append((SKIP_PROPERTY, ["data", *missing]))
        pytest.skip(f"../shared/data not present: {', '.join(str(root / f) for f in missing)}")
    if item.get_closest_marker("chromium") and chromium_path() is None:
        item.user_properties.append((SKIP_PROPERTY, ["chromium"]))
        pytest.skip(f"Chromium is not installed ({INSTALL_CHROMIUM}, or set {CHROMIUM_ENV})")
    if item.get_closest_marker("tesseract") and (why := tesseract_problem()) is not None:
        item.user_properties.append((SKIP_PROPERTY, ["tesseract"]))
        pytest.skip(f"OCR cannot run: {why} ({INSTALL_TESSERACT})")


class _SkipCounter:
    """Counts the loud skips from the setup reports this process receives."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when != "setup" or not report.skipped:
            return
        for name, value in report.user_properties:
            if name != SKIP_PROPERTY:
                continue
            kind, *folders = value  # type: ignore[misc]
            if kind == "data":
                self.config.stash[_missing_data][report.nodeid] = tuple(folders)
            elif kind == "chromium":
                self.config.stash[_missing_browser].append(report.nodeid)
            else:
                self.config.stash[_missing_ocr].append(report.nodeid)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" + ("" if n == 1 else "s")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int,
                            config: pytest.Config) -> None:
    missing = config.stash.get(_missing_data, {})
    if missing:
        tops = sorted({f.split("/")[0] for folders in missing.values() for f in folders})
        terminalreporter.write_line(
            f"{_count(len(missing), 'test')} skipped: ../shared/data not present "
            f"({', '.join(tops)}) under {shared_root()}", yellow=True, bold=True)
    browser = config.stash.get(_missing_browser, [])
    if browser:
        terminalreporter.write_line(
            f"{_count(len(browser), 'browser test')} skipped: Chromium not found; install it "
            f"with `{INSTALL_CHROMIUM}` (or set {CHROMIUM_ENV}=/path/to/chromium)",
            yellow=True, bold=True)
    ocr = config.stash.get(_missing_ocr, [])
    if ocr:
        terminalreporter.write_line(
            f"{_count(len(ocr), 'OCR test')} skipped: {tesseract_problem()}; install with "
            f"`{INSTALL_TESSERACT}`", yellow=True, bold=True)
