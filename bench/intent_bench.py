"""Intent classifier bench: held-out phrasings, i.i.d. split, latency; against a same-run baseline.

Run:  .venv/bin/python bench/intent_bench.py [--repeat 5]
Pinned to one core (sched_setaffinity + 1 BLAS/OpenMP thread). Prints figures; asserts nothing.
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse
import json
import random
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transforms.intent import IntentClassifier, load_examples, load_taxonomy, train  # noqa: E402
from transforms.intent.data import LabelledText  # noqa: E402
from transforms.intent.lexicon import attested_subset  # noqa: E402
from transforms.intent.training import (  # noqa: E402
    DEFAULT_HELDOUT, DEFAULT_LEXICON, DEFAULT_TAXONOMY, DEFAULT_TRAIN, build_baseline, build_pipeline, fit)

PARAKWEET = ROOT / ".." / "shared" / "corpus" / "intent" / "parakweet_email_intent" / "Ask0729-fixed.txt"


class BaselineClassifier:
    """Same predict() shape for the plain TextCatBOW pipeline."""

    def __init__(self, nlp):
        self.nlp = nlp
        self.labels = list(nlp.get_pipe("textcat").labels)

    def predict(self, texts, languages=None, threshold=0.0):
        out = []
        for doc in self.nlp.pipe(texts, batch_size=256):
            lab = max(doc.cats, key=doc.cats.get)
            out.append((lab if doc.cats[lab] >= threshold else "other", doc.cats[lab]))
        return out


def f1_table(gold, pred, labels):
    per = {}
    for lab in labels:
        tp = sum(1 for g, p in zip(gold, pred) if g == lab and p == lab)
        fp = sum(1 for g, p in zip(gold, pred) if g != lab and p == lab)
        fn = sum(1 for g, p in zip(gold, pred) if g == lab and p != lab)
        prec = tp / (tp + fp) if tp + fp else 0.0
        rec = tp / (tp + fn) if tp + fn else 0.0
        per[lab] = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    present = [lab for lab in labels if lab in gold]
    macro = sum(per[lab] for lab in present) / len(present) if present else 0.0
    return macro, per


def evaluate(clf, items, labels, threshold=0.0):
    preds = [p for p, _ in clf.predict([i.text for i in items], [i.lang for i in items], threshold=threshold)]
    res = {}
    for lang in ("en", "de", "zh", "all"):
        sel = [(i.label, p) for i, p in zip(items, preds) if lang == "all" or i.lang == lang]
        if sel:
            g, p = zip(*sel)
            res[lang] = f1_table(list(g), list(p), labels)
    return res, preds


def latency(clf, texts, langs, repeat):
    clf.predict(texts[:8], langs[:8])  # warm-up (lazy language id, caches)
    best_batch = best_single = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        clf.predict(texts, langs)
        best_batch = min(best_batch, (time.perf_counter() - t) / len(texts) * 1000)
        t = time.perf_counter()
        for x, lg in zip(texts, langs):
            clf.predict([x], [lg])
        best_single = min(best_single, (time.perf_counter() - t) / len(texts) * 1000)
    return best_batch, best_single


def stratified_split(items, frac, seed):
    rng = random.Random(seed)
    by = defaultdict(list)
    for it in items:
        by[(it.label, it.lang)].append(it)
    tr, te = [], []
    for key in sorted(by):
        group = by[key][:]
        rng.shuffle(group)
        k = max(1, round(len(group) * frac))
        te += group[:k]
        tr += group[k:]
    return tr, te


def train_ours(examples, labels, lexicon, seed):
    return IntentClassifier(fit(build_pipeline(labels, lexicon), examples, seed=seed))


def train_base(examples, labels, seed):
    return BaselineClassifier(fit(build_baseline(labels), examples, seed=seed))


def fmt(res):
    return " ".join(f"{k.upper()} {v[0]:.3f}" for k, v in res.items())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    labels = taxonomy.names
    train_items = load_examples(DEFAULT_TRAIN, taxonomy)
    heldout = load_examples(DEFAULT_HELDOUT, taxonomy)
    lexicon = json.loads(DEFAULT_LEXICON.read_text(encoding="utf-8"))
    print(f"train {len(train_items)} ({dict(Counter(i.lang for i in train_items))}), "
          f"held-out {len(heldout)} ({dict(Counter(i.lang for i in heldout))}), labels {len(labels)}")

    with tempfile.TemporaryDirectory() as tmp:
        t = time.perf_counter()
        path = train(DEFAULT_TRAIN, DEFAULT_TAXONOMY, Path(tmp) / "m", seed=args.seed)
        t_ours = time.perf_counter() - t
        ours = IntentClassifier.load(path)
    t = time.perf_counter()
    base = train_base(train_items, labels, args.seed)
    t_base = time.perf_counter() - t
    print(f"training time: ours {t_ours:.1f} s (incl. save), baseline {t_base:.1f} s")

    print("\n== held-out phrasings (argmax, threshold 0) ==")
    res_o, pred_o = evaluate(ours, heldout, labels)
    res_b, _ = evaluate(base, heldout, labels)
    print(f"  ours     macro-F1: {fmt(res_o)}")
    print(f"  baseline macro-F1: {fmt(res_b)}")
    print("  ratio ours/baseline: " + " ".join(f"{k.upper()} {res_o[k][0] / max(res_b[k][0], 1e-9):.2f}" for k in res_o))
    res_t, _ = evaluate(ours, heldout, labels, threshold=0.5)
    print(f"  ours at default threshold 0.5: {fmt(res_t)}")

    print("\n  per-label F1 (ours EN | DE | ZH || baseline EN)")
    for lab in labels:
        print(f"    {lab:<20} {res_o['en'][1][lab]:.2f} | {res_o['de'][1][lab]:.2f} | {res_o['zh'][1][lab]:.2f} || {res_b['en'][1][lab]:.2f}")
    conf = Counter((i.label, p) for i, p in zip(heldout, pred_o) if i.label != p)
    print("  top confusions (gold -> predicted: n):")
    for (g, p), n in conf.most_common(10):
        print(f"    {g} -> {p}: {n}")

    print("\n== ablations on held-out (same seed) ==")
    nolex = train_ours(train_items, labels, None, args.seed)
    print(f"  no lexicon (words + char n-grams only): {fmt(evaluate(nolex, heldout, labels)[0])}")
    sub, kept, total = attested_subset(lexicon, [(i.text, i.lang) for i in train_items])
    att = train_ours(train_items, labels, sub, args.seed)
    print(f"  lexicon restricted to entries attested in train.jsonl ({kept}/{total} entries): "
          f"{fmt(evaluate(att, heldout, labels)[0])}")

    print("\n== i.i.d. split of train.jsonl (80/20 stratified, seed 0) ==")
    tr, te = stratified_split(train_items, 0.2, 0)
    o = train_ours(tr, labels, lexicon, args.seed)
    b = train_base(tr, labels, args.seed)
    ro, rb = evaluate(o, te, labels)[0], evaluate(b, te, labels)[0]
    print(f"  ours     macro-F1: {fmt(ro)}\n  baseline macro-F1: {fmt(rb)}")

    print("\n== latency, one core, held-out texts (best of %d) ==" % args.repeat)
    texts, langs = [i.text for i in heldout], [i.lang for i in heldout]
    ob, os_ = latency(ours, texts, langs, args.repeat)
    bb, bs = latency(base, texts, langs, args.repeat)
    ob_auto, _ = latency(ours, texts, [None] * len(texts), 1)
    print(f"  ours     batched {ob:.3f} ms/record, single {os_:.3f} ms/record (batched, language auto-detected: {ob_auto:.3f})")
    print(f"  baseline batched {bb:.3f} ms/record, single {bs:.3f} ms/record")
    print(f"  ratio ours/baseline: batched {ob / bb:.1f}x, single {os_ / bs:.1f}x  (target <= 5 ms/record)")
    long_text = " ".join(texts[:40])
    lb, ls = latency(ours, [long_text] * 50, ["en"] * 50, 1)
    print(f"  ours on a {len(long_text)}-char text (features use the first 600 chars): batched {lb:.3f} ms, single {ls:.3f} ms")

    if PARAKWEET.exists():
        print("\n== real e-mail sentences: parakweet Ask0729 (Yes = request OR commitment, No = neither) ==")
        rows = [ln.split("\t", 1) for ln in PARAKWEET.read_text(encoding="utf-8", errors="replace").splitlines() if "\t" in ln]
        sents = [s for _, s in rows]
        preds = ours.predict(sents, ["en"] * len(sents), threshold=0.5)
        for gold in ("Yes", "No"):
            dist = Counter(p for (g, _), (p, _) in zip(rows, preds) if g == gold)
            n = sum(dist.values())
            print(f"  {gold:>3} (n={n}): request_info {dist['request_info'] / n:.2%}, other {dist['other'] / n:.2%}, "
                  f"top: {', '.join(f'{k} {v / n:.0%}' for k, v in dist.most_common(4))}")
        qs = [(g, p) for (g, s), (p, _) in zip(rows, preds) if s.rstrip().endswith("?")]
        yq = [p for g, p in qs if g == "Yes"]
        print(f"  Yes-sentences ending in '?' (n={len(yq)}): request_info {sum(p == 'request_info' for p in yq) / max(len(yq), 1):.2%}")


if __name__ == "__main__":
    main()
