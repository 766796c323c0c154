"""Sentence embeddings for intent: the graph's own all-MiniLM-L6-v2 (no torch, no download), cached per text.

One forward pass per distinct text: repeated subjects of a thread and re-runs over the same units hit the cache.
`DiskCache` keeps training-set vectors between processes (under the model cache directory, never committed).
"""

import hashlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

import numpy as np

# The sentence vector plus layer 4's mean-pooled states, from the same forward pass: the earlier layer keeps the
# wording the last one smooths away (bench/intent_bench.py, CV on train: ensemble macro-F1 0.641 -> 0.664; docs/intent.md)
TAPS = (4,)
DIM = 384 * (1 + len(TAPS))
MAX_TOKENS = 128  # intent sits in the first lines; 128 word pieces cost ~half of 256 (bench/intent_bench.py)
BATCH = 32
MEMORY_LIMIT = 20_000


def text_key(text: str, precision: str = "float32", taps: Sequence[int] = TAPS) -> str:
    """Cache key of a text's vector: the length read, the weights' precision and the tapped layers change it."""
    tag = f"{MAX_TOKENS}" if precision == "float32" else f"{MAX_TOKENS}\x1f{precision}"
    if taps:
        tag += "\x1ftaps" + ",".join(map(str, taps))
    return hashlib.sha1(f"{tag}\x1f{text}".encode("utf-8", "surrogatepass")).hexdigest()


def feature_precision() -> str:
    """int8 on ONNX Runtime (the default), float32 on the numpy pass (GRAPHFEED_MINILM_RUNTIME=numpy)."""
    from transforms.minilm import selected_runtime

    return "int8" if selected_runtime() == "onnx" else "float32"


def model_tag() -> str:
    """Part of the trained model's version: a head fitted on int8 features is not reused on float32 ones."""
    return "" if feature_precision() == "int8" else "-float32"


class DiskCache:
    """sha1(text) -> vector in one .npz file: loaded once, written back after new texts were embedded."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.vectors: dict[str, np.ndarray] = {}
        self.dirty = False
        if self.path.is_file():
            with np.load(self.path, allow_pickle=False) as data:
                self.vectors = {k: data[k] for k in data.files}

    def save(self) -> None:
        if self.dirty:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # per process: two test workers (or graphfeed processes) sharing one model cache may save at once
            tmp = self.path.with_name(f".{self.path.stem}.{os.getpid()}.tmp.npz")
            np.savez(tmp, **self.vectors)
            tmp.replace(self.path)
            self.dirty = False


class IntentEmbedder:
    """Texts -> DIM-d features (L2-normalised 384-d pieces: the sentence, then each tapped layer); empty text -> zeros
    (nothing to say is not a sentence).

    The default model is MiniLM with int8 dense weights on ONNX Runtime: the intent head is trained in this process on
    the same vectors, so they need not match the graph's float32 ones, and the forward pass is most of a preview's cost
    (int8: 1.9x less CPU, eval macro-F1 unchanged; docs/intent.md). GRAPHFEED_MINILM_RUNTIME=numpy keeps float32.
    """

    def __init__(self, model=None, disk: DiskCache | None = None):
        self._model = model
        # known before the model loads: a warm cache never pays the load
        self.precision = getattr(model, "precision", "float32") if model is not None else feature_precision()
        self.taps = tuple(getattr(model, "taps", ())) if model is not None else TAPS
        self.dim = getattr(model, "dim", DIM) if model is not None else DIM
        self.disk = disk
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()

    @property
    def model(self):
        if self._model is None:
            from transforms.minilm import shared_minilm

            self._model = shared_minilm(max_len=MAX_TOKENS, int8=self.precision == "int8", taps=self.taps)
        return self._model

    def forget(self) -> None:
        """Drop the vectors kept in memory (the disk cache stays): the next texts pay their forward pass again."""
        with self._lock:
            self._memory.clear()

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        keys = [text_key(t, self.precision, self.taps) if t and t.strip() else None for t in texts]
        missing: dict[str, str] = {}
        with self._lock:
            for i, (text, key) in enumerate(zip(texts, keys)):
                if key is None:
                    continue
                vec = self._memory.get(key)
                if vec is None and self.disk is not None:
                    vec = self.disk.vectors.get(key)
                if vec is None:
                    missing.setdefault(key, text)
                else:
                    out[i] = vec
        if missing:
            found = self._encode_sorted(list(missing.items()))
            with self._lock:
                for key, vec in found.items():
                    self._memory[key] = vec
                    if self.disk is not None:
                        self.disk.vectors[key] = vec
                        self.disk.dirty = True
                while len(self._memory) > MEMORY_LIMIT:
                    self._memory.popitem(last=False)
            for i, key in enumerate(keys):
                if key in found:
                    out[i] = found[key]
        return out

    def _encode_sorted(self, items: list[tuple[str, str]]) -> dict[str, np.ndarray]:
        items = sorted(items, key=lambda kv: len(kv[1]))  # similar lengths per batch: less padding
        found: dict[str, np.ndarray] = {}
        for start in range(0, len(items), BATCH):
            chunk = items[start : start + BATCH]
            vecs = self.model.encode([text for _, text in chunk]).astype(np.float32)
            found.update({key: vec for (key, _), vec in zip(chunk, vecs)})
        return found


_SHARED: IntentEmbedder | None = None


def shared_embedder() -> IntentEmbedder:
    global _SHARED
    if _SHARED is None:
        _SHARED = IntentEmbedder()
    return _SHARED
