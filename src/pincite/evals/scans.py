"""Scanned copies of born-digital PDFs: pages drawn to images, wrapped as image-only PDFs.

`scan_pdf(data, variant=…)` draws each page with pypdfium2 (the page as shown) and writes
the images as a PDF with no text layer, one image per page at the page's size, JPEG-coded
as scanners do. The variants are the degradations the OCR eval reports separately:

- `clean`: 300 dpi;
- `skew`: 300 dpi turned by a small angle (1-2°, the sign and size drawn per page);
- `lowres`: 150 dpi;
- `noise`: 300 dpi with grey noise (σ = 12 levels) and 0.1 % of pixels flipped to black
  or white, as a worn copy.

Everything random comes from a seeded generator: the same input gives the same scan.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from ..errors import UsageError

VARIANTS = ("clean", "skew", "lowres", "noise")
_DPI = {"clean": 300, "skew": 300, "lowres": 150, "noise": 300}


def render_pages(data: bytes, dpi: int, pages: Sequence[int] | None = None) -> list[Any]:
    """Return PIL grey images of the 1-based `pages` of a PDF (default: all) at `dpi`."""
    import pypdfium2 as pdfium

    pdf = pdfium.PdfDocument(data)
    try:
        numbers = list(pages) if pages is not None else list(range(1, len(pdf) + 1))
        return [pdf[n - 1].render(scale=dpi / 72.0, grayscale=True).to_pil() for n in numbers]
    finally:
        pdf.close()


def degrade(image: Any, variant: str, seed: int) -> Any:
    """Return `image` with the degradation of `variant` (see the module docstring)."""
    import numpy as np
    from PIL import Image

    if variant not in VARIANTS:
        raise UsageError(f"unknown scan variant {variant!r}; use one of {', '.join(VARIANTS)}")
    rng = np.random.default_rng(seed)
    if variant == "skew":
        angle = float(rng.uniform(1.0, 2.0)) * (1 if rng.integers(2) else -1)
        return image.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=255)
    if variant == "noise":
        arr = np.asarray(image, dtype=np.float64) + rng.normal(0.0, 12.0, image.size[::-1])
        flip = rng.random(arr.shape) < 0.001
        arr[flip] = rng.choice([0.0, 255.0], size=int(flip.sum()))
        return Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), mode="L")
    return image


def images_pdf(images: Sequence[Any], dpi: int) -> bytes:
    """Return an image-only PDF holding `images` (one page each, sized by `dpi`)."""
    if not images:
        raise UsageError("a scanned PDF needs at least one page image")
    import time

    out = io.BytesIO()
    first, rest = images[0], list(images[1:])
    fixed = time.gmtime(946_684_800)  # 2000-01-01, not the clock in the file: the same pages give the same bytes
    first.save(out, "PDF", resolution=float(dpi), save_all=True, append_images=rest, quality=90,
               creationDate=fixed, modDate=fixed)
    return out.getvalue()


def scan_pdf(data: bytes, *, variant: str = "clean", pages: Sequence[int] | None = None,
             seed: int = 0) -> bytes:
    """Return a scanned (image-only) copy of a PDF's `pages` (default: all) in `variant`."""
    if variant not in VARIANTS:
        raise UsageError(f"unknown scan variant {variant!r}; use one of {', '.join(VARIANTS)}")
    dpi = _DPI[variant]
    images = [degrade(img, variant, seed * 100_003 + k)
              for k, img in enumerate(render_pages(data, dpi, pages))]
    return images_pdf(images, dpi)
