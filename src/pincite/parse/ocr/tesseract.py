"""Tesseract 5 through tesserocr: one page image (8-bit grey) → lines of words, each word
with its box in pixels and Tesseract's confidence (0-100, a score of the engine, not a
probability).

`Tesseract(languages)` loads the packs once (about 0.3 s) and reads image after image.
`engine_info(languages)` names what read a layer: engine, version, binding, language
packs and the sha256 of each pack file, so a layer says exactly what produced it.
A skewed scan is turned upright first (Tesseract's layout analysis measures the skew; past
`DESKEW_MIN` the image is rotated and read again, and the word boxes are turned back onto
the page): on a page with a hanging indent, 1.5° of skew otherwise splits the clause
numbers into a column of their own.
Recognition is single-threaded (the wheel's Tesseract is built without OpenMP), so the
same image and packs give the same words.
"""

from __future__ import annotations

import hashlib
import math
import os
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ...errors import MissingExtra, OcrLanguageMissing, OcrUnavailable

ENGINE = "tesseract"
_BICUBIC = 3  # PIL.Image.Resampling.BICUBIC
TESSDATA_DIRS = ("/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata",
                 "/usr/share/tessdata", "/usr/local/share/tessdata")
_DIGESTS: dict[tuple[str, int, int], str] = {}
DESKEW_MIN = 0.002  # radians (about 0.1°): less skew than this is read as it is


@dataclass(frozen=True, slots=True)
class OcrWord:
    """One recognised word: its text, box in pixels (x0, top, x1, bottom) on the image as
    given, confidence 0-100, and — on a skewed image read upright — its box upright."""

    text: str
    box: tuple[int, int, int, int]
    confidence: float
    upright: tuple[int, int, int, int] | None = None


@dataclass(frozen=True, slots=True)
class OcrLine:
    """One text line as Tesseract reads it: its box (upright, when the image was turned
    upright to be read) and row height (ascender to descender, the font's size whatever
    letters the line holds) in pixels, words left to right."""

    box: tuple[int, int, int, int]
    height: float
    words: tuple[OcrWord, ...]


@dataclass(frozen=True, slots=True)
class EngineInfo:
    """What reads the pages: engine and version, the binding, the language packs and the
    sha256 of each pack file."""

    engine: str
    version: str
    binding: str
    languages: tuple[str, ...]
    packs: dict[str, str] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """Return the record a text layer keeps (`meta["ocr"]`)."""
        return {"engine": self.engine, "version": self.version, "binding": self.binding,
                "languages": list(self.languages),
                "packs": [{"language": k, "sha256": self.packs[k]} for k in self.languages]}


def tessdata_dir() -> Path | None:
    """Return the folder of the installed language packs: `$TESSDATA_PREFIX` when set (the
    folder itself or its `tessdata/`; as for Tesseract, it then is the only place looked
    at), else the first usual folder holding a pack; None if there is none."""
    env = os.environ.get("TESSDATA_PREFIX")
    candidates = [Path(env), Path(env) / "tessdata"] if env else [Path(p) for p in TESSDATA_DIRS]
    for c in candidates:
        if c.is_dir() and any(c.glob("*.traineddata")):
            return c
    return None


def installed_languages() -> list[str]:
    """Return the language packs installed in `tessdata_dir()` (without `osd`), sorted."""
    folder = tessdata_dir()
    if folder is None:
        return []
    return sorted(p.stem for p in folder.glob("*.traineddata") if p.stem != "osd")


def _digest(path: Path) -> str:
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    found = _DIGESTS.get(key)
    if found is None:
        h = hashlib.sha256()
        with path.open("rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        found = _DIGESTS[key] = h.hexdigest()
    return found


def _tesserocr() -> Any:
    try:
        import tesserocr
    except ImportError:  # a core dependency: a broken install
        raise MissingExtra("tesserocr", "ocr") from None
    return tesserocr


def check_languages(languages: tuple[str, ...]) -> Path:
    """Return the tessdata folder when every pack of `languages` is installed; raise
    OcrLanguageMissing naming the first missing one (and the installed ones)."""
    folder = tessdata_dir()
    for lang in languages:
        if folder is None or not (folder / f"{lang}.traineddata").is_file():
            raise OcrLanguageMissing(lang, str(folder) if folder else None,
                                     installed_languages())
    assert folder is not None
    return folder


def engine_info(languages: tuple[str, ...]) -> EngineInfo:
    """Return the engine record for `languages`; raise OcrLanguageMissing or MissingExtra."""
    folder = check_languages(languages)
    tesserocr = _tesserocr()
    version = tesserocr.tesseract_version().split()[1]
    return EngineInfo(ENGINE, version, f"tesserocr {tesserocr.__version__}", languages,
                      {lang: _digest(folder / f"{lang}.traineddata") for lang in languages})


def _clean(text: str) -> str:
    """Return a word in NFC without control or format characters (Tesseract may emit them)."""
    text = unicodedata.normalize("NFC", text)
    return "".join(ch for ch in text if unicodedata.category(ch) not in ("Cc", "Cf", "Zl", "Zp"))


def _unturn(angle: float, size: tuple[int, int]) -> Any:
    """Return a function mapping a box of the image turned by `angle` (radians, counter-
    clockwise, about its centre) back to the unturned image: the bounds of its corners."""
    cx, cy = size[0] / 2, size[1] / 2
    c, s = math.cos(angle), math.sin(angle)

    def back(box: tuple[int, int, int, int]) -> tuple[int, int, int, int]:
        xs, ys = [], []
        for x, y in ((box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])):
            dx, dy = x - cx, y - cy
            xs.append(cx + dx * c - dy * s)
            ys.append(cy + dx * s + dy * c)
        return (int(round(min(xs))), int(round(min(ys))), int(round(max(xs))), int(round(max(ys))))

    return back


class Tesseract:
    """A loaded Tesseract for a set of language packs; `read` recognises one image."""

    def __init__(self, languages: tuple[str, ...]) -> None:
        self.info = engine_info(languages)
        tesserocr = _tesserocr()
        self._ril = tesserocr.RIL
        self._iterate = tesserocr.iterate_level
        folder = check_languages(languages)
        try:
            self._api = tesserocr.PyTessBaseAPI(path=str(folder) + os.sep, lang="+".join(languages),
                                                psm=tesserocr.PSM.AUTO, oem=tesserocr.OEM.LSTM_ONLY)
        except RuntimeError as exc:
            raise OcrUnavailable(f"Tesseract could not load {'+'.join(languages)} from "
                                 f"{folder}: {exc}") from None

    def close(self) -> None:
        """Free the engine."""
        self._api.End()

    def read(self, image: Any, *, dpi: int, seconds: float) -> list[OcrLine] | None:
        """Return the lines of a PIL image in Tesseract's reading order, or None when the
        recognition took over `seconds` and was given up."""
        api, ril = self._api, self._ril
        api.SetImage(image)
        api.SetSourceResolution(dpi)
        layout = api.AnalyseLayout()
        angle = float(layout.Orientation()[3]) if layout is not None else 0.0
        back = None
        if abs(angle) > DESKEW_MIN:
            image = image.rotate(math.degrees(angle), resample=_BICUBIC, fillcolor=255)
            api.SetImage(image)
            api.SetSourceResolution(dpi)
            back = _unturn(angle, image.size)
        if not api.Recognize(timeout=max(1, int(seconds * 1000))):
            api.Clear()
            return None
        lines: list[OcrLine] = []
        words: list[OcrWord] = []
        line_box: tuple[int, int, int, int] | None = None
        height = 0.0
        it = api.GetIterator()
        if it is None:
            return []
        for r in self._iterate(it, ril.WORD):
            if r.IsAtBeginningOf(ril.TEXTLINE):
                if words and line_box is not None:
                    lines.append(OcrLine(line_box, height, tuple(words)))
                words, line_box = [], r.BoundingBox(ril.TEXTLINE)
                row = r.RowAttributes() or {}
                height = float(row.get("row_height") or 0.0) - min(0.0, float(row.get("descenders") or 0.0))
            try:
                text = _clean(r.GetUTF8Text(ril.WORD) or "").strip()
            except RuntimeError:  # tesserocr's "No text returned": an empty word
                continue
            box = r.BoundingBox(ril.WORD)
            if not text or box is None or box[2] <= box[0] or box[3] <= box[1]:
                continue
            conf = round(float(r.Confidence(ril.WORD)), 2)
            if back is None:
                words.append(OcrWord(text, tuple(box), conf))  # type: ignore[arg-type]
            else:
                words.append(OcrWord(text, back(box), conf, tuple(box)))  # type: ignore[arg-type]
        if words and line_box is not None:
            lines.append(OcrLine(line_box, height, tuple(words)))
        api.Clear()
        return lines
