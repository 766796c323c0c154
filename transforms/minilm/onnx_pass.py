"""The same all-MiniLM-L6-v2 forward pass as NumpyMiniLM, as an ONNX graph run by ONNX Runtime (≈ 3x faster on CPU).

The graph is built in code from the safetensors weights with onnx.helper at first use (no exported binary is committed
or downloaded, no torch), and ONNX Runtime's optimised model is saved once and loaded by later processes
(saved_model.py): BERT embeddings, 6 encoder layers, mean pooling over the attention mask, L2 normalisation.
Same weights, same float32 arithmetic: vectors match NumpyMiniLM to float32 rounding (tests/graph/test_embedders.py),
so the embedder identity recorded in the graph does not change.
"""

import json
import logging
import math
import tempfile
import threading
from pathlib import Path

import numpy as np

from transforms.minilm import check_taps, saved_model
from transforms.minilm.weights import model_dir as weights_dir

log = logging.getLogger(__name__)
OPSET = 17  # LayerNormalization is in the default domain from 17; ReduceL2 still takes axes as an attribute


class _Graph:
    """Node list + initialisers with generated names."""

    def __init__(self) -> None:
        from onnx import helper, numpy_helper

        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes: list = []
        self.inits: list = []
        self._n = 0

    def const(self, name: str, value: np.ndarray) -> str:
        self.inits.append(self.numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def op(self, op_type: str, *inputs: str, **attrs: object) -> str:
        self._n += 1
        out = f"{op_type.lower()}_{self._n}"
        self.nodes.append(self.helper.make_node(op_type, list(inputs), [out], name=out, **attrs))
        return out


def build_model(weights: dict[str, np.ndarray], hidden: int, heads: int, layers: int, taps: tuple[int, ...] = ()):
    """ONNX ModelProto: input_ids, attention_mask (int64, [batch, tokens]) -> embeddings (float32, [batch, hidden]);
    with taps, [batch, hidden * (1 + len(taps))]: the sentence vector, then each tapped layer's own."""
    from onnx import TensorProto, helper

    g = _Graph()
    f32 = np.float32
    w = {k: np.asarray(v, dtype=f32) for k, v in weights.items()}
    hd = hidden // heads

    def lin(x: str, name: str) -> str:
        # MatMul with the transposed weight stored once (x @ W.T + b as in NumpyMiniLM)
        wt = g.const(name + ".wT", w[name + ".weight"].T)
        return g.op("Add", g.op("MatMul", x, wt), g.const(name + ".b", w[name + ".bias"]))

    def norm(x: str, name: str) -> str:
        return g.op(
            "LayerNormalization",
            x,
            g.const(name + ".w", w[name + ".weight"]),
            g.const(name + ".b", w[name + ".bias"]),
            axis=-1,
            epsilon=1e-12,
        )

    ids, mask = "input_ids", "attention_mask"
    # embeddings: word + position[0:T] + token type 0
    tokens = g.op("Shape", ids, start=1, end=2)  # [T], 1-D
    zero = g.const("zero", np.array([0], np.int64))
    positions = g.op("Slice", g.const("pos", w["embeddings.position_embeddings.weight"]), zero, tokens, zero)
    x = g.op("Add", g.op("Gather", g.const("word", w["embeddings.word_embeddings.weight"]), ids, axis=0), positions)
    x = g.op("Add", x, g.const("type0", w["embeddings.token_type_embeddings.weight"][0]))
    x = norm(x, "embeddings.LayerNorm")
    maskf = g.op("Cast", mask, to=TensorProto.FLOAT)
    # (1 - mask) * -1e9, shaped [B, 1, 1, T]
    bias = g.op("Mul", g.op("Sub", g.const("onef", np.array(1.0, f32)), maskf), g.const("neg", np.array(-1e9, f32)))
    bias = g.op("Unsqueeze", bias, g.const("axes12", np.array([1, 2], np.int64)))
    split_heads = g.const("split_heads", np.array([0, 0, heads, hd], np.int64))
    merge_heads = g.const("merge_heads", np.array([0, 0, hidden], np.int64))
    scale = g.const("scale", np.array(1.0 / math.sqrt(hd), f32))
    m3 = g.op("Unsqueeze", maskf, g.const("axis2", np.array([2], np.int64)))
    axis1 = g.const("axis1", np.array([1], np.int64))
    count = g.op("Max", g.op("ReduceSum", m3, axis1, keepdims=0), g.const("tiny", np.array(1e-9, f32)))

    def pooled(states: str) -> str:
        """Mean over real tokens, L2-normalised."""
        emb = g.op("Div", g.op("ReduceSum", g.op("Mul", states, m3), axis1, keepdims=0), count)
        return g.op("Div", emb, g.op("ReduceL2", emb, axes=[-1], keepdims=1))

    tapped: dict[int, str] = {}
    for i in range(layers):
        p = f"encoder.layer.{i}."
        q, k, v = (g.op("Reshape", lin(x, p + f"attention.self.{n}"), split_heads) for n in ("query", "key", "value"))
        q = g.op("Transpose", q, perm=[0, 2, 1, 3])
        k = g.op("Transpose", k, perm=[0, 2, 3, 1])
        v = g.op("Transpose", v, perm=[0, 2, 1, 3])
        s = g.op("Add", g.op("Mul", g.op("MatMul", q, k), scale), bias)
        ctx = g.op("MatMul", g.op("Softmax", s, axis=-1), v)
        ctx = g.op("Reshape", g.op("Transpose", ctx, perm=[0, 2, 1, 3]), merge_heads)
        x = norm(g.op("Add", lin(ctx, p + "attention.output.dense"), x), p + "attention.output.LayerNorm")
        h = lin(x, p + "intermediate.dense")
        # exact GELU: 0.5 x (1 + erf(x / sqrt 2))
        h = g.op(
            "Mul",
            g.op("Mul", h, g.const(p + "half", np.array(0.5, f32))),
            g.op(
                "Add",
                g.op("Erf", g.op("Mul", h, g.const(p + "rsqrt2", np.array(1 / math.sqrt(2), f32)))),
                g.const(p + "onef", np.array(1.0, f32)),
            ),
        )
        x = norm(g.op("Add", lin(h, p + "output.dense"), x), p + "output.LayerNorm")
        if i + 1 in taps:
            tapped[i + 1] = pooled(x)
    # mean pooling over real tokens, then L2 normalisation (then the tapped layers' vectors, if any)
    last = pooled(x)
    if taps:
        last = g.op("Concat", last, *(tapped[t] for t in taps), axis=-1)
    assert g.nodes[-1].output[0] == last
    g.nodes[-1].output[0] = "embeddings"
    graph = helper.make_graph(
        g.nodes,
        "all_minilm_l6_v2",
        [
            helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "tokens"]),
            helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("embeddings", TensorProto.FLOAT, ["batch", hidden * (1 + len(taps))])],
        initializer=g.inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], producer_name="graphfeed")


class _QuietQuantizer(logging.Filter):
    """Drops the quantizer's advice to run its shape pre-processing (measured: no gain on this graph)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "pre-processing before quantization" not in record.getMessage()


def quantize_dense(model) -> bytes:
    """The model with its 36 dense MatMul weights in int8, per output channel (ONNX Runtime dynamic quantization:
    activations quantized per batch). Attention's activation-by-activation MatMuls stay float32: quantizing them too
    dropped the cosine to float32 vectors to 0.73 at worst on real units, these alone keep it at 0.99 on average
    (0.95 at worst) for 1.9x less CPU (bench/intent_bench.py's figures in docs/intent.md)."""
    from onnx import save
    from onnxruntime.quantization import QuantType, quantize_dynamic

    weights = {init.name for init in model.graph.initializer}
    dense = [node.name for node in model.graph.node if node.op_type == "MatMul" and node.input[1] in weights]
    quiet = _QuietQuantizer()
    logging.getLogger().addFilter(quiet)
    try:
        with tempfile.TemporaryDirectory(prefix="graphfeed-minilm-") as tmp:
            source, target = Path(tmp, "float32.onnx"), Path(tmp, "int8.onnx")
            save(model, str(source))
            quantize_dynamic(source, target, weight_type=QuantType.QInt8, nodes_to_quantize=dense, per_channel=True)
            return target.read_bytes()
    finally:
        logging.getLogger().removeFilter(quiet)


class OnnxMiniLM:
    """all-MiniLM-L6-v2 on ONNX Runtime; the same interface and tokenizer settings as NumpyMiniLM."""

    dim = 384

    def __init__(
        self,
        model_dir: Path | None = None,
        max_len: int = 256,
        threads: int = 0,
        int8: bool = False,
        taps: tuple[int, ...] = (),
        cache: Path | str | None = None,
    ):
        """cache: where the optimised model file is kept (saved_model.cache_dir() by default)."""
        import onnxruntime as ort
        from tokenizers import Tokenizer

        d = Path(model_dir) if model_dir else weights_dir()
        cfg = json.loads((d / "config.json").read_text())
        taps = check_taps(tuple(taps), cfg["num_hidden_layers"])
        self.taps = taps
        self.dim = cfg["hidden_size"] * (1 + len(taps))
        self.precision = "int8" if int8 else "float32"
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads  # 0 = ORT's default (one per core)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3  # ORT warns about shape merges of its own fused nodes
        # no busy-waiting between ops: the cores are shared with FalkorDB and the event loop
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
        variant = self.precision + "".join(f"-tap{t}" for t in taps)
        try:
            saved = saved_model.model_path(d / "model.safetensors", variant, ort.__version__, cache)
        except OSError as exc:  # no writable cache: build in memory, as before
            log.warning("no MiniLM model cache (%s): building the ONNX model in this process", exc)
            saved = None
        found = saved is not None and saved.exists() and saved_model.weights_file(saved).exists()
        self.loaded_from = saved if found else None
        if self.loaded_from is not None:
            opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL  # optimised when saved
            self.session = ort.InferenceSession(str(saved), opts, providers=["CPUExecutionProvider"])
        else:
            self.session = self._build(d, cfg, taps, int8, opts, saved)
        self.tok = Tokenizer.from_file(str(d / "tokenizer.json"))
        self.tok.enable_truncation(max_len)
        self.tok.enable_padding(pad_id=0, pad_token="[PAD]")
        self._lock = threading.Lock()

    @staticmethod
    def _build(d: Path, cfg: dict, taps: tuple[int, ...], int8: bool, opts, saved: Path | None):
        """Build the graph from the weights, optimise it, and save ONNX Runtime's optimised model for later
        processes (written to a private file, then renamed: concurrent builders never see half a file)."""
        import onnxruntime as ort
        from safetensors.numpy import load_file

        model = build_model(
            load_file(str(d / "model.safetensors")),
            cfg["hidden_size"],
            cfg["num_attention_heads"],
            cfg["num_hidden_layers"],
            taps,
        )
        graph = quantize_dense(model) if int8 else model.SerializeToString()
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        built = saved_model.build_dir(saved) / saved.name if saved is not None else None
        if built is not None:
            opts.optimized_model_filepath = str(built)
            opts.add_session_config_entry(
                "session.optimized_model_external_initializers_file_name", saved_model.weights_file(built).name
            )
            opts.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
        session = ort.InferenceSession(graph, opts, providers=["CPUExecutionProvider"])
        if built is not None and saved is not None:
            try:
                saved_model.publish(built, saved)
            except OSError as exc:
                log.warning("could not keep the optimised MiniLM model at %s: %s", saved, exc)
        return session

    def encode(self, texts: list[str]) -> np.ndarray:
        enc = self.tok.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        with self._lock:
            return self.session.run(["embeddings"], {"input_ids": ids, "attention_mask": mask})[0]
