"""The parser sandbox: limits in a child process, typed failures, and a parent that survives.

The hostile behaviours (sleeping, allocating, spinning, crashing) come from the test seam
in `pincite.sources.sandbox`: with `PINCITE_SANDBOX_TEST` set, the worker accepts the
kinds `__sleep__`, `__alloc__`, `__spin__`, `__crash__` and `__raise__`.
"""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

import pincite
from pincite.errors import ParseFailure, UsageError
from pincite.limits import Limits
from pincite.model import Element, Geometry, TextLayer
from pincite.sources import sandbox as sandbox_module
from pincite.sources.sandbox import TEST_ENV, ParserSandbox, parse_untrusted

LIMITS = Limits(parse_seconds=2.0, parse_cpu_seconds=1, parse_memory_bytes=512 << 20)
TEXT = b"Clause 1. The supplier shall deliver.\n\nClause 2. Payment within 30 days.\n"
CSV = b"item,amount\nbolts,12\nnuts,30\n"


@pytest.fixture
def sb(monkeypatch: pytest.MonkeyPatch) -> Iterator[ParserSandbox]:
    monkeypatch.setenv(TEST_ENV, "1")  # inherited by the worker when it starts
    with ParserSandbox(LIMITS) as box:
        yield box


def fail(sb: ParserSandbox, kind: str) -> ParseFailure:
    with pytest.raises(ParseFailure) as info:
        sb.parse(kind, b"anything")
    return info.value


def test_parses_in_a_reused_worker(sb: ParserSandbox) -> None:
    layer = sb.parse("text", TEXT)
    assert isinstance(layer, TextLayer) and "Payment within 30 days." in layer.text
    pid = sb.worker_pid
    assert pid is not None and pid != os.getpid()
    table = sb.parse("csv", CSV)
    assert "bolts" in table.text and any(e.kind == "cell" for e in table.elements)
    assert sb.worker_pid == pid  # the same worker served both
    assert sb.parse("text", TEXT) == parse_untrusted("text", TEXT, password=None,
                                                     limits=LIMITS, sandbox=False)


def test_timeout_kills_the_worker_and_the_next_parse_works(sb: ParserSandbox) -> None:
    sb.parse("text", TEXT)
    pid = sb.worker_pid
    started = time.monotonic()
    failure = fail(sb, "__sleep__")
    assert failure.reason == "timeout" and "2 s" in failure.detail
    assert time.monotonic() - started < LIMITS.parse_seconds + 3
    assert sb.worker_pid is None
    assert "supplier" in sb.parse("text", TEXT).text
    assert sb.worker_pid not in (None, pid)


def test_memory_limit(sb: ParserSandbox) -> None:
    failure = fail(sb, "__alloc__")
    assert failure.reason == "over_limit" and "memory" in failure.detail
    assert "bolts" in sb.parse("csv", CSV).text


def test_cpu_limit(sb: ParserSandbox) -> None:
    # a wall clock long enough that only the CPU budget (1-2 s) can stop the spin
    with ParserSandbox(Limits(parse_seconds=30.0, parse_cpu_seconds=1)) as box:
        box.parse("text", TEXT)
        failure = fail(box, "__spin__")
        assert failure.reason == "timeout" and "CPU" in failure.detail
        assert "supplier" in box.parse("text", TEXT).text


def test_crash_and_exception(sb: ParserSandbox) -> None:
    failure = fail(sb, "__crash__")
    assert failure.reason == "malformed" and "exit status 3" in failure.detail
    assert "supplier" in sb.parse("text", TEXT).text
    failure = fail(sb, "__raise__")
    assert failure.reason == "malformed" and "ValueError" in failure.detail
    assert "supplier" in sb.parse("text", TEXT).text


def test_parser_failure_passes_through(sb: ParserSandbox) -> None:
    # one cell over the limit: the CSV parser itself decides (truncate or refuse)
    tiny = Limits(parse_seconds=5.0, max_text_chars=10, max_table_cells=1)
    with ParserSandbox(tiny) as box:
        try:
            layer = box.parse("csv", CSV * 50)
        except ParseFailure as f:
            assert f.reason in ("over_limit", "malformed") and f.detail
        else:
            assert "truncated" in layer.flags


def test_unknown_kind_is_a_usage_error(sb: ParserSandbox) -> None:
    with pytest.raises(UsageError):
        sb.parse("exe", b"x")
    with pytest.raises(UsageError):  # the test kinds never run in-process
        parse_untrusted("__crash__", b"x", password=None, limits=LIMITS, sandbox=False)


def test_test_kinds_need_the_env_var(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TEST_ENV, raising=False)
    with pytest.raises(UsageError):
        ParserSandbox(LIMITS).parse("__sleep__", b"")


def test_bad_argument_leaves_the_worker_in_step(sb: ParserSandbox) -> None:
    sb.parse("text", TEXT)
    with pytest.raises(UsageError):
        sb.parse("text", None)  # type: ignore[arg-type]
    assert "supplier" in sb.parse("text", TEXT).text


def test_interrupted_parse_stops_the_worker(sb: ParserSandbox) -> None:
    class Interrupted(Exception):
        pass

    def interrupt(*_: object) -> None:
        raise Interrupted

    sb.parse("text", TEXT)
    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.3)
    try:
        with pytest.raises(Interrupted):
            sb.parse("__sleep__", b"")  # its late reply must never reach the next parse
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert sb.worker_pid is None
    assert "bolts" in sb.parse("csv", CSV).text


def test_in_process_maps_unexpected_exceptions() -> None:
    with pytest.raises(ParseFailure) as info:
        parse_untrusted("text", None, password=None, limits=LIMITS, sandbox=False)  # type: ignore[arg-type]
    assert info.value.reason == "malformed" and "Error" in info.value.detail
    assert "bolts" in parse_untrusted("csv", CSV, password=None, limits=LIMITS).text


def test_close_is_idempotent_and_restartable() -> None:
    box = ParserSandbox(LIMITS)
    box.close()
    assert "supplier" in box.parse("text", TEXT).text
    box.close()
    box.close()
    assert box.worker_pid is None
    assert "supplier" in box.parse("text", TEXT).text
    box.close()


def test_text_layer_pickles_and_only_model_classes_come_back() -> None:
    layer = TextLayer(
        parser="pdf", version="1", text="ab",
        elements=(Element("page", 0, 2, "p. 1", page=1, bbox=(0.0, 0.0, 10.0, 10.0),
                          heading_path=("A",), flags=("hidden_text",)),),
        page_count=1, page_sizes=((612.0, 792.0),),
        geometry=Geometry.from_lists((1, 1), ((0.0, 0.0, 5.0, 10.0), (5.0, 0.0, 10.0, 10.0))),
        flags=("active_content",),
    )
    assert pickle.loads(pickle.dumps(layer)) == layer
    payload = pickle.dumps(("ok", layer), protocol=pickle.HIGHEST_PROTOCOL)
    assert sandbox_module._loads(payload) == ("ok", layer)

    class Evil:
        def __reduce__(self):  # type: ignore[no-untyped-def]
            return (os.system, ("echo pwned",))

    reply = sandbox_module._loads(pickle.dumps(("ok", Evil())))
    assert reply[0] == "error" and "unreadable" in reply[1]
    assert sandbox_module._loads(pickle.dumps(("ok", "not a layer")))[0] == "error"


GUARDLESS_SCRIPT = """\
import sys

sys.path.insert(0, {root!r})  # this pincite, whatever the environment would find

import pincite

lib = pincite.open({store!r}, create=True)
[result] = lib.ingest([{pdf!r}], tenant="acme", acl=["group:legal"])
print(result.status, result.revision_id, pincite.__file__ == {init!r})
lib.close()
"""


def test_a_script_without_a_main_guard_can_ingest(tmp_path: Path) -> None:
    # no `if __name__ == "__main__":` in the script: the sandbox must not re-import it, and
    # its worker must import the pincite the script put on sys.path (no PYTHONPATH here)
    pdf = Path(__file__).resolve().parents[2] / "examples" / "tender" / "pliego.pdf"
    script = tmp_path / "ingest_one.py"
    script.write_text(GUARDLESS_SCRIPT.format(
        root=str(Path(pincite.__file__).parents[1]), store=str(tmp_path / "store"),
        pdf=str(pdf), init=pincite.__file__), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["new", "r1", "True"]
    assert "Traceback" not in run.stderr


def test_pages_read_by_ocr_renew_the_wall_clock_up_to_the_pages_allowed(monkeypatch):
    from dataclasses import replace

    from pincite.limits import OcrSettings

    monkeypatch.setenv(TEST_ENV, "1")
    # 1.5 s for the parse, then 1.6 s after each page: three pages a second apart get through
    # (3 s in all) and the worker's own failure comes back, not a timeout
    beats = replace(LIMITS, parse_seconds=1.5, ocr=OcrSettings(page_seconds=0.1, max_pages=3))
    with ParserSandbox(beats) as box, pytest.raises(ParseFailure) as info:
        box.parse("__pages__", b"")
    assert info.value.reason == "malformed" and "test hook asked to fail" in info.value.detail
    # a worker that says it read more pages than the settings allow is stopped
    with ParserSandbox(replace(beats, ocr=OcrSettings(page_seconds=0.1, max_pages=1))) as box:
        with pytest.raises(ParseFailure) as info:
            box.parse("__pages__", b"")
        assert box.worker_pid is None
    assert "more pages read by OCR than the settings allow" in info.value.detail
    # without OCR pages the wall clock stays the parse's own
    with ParserSandbox(replace(beats, parse_seconds=0.5)) as box, pytest.raises(ParseFailure) as info:
        box.parse("__pages__", b"")
    assert info.value.reason == "timeout" and "longer than 0.5 s" in info.value.detail
