"""The reliability diagram: accepted fraction per confidence bin against the diagonal,
with Wilson intervals and label counts, drawn by matplotlib (Agg/SVG canvases, no pyplot
state), as PNG or SVG bytes."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any


def reliability_diagram(bins: Sequence[dict[str, Any]], *, title: str = "Reliability",
                        fmt: str = "svg") -> bytes:
    """Return the diagram of calibration bins (`BinStat.to_dict()` rows) as `svg` or `png`."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(5.2, 4.2), dpi=100)
    ax = fig.add_subplot(1, 1, 1)
    ax.plot([0, 1], [0, 1], linestyle="--", color="#888888", linewidth=1, label="perfect calibration")
    xs, ys, lo, hi, ns = [], [], [], [], []
    for b in bins:
        if not b.get("n"):
            continue
        x = b["mean_confidence"] if b.get("mean_confidence") is not None else (b["lo"] + b["hi"]) / 2
        xs.append(x)
        ys.append(b["fraction_accepted"])
        lo.append(b["fraction_accepted"] - b["wilson_low"])
        hi.append(b["wilson_high"] - b["fraction_accepted"])
        ns.append(b["n"])
    for i, b in enumerate(bins):
        ax.axvspan(b["lo"], b["hi"], color="#eef1f5" if i % 2 else "#f8f9fb", zorder=0)
    if xs:
        ax.errorbar(xs, ys, yerr=[lo, hi], fmt="o-", color="#1f5fa8", ecolor="#7aa6d6",
                    capsize=3, label="accepted unchanged (Wilson 95 %)")
        for x, y, n in zip(xs, ys, ns, strict=True):
            ax.annotate(f"n={n}", (x, y), textcoords="offset points", fontsize=8,
                        xytext=(-26 if x > 0.9 else 4, -12))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("self-reported confidence")
    ax.set_ylabel("fraction accepted unchanged")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    buf = io.BytesIO()
    if fmt == "png":
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig).print_png(buf)
    elif fmt == "svg":
        from matplotlib.backends.backend_svg import FigureCanvasSVG

        FigureCanvasSVG(fig).print_svg(buf)
    else:
        raise ValueError(f"unknown format {fmt!r}: use svg or png")
    return buf.getvalue()
