"""The question model starts from a saved optimised ONNX file (issue 29): built once per weights and runtime, then
loaded by every later process with the same vectors; another weights file never loads it."""

import os

import numpy as np
import pytest

from transforms.minilm import saved_model
from transforms.minilm.onnx_pass import OnnxMiniLM

TEXTS = ["Who escalated the risk?", "Acme budget approval for Q2", "ok"]


@pytest.mark.slow
def test_given_an_empty_cache_when_two_models_start_then_the_first_saves_and_the_second_loads_the_same_vectors(
    tmp_path,
):
    first = OnnxMiniLM(cache=tmp_path)
    assert first.loaded_from is None, "nothing saved yet: built from the weights"
    saved = list(tmp_path.glob("minilm-*-float32-*.onnx"))
    assert len(saved) == 1 and saved_model.weights_file(saved[0]).stat().st_size > 50_000_000
    assert not list(tmp_path.glob(".build-*")), "the private build directory is gone"

    second = OnnxMiniLM(cache=tmp_path)
    assert second.loaded_from == saved[0]
    np.testing.assert_allclose(second.encode(TEXTS), first.encode(TEXTS), atol=1e-6)


def test_given_other_weights_then_another_model_file_and_a_changed_file_is_hashed_again(tmp_path):
    weights = tmp_path / "model.safetensors"
    weights.write_bytes(b"weights one")
    cache = tmp_path / "cache"
    one = saved_model.model_path(weights, "float32", "1.0", cache)
    assert one == saved_model.model_path(weights, "float32", "1.0", cache), "the same weights: the same file"
    weights.write_bytes(b"weights two, longer")
    os.utime(weights, ns=(1, 1))
    two = saved_model.model_path(weights, "float32", "1.0", cache)
    assert two != one, "other weights never load the first model"
    assert saved_model.model_path(weights, "int8", "1.0", cache) != two
    assert saved_model.model_path(weights, "float32", "1.1", cache) != two, "another runtime: another file"
