"""The torch-free MiniLM forward pass: pinned to vectors of the reference implementation, and its cache."""

import asyncio
import math

import numpy as np
import pytest

from graph.config import ConfigError
from graph.embedders import NumpyMiniLMEmbedder
from transforms.minilm import shared_minilm
from transforms.minilm.numpy_pass import NumpyMiniLM, _gelu
from transforms.minilm.onnx_pass import OnnxMiniLM

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


@pytest.fixture(scope="module")
def onnx_model() -> OnnxMiniLM:
    return shared_minilm("onnx")


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
    again = asyncio.run(embedder.create_batch(["gamma", "alpha"]))  # over the limit: cache restarts
    assert again[1] == first[0]
    assert len(embedder._cache) <= 2


def test_onnx_runtime_pass_gives_the_golden_vectors(onnx_model):
    # given the ONNX graph built from the same safetensors weights
    # when it embeds the golden sentences
    vecs = onnx_model.encode(list(GOLDEN))
    # then it gives the pinned vectors, to the same tolerance as the numpy pass (same embedder name in the graph)
    assert vecs.shape == (3, 384)
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    for vec, want in zip(vecs, GOLDEN.values()):
        assert np.allclose(vec[:6], want, atol=2e-6)


def test_onnx_and_numpy_passes_agree_on_varied_batches(model, onnx_model):
    # given texts of very different lengths in one padded batch (names, fact sentences, a long paragraph)
    texts = [
        "Dana Whitfield",
        "dana.whitfield@acme.example",
        "Tom Berger sent an email about the Q2 budget.",
        "x",
        "Über-long renewal terms; see PHX-12 and the audit notes. " * 20,
    ]
    # when both runtimes embed them
    want, got = model.encode(texts), onnx_model.encode(texts)
    # then every vector is the same to float32 rounding (cosine >= 0.99999)
    assert np.abs(want - got).max() < 1e-5
    assert (want * got).sum(1).min() > 0.99999


def test_the_default_embedder_runs_on_onnx_runtime_and_numpy_stays_selectable(monkeypatch):
    # given no runtime setting, then the shared model is the ONNX one; GRAPHFEED_MINILM_RUNTIME=numpy selects numpy
    assert isinstance(NumpyMiniLMEmbedder().model, OnnxMiniLM)
    monkeypatch.setenv("GRAPHFEED_MINILM_RUNTIME", "numpy")
    assert isinstance(shared_minilm(), NumpyMiniLM)
    monkeypatch.setenv("GRAPHFEED_MINILM_RUNTIME", "torch")
    with pytest.raises(ConfigError, match="GRAPHFEED_MINILM_RUNTIME"):
        shared_minilm()


# Real-unit-like texts for the int8 pass: mail, Jira, CRM phrasing, German, Chinese, a log line.
VARIED = [
    *GOLDEN,
    "I am escalating the data migration delay to leadership: the June go-live is at risk.",
    "Hiermit bestätige ich den Liefertermin 14.09.2026 für den SAP-Connector.",
    "请确认交付日期。",
    "Stage: Negotiation/Review, Amount: USD 94,800",
    "java.lang.NullPointerException at org.apache.kafka.clients.Consumer.poll(Consumer.java:42)",
    "We decided to drop the on-prem option and go with the managed cluster.",
]


def test_given_int8_weights_then_vectors_stay_near_float32_and_the_graph_keeps_float32(onnx_model):
    # given the same ONNX graph with its dense weights quantized to int8 (the intent features' model)
    int8 = shared_minilm("onnx", max_len=128, int8=True)
    assert (int8.precision, onnx_model.precision) == ("int8", "float32")
    # when both embed varied texts
    want, got = shared_minilm("onnx", max_len=128).encode(VARIED), int8.encode(VARIED)
    # then each vector is near its float32 twin (cosine >= 0.95, mean >= 0.98), still unit length, and a paraphrase
    # stays nearer than an unrelated sentence
    cos = (want * got).sum(1)
    assert cos.min() >= 0.95 and cos.mean() >= 0.98
    assert np.allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-4)
    assert got[0] @ got[1] > got[0] @ got[2]
    # and the graph's embedder, whose vectors are stored and compared across runs, never runs on int8
    assert NumpyMiniLMEmbedder().model.precision == "float32"
    assert shared_minilm("numpy", int8=True).precision == "float32"  # the numpy pass has no int8


def test_given_the_runtime_then_intent_features_use_int8_on_onnx_and_float32_on_numpy_with_separate_cache_keys(
    monkeypatch,
):
    from transforms.intent.embedding import IntentEmbedder, text_key

    assert IntentEmbedder().precision == "int8"
    monkeypatch.setenv("GRAPHFEED_MINILM_RUNTIME", "numpy")
    assert IntentEmbedder().precision == "float32"
    # a cached float32 vector is never served for int8 or the other way round
    assert text_key("Can you confirm?", "int8") != text_key("Can you confirm?", "float32")
    # nor one with other tapped layers
    assert text_key("Can you confirm?", "int8", (4,)) != text_key("Can you confirm?", "int8", ())


def test_given_float32_features_then_the_intent_model_is_versioned_apart(monkeypatch):
    from transforms.intent import shipped

    int8_version = shipped.version()
    monkeypatch.setenv("GRAPHFEED_MINILM_RUNTIME", "numpy")
    float32_version = shipped.version()
    # a head fitted on int8 vectors is never loaded for float32 ones, and the episodes' code version moves
    assert float32_version != int8_version and "-float32-" in float32_version


def test_given_a_tapped_layer_then_its_mean_pooled_states_follow_the_unchanged_sentence_vector(onnx_model):
    # given the intent features' model: the sentence vector plus layer 4's own, on both runtimes
    tapped_numpy = NumpyMiniLM(max_len=128, taps=(4,))
    tapped_onnx = shared_minilm("onnx", max_len=128, taps=(4,))
    # and a four-layer model, whose sentence vector is by definition layer 4's mean-pooled states
    four_layers = NumpyMiniLM(max_len=128)
    four_layers.nl = 4
    # when they embed varied texts
    got_numpy, got_onnx = tapped_numpy.encode(VARIED), tapped_onnx.encode(VARIED)
    # then the first 384 dimensions are the untapped vector, the next 384 layer 4's, each unit length
    assert got_numpy.shape == got_onnx.shape == (len(VARIED), 768) and tapped_onnx.dim == 768
    assert np.abs(got_onnx[:, :384] - shared_minilm("onnx", max_len=128).encode(VARIED)).max() < 1e-5
    assert np.abs(got_numpy[:, 384:] - four_layers.encode(VARIED)).max() < 1e-5
    assert np.allclose(np.linalg.norm(got_onnx[:, 384:], axis=1), 1.0, atol=1e-5)
    # and both runtimes agree to float32 rounding
    assert np.abs(got_numpy - got_onnx).max() < 1e-4
    # and the graph's embedder is untouched by taps
    assert onnx_model.dim == 384 and onnx_model.taps == ()


def test_given_taps_outside_the_model_then_a_clear_error():
    with pytest.raises(ConfigError, match="taps"):
        NumpyMiniLM(taps=(6,))
    with pytest.raises(ConfigError, match="taps"):
        NumpyMiniLM(taps=(2, 2))
