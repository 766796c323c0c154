"""The torch-free MiniLM forward pass: pinned to vectors of the reference implementation, and its cache."""

import asyncio
import math

import numpy as np
import pytest

from connectors.graph.embedders import NumpyMiniLM, NumpyMiniLMEmbedder, _gelu

# First six dimensions of all-MiniLM-L6-v2 for these sentences, from the straightforward numpy forward pass that
# matched sentence-transformers at cosine 1.000000 (notes/graphiti.md §4) before the in-place GELU.
GOLDEN = {
    "Can you confirm the delivery date?": [-0.055773, 0.005616, 0.060407, 0.034894, -0.005583, 0.003712],
    "Please confirm when it will be delivered.": [-0.054226, -0.007657, 0.006702, 0.01536, -0.038381, -0.023843],
    "The cafeteria serves soup on Fridays.": [-0.069578, 0.017138, 0.027973, -0.040899, -0.098559, 0.011718],
}


@pytest.fixture(scope="module")
def model() -> NumpyMiniLM:
    return NumpyMiniLM()


def test_gelu_is_the_exact_erf_gelu():
    # given activations across the range BERT produces
    x = np.linspace(-8, 8, 4001, dtype=np.float32)
    # when the in-place GELU runs
    got = _gelu(x)
    # then it matches 0.5·x·(1 + erf(x/√2)) to float32 precision
    want = np.array([0.5 * v * (1 + math.erf(v / math.sqrt(2))) for v in x.astype(float)])
    assert np.abs(got - want).max() < 2e-6


def test_vectors_match_the_reference_forward_pass(model):
    vecs = model.encode(list(GOLDEN))
    assert vecs.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    for vec, want in zip(vecs, GOLDEN.values()):
        assert np.allclose(vec[:6], want, atol=2e-6)
    # a paraphrase is near, an unrelated sentence is far
    assert vecs[0] @ vecs[1] > 0.6 > 0.2 > vecs[0] @ vecs[2]


def test_batching_and_padding_do_not_change_a_vector(model):
    alone = model.encode(["Can you confirm the delivery date?"])[0]
    padded = model.encode(["Can you confirm the delivery date?", "a much longer sentence " * 12])[0]
    assert np.abs(alone - padded).max() < 1e-5


def test_embedder_cache_returns_the_same_vectors_and_bounds_itself(model):
    embedder = NumpyMiniLMEmbedder(model, cache_limit=2)
    first = asyncio.run(embedder.create_batch(["alpha", "beta", "alpha"]))
    assert first[0] == first[2] and first[0] != first[1]
    again = asyncio.run(embedder.create_batch(["gamma", "alpha"]))     # over the limit: cache restarts
    assert again[1] == first[0]
    assert len(embedder._cache) <= 2
