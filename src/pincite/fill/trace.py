"""OpenTelemetry spans of a fill, exported as JSON lines (`--trace FILE`) and to an OTLP
endpoint when `OTEL_EXPORTER_OTLP_ENDPOINT` is set and the OTLP exporter is installed.

Span names and attributes are the seed's: `solve.exec`, `facts.build`, `retrieval.tables`,
`alignment.table`, `candidate.rank`, `coverage.validate`, each with `artifact.path`.
The tracer provider is the fill's own (the global one is never replaced). Without the
`trace` extra (opentelemetry-sdk), asking for a trace file raises MissingExtra.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import MissingExtra

SPAN_NAMES = ("solve.exec", "facts.build", "retrieval.tables", "alignment.table",
              "candidate.rank", "coverage.validate")


def _span_json(span: Any) -> dict[str, Any]:
    ctx = span.get_span_context()
    parent = span.parent
    return {"name": span.name, "trace_id": format(ctx.trace_id, "032x"),
            "span_id": format(ctx.span_id, "016x"),
            "parent_id": format(parent.span_id, "016x") if parent else None,
            "start_ns": span.start_time, "end_ns": span.end_time,
            "status": span.status.status_code.name,
            "attributes": dict(span.attributes or {})}


class Tracer:
    """Start spans (`span(name, attrs)`); a disabled tracer records nothing."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._provider: Any = None
        self._tracer: Any = None
        if path is None:
            return
        try:
            from opentelemetry.sdk.trace import TracerProvider
            from opentelemetry.sdk.trace.export import (
                SimpleSpanProcessor,
                SpanExporter,
                SpanExportResult,
            )
        except ImportError:
            raise MissingExtra("opentelemetry-sdk", "trace") from None

        file = path

        class JsonLines(SpanExporter):  # type: ignore[misc]
            """Appends each finished span to the trace file as one JSON line."""

            def export(self, spans: Sequence[Any]) -> Any:
                """Write the spans; return SUCCESS."""
                with open(file, "a", encoding="utf-8") as f:
                    for s in spans:
                        f.write(json.dumps(_span_json(s), ensure_ascii=False) + "\n")
                return SpanExportResult.SUCCESS

        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("", encoding="utf-8")
        self._provider = TracerProvider()
        self._provider.add_span_processor(SimpleSpanProcessor(JsonLines()))
        if os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
            try:
                from opentelemetry.exporter.otlp.proto.http.trace_exporter import (
                    OTLPSpanExporter,
                )
                from opentelemetry.sdk.trace.export import BatchSpanProcessor

                self._provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
            except ImportError:
                pass  # the JSON lines still hold every span
        self._tracer = self._provider.get_tracer("pincite.fill")

    @contextmanager
    def span(self, name: str, attrs: Mapping[str, Any] | None = None) -> Iterator[Any]:
        """Yield a span (or None when disabled) with these attributes."""
        if self._tracer is None:
            yield None
            return
        with self._tracer.start_as_current_span(name) as s:
            for k, v in (attrs or {}).items():
                if v is not None:
                    s.set_attribute(k, v)
            yield s

    def close(self) -> None:
        """Flush and shut the provider down."""
        if self._provider is not None:
            self._provider.shutdown()


def default_trace(out: Path | None) -> Path | None:
    """Return `out/trace.jsonl` when there is an output folder and the SDK is installed."""
    if out is None:
        return None
    try:
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        return None
    return Path(out) / "trace.jsonl"


def set_attrs(span: Any, attrs: Mapping[str, Any]) -> None:
    """Set attributes on a span when there is one."""
    if span is not None:
        for k, v in attrs.items():
            if v is not None:
                span.set_attribute(k, v)


def read_spans(path: Path) -> list[dict[str, Any]]:
    """Return the spans of a JSON-lines trace file."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
