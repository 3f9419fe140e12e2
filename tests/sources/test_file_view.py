"""`FileView` answers as the bytes of the file would: slices, `find`, `rfind`,
`startswith` and `in`, for any bytes, bounds and chunk size; a file that became shorter
than the view raises InputChanged; the file offset is never moved."""

from __future__ import annotations

import os
import tempfile

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pincite.errors import InputChanged
from pincite.sources.file_view import FileView

small = st.lists(st.sampled_from([b"a", b"b", b"\x00", b"z", b"PK\x05\x06", b"ab"]),
                 max_size=80).map(b"".join)
needles = st.sampled_from([b"a", b"ab", b"ba", b"aab", b"abab", b"\x00", b"zz", b"PK\x05\x06"])
bounds = st.one_of(st.none(), st.integers(min_value=-250, max_value=250))


@settings(max_examples=300, deadline=None)
@given(small, needles, bounds, bounds, st.integers(min_value=1, max_value=9))
def test_searches_and_slices_answer_as_bytes(data: bytes, sub: bytes, lo: int | None,
                                             hi: int | None, chunk: int) -> None:
    with tempfile.TemporaryFile() as f:
        f.write(data + b"trailing bytes past the view")
        f.flush()
        view = FileView(f.fileno(), len(data), chunk=chunk)
        start = 0 if lo is None else lo
        assert view.find(sub, start, hi) == data.find(sub, start, hi)
        assert view.rfind(sub, start, hi) == data.rfind(sub, start, hi)
        assert view[lo:hi] == data[lo:hi]
        assert (sub in view) == (sub in data)
        assert view.startswith(sub) == data.startswith(sub)
        assert len(view) == len(data)
        assert os.lseek(f.fileno(), 0, os.SEEK_CUR) == len(data) + 28  # never moved


def test_a_file_shorter_than_its_view_raises_input_changed(tmp_path) -> None:
    p = tmp_path / "f.bin"
    p.write_bytes(b"x" * 100_000)
    fd = os.open(p, os.O_RDONLY)
    try:
        view = FileView(fd, 100_000, name="f.bin")
        assert view[:3] == b"xxx"
        os.truncate(p, 10)
        with pytest.raises(InputChanged, match="f.bin changed while it was being ingested"):
            _ = view[70_000:100_000]
        with pytest.raises(TypeError):
            _ = view[3]  # type: ignore[index]
        with pytest.raises(ValueError):
            view.find(b"")
    finally:
        os.close(fd)
