"""pdfium's raw entry points, re-declared with plain integer handles so each call is cheap.

pypdfium2's ctypes prototypes convert handles to and from pointer objects on every call;
the PDF parser makes millions of calls per document (one per character for boxes,
weights, font names), so `pdfium_fns()` re-declares the functions it uses over
`c_void_p`/`c_int` once per process and returns them in a namespace.
"""

from __future__ import annotations

import ctypes
from ctypes import CFUNCTYPE, c_int, c_uint, c_void_p
from types import SimpleNamespace
from typing import Any

_FN: Any = None


def pdfium_fns() -> Any:
    """Return pdfium entry points re-declared with plain integer handles (cheap calls)."""
    global _FN
    if _FN is None:
        import pypdfium2.raw as R

        def proto(fn: Any, res: Any, *args: Any) -> Any:
            address = ctypes.cast(fn, c_void_p).value
            assert address, "pypdfium2 gave a null function pointer"
            return CFUNCTYPE(res, *args)(address)

        P, INT = c_void_p, c_int
        _FN = SimpleNamespace(
            load_page=proto(R.FPDF_LoadPage, P, P, INT),
            close_page=proto(R.FPDF_ClosePage, None, P),
            load_text=proto(R.FPDFText_LoadPage, P, P),
            close_text=proto(R.FPDFText_ClosePage, None, P),
            count_chars=proto(R.FPDFText_CountChars, INT, P),
            get_text=proto(R.FPDFText_GetText, INT, P, INT, INT, P),
            unicode=proto(R.FPDFText_GetUnicode, c_uint, P, INT),
            loose_box=proto(R.FPDFText_GetLooseCharBox, INT, P, INT, P),
            char_angle=proto(R.FPDFText_GetCharAngle, ctypes.c_float, P, INT),
            generated=proto(R.FPDFText_IsGenerated, INT, P, INT),
            weight=proto(R.FPDFText_GetFontWeight, INT, P, INT),
            font_info=proto(R.FPDFText_GetFontInfo, ctypes.c_ulong, P, INT, P, ctypes.c_ulong, P),
            text_object=proto(R.FPDFText_GetTextObject, P, P, INT),
            bbox=proto(R.FPDF_GetPageBoundingBox, INT, P, P),
            rotation=proto(R.FPDFPage_GetRotation, INT, P),
            set_rotation=proto(R.FPDFPage_SetRotation, None, P, INT),
            count_objects=proto(R.FPDFPage_CountObjects, INT, P),
            get_object=proto(R.FPDFPage_GetObject, P, P, INT),
            form_count=proto(R.FPDFFormObj_CountObjects, INT, P),
            form_object=proto(R.FPDFFormObj_GetObject, P, P, ctypes.c_ulong),
            obj_type=proto(R.FPDFPageObj_GetType, INT, P),
            render_mode=proto(R.FPDFTextObj_GetTextRenderMode, INT, P),
            fill_color=proto(R.FPDFPageObj_GetFillColor, INT, P, P, P, P, P),
            stroke_color=proto(R.FPDFPageObj_GetStrokeColor, INT, P, P, P, P, P),
            obj_bounds=proto(R.FPDFPageObj_GetBounds, INT, P, P, P, P, P),
            draw_mode=proto(R.FPDFPath_GetDrawMode, INT, P, P, P),
            get_matrix=proto(R.FPDFPageObj_GetMatrix, INT, P, P),
            path_count=proto(R.FPDFPath_CountSegments, INT, P),
            path_segment=proto(R.FPDFPath_GetPathSegment, P, P, INT),
            segment_point=proto(R.FPDFPathSegment_GetPoint, INT, P, P, P),
            segment_type=proto(R.FPDFPathSegment_GetType, INT, P),
            segment_close=proto(R.FPDFPathSegment_GetClose, INT, P),
            transparent=proto(R.FPDFPageObj_HasTransparency, INT, P),
            clip_path=proto(R.FPDFPageObj_GetClipPath, P, P),
            clip_count=proto(R.FPDFClipPath_CountPaths, INT, P),
            clip_segments=proto(R.FPDFClipPath_CountPathSegments, INT, P, INT),
            clip_segment=proto(R.FPDFClipPath_GetPathSegment, P, P, INT, INT),
            count_marks=proto(R.FPDFPageObj_CountMarks, INT, P),
            get_mark=proto(R.FPDFPageObj_GetMark, P, P, ctypes.c_ulong),
            mark_name=proto(R.FPDFPageObjMark_GetName, INT, P, P, ctypes.c_ulong, P),
            mark_string=proto(R.FPDFPageObjMark_GetParamStringValue, INT, P, ctypes.c_char_p, P,
                              ctypes.c_ulong, P),
            rect_type=R.FS_RECTF,
            matrix_type=R.FS_MATRIX,
        )
    return _FN
