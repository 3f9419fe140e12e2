"""OCR: page images → words with boxes and confidences (`tesseract`).

The engine is Tesseract 5 through tesserocr (docs/ocr.md says why, with the figures);
language packs are the system's `*.traineddata` files (Debian: `tesseract-ocr-eng`,
`tesseract-ocr-spa`), found in `$TESSDATA_PREFIX` or the usual tessdata folders. The PDF
parser decides which pages to read (`pdf.scanned`); this package only reads images.
"""

from ...errors import OcrUnavailable
from .tesseract import (
    ENGINE,
    EngineInfo,
    OcrLine,
    OcrWord,
    Tesseract,
    check_languages,
    engine_info,
    installed_languages,
    tessdata_dir,
)

__all__ = ["ENGINE", "EngineInfo", "OcrLine", "OcrUnavailable", "OcrWord", "Tesseract",
           "check_languages", "engine_info", "installed_languages", "tessdata_dir"]
