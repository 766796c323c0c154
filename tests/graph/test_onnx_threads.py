"""GRAPHFEED_ONNX_THREADS: read once with the other embedder settings (connection_env -> GraphConfig.onnx_threads) and
given to the writer's MiniLM session, so N writers on N cores can take one ONNX Runtime thread each."""

import pydantic
import pytest

from graph.config import GraphConfig, connection_env
from graph.embedders import make_embedder


def session_threads(config: GraphConfig) -> int:
    return make_embedder(config).model.session.get_session_options().intra_op_num_threads


def test_given_the_variable_then_the_writers_session_takes_that_many_threads(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHFEED_MINILM_RUNTIME", "onnx")
    config = GraphConfig(home=tmp_path, **connection_env({"GRAPHFEED_ONNX_THREADS": "1"}))
    assert config.onnx_threads == 1 and session_threads(config) == 1


def test_given_no_variable_then_onnx_runtime_keeps_its_default(tmp_path, monkeypatch):
    monkeypatch.setenv("GRAPHFEED_MINILM_RUNTIME", "onnx")
    config = GraphConfig(home=tmp_path, **connection_env({}))
    assert config.onnx_threads == 0 and session_threads(config) == 0  # 0: one thread per core, as before


def test_a_negative_thread_count_is_refused_naming_the_setting(tmp_path):
    with pytest.raises(pydantic.ValidationError, match="onnx_threads"):
        GraphConfig(home=tmp_path, **connection_env({"GRAPHFEED_ONNX_THREADS": "-1"}))
