"""Intent bench on real labelled units: today's model against the candidates on the frozen eval split.

Run:  .venv/bin/python bench/intent_bench.py [--labelled DIR ...] [--no-cv]
Candidates (all trained on the train split only; L2, the `other` threshold and the ensemble weight chosen by
thread-grouped 5-fold cross-validation on train, never on eval):
  today      the shipped intent-2 model (spaCy cue + n-gram textcat, synthetic data) on today's input
  lexical    the same pipeline retrained on real train (+ synthetic), reading the author text
  embed      linear head over MiniLM(author text) + 0.5 MiniLM(subject)
  embed+cues embed + cue-lexicon concepts + block markers + source family
  embed+cues+context  embed+cues + the record's context (transforms/intent/context.py), trained with and without it;
             also printed on the eval units stripped of their context
  ensemble   mean of lexical and embed+cues+context probabilities (weight by CV; the shipped model,
             transforms/intent/shipped.py)
Pinned to one core. Prints figures; asserts nothing.
"""

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import argparse  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from transforms.intent import (  # noqa: E402
    IntentClassifier,
    embedding,  # noqa: E402
    load_taxonomy,
    train,
)
from transforms.intent.embed_model import FeatureConfig, cue_vocabulary, featurize  # noqa: E402
from transforms.intent.embedding import DiskCache, IntentEmbedder  # noqa: E402
from transforms.intent.lexicon import Lexicon  # noqa: E402
from transforms.intent.linear import fit_softmax, predict_proba  # noqa: E402
from transforms.intent.metrics import format_report, macro_f1, report  # noqa: E402
from transforms.intent.real_training import (  # noqa: E402
    DEFAULT_LABELLED,
    SHIPPED_FEATURES,
    THRESHOLD_GRID,
    calibrate,
    context_free_copies,
    decide,
    fit_lexical,
    fold_of,
    out_of_fold,
)
from transforms.intent.training import DEFAULT_HELDOUT, DEFAULT_LEXICON, DEFAULT_TAXONOMY, DEFAULT_TRAIN  # noqa: E402
from transforms.intent.units import labelled_files, load_units, prepare  # noqa: E402
from transforms.minilm import shared_minilm  # noqa: E402
from transforms.quotes import strip_reply  # noqa: E402

CONFIGS = {
    "embed": FeatureConfig(subject_weight=0.5, cues=False, markers=False, family=False),
    "embed+cues": FeatureConfig(),
    "embed+cues+context": SHIPPED_FEATURES,
}
SHIPPED = "embed+cues+context"  # the head inside the shipped ensemble


def today_input(unit) -> str:
    """What intent-2 read: title, blank line, body (mail without quotes/signature), nothing else removed."""
    body = unit.raw_text if unit.raw_text is not None else (unit.text or "")
    if unit.source_family in ("mail", "crm"):
        body = strip_reply(body)
    return f"{unit.subject}\n\n{body}" if unit.subject and body else (unit.subject or body)


def lexical_probs(train_units, test_inputs, labels, lexicon_data, seed=0):
    clf = fit_lexical(train_units, labels, lexicon_data, seed=seed)
    return clf.scores([i.text if i.text.strip() else i.subject for i in test_inputs], [i.lang for i in test_inputs])


def best_threshold(probs, gold, labels):
    scored = [(macro_f1(gold, decide(probs, labels, t), labels), t) for t in THRESHOLD_GRID]
    return max(scored, key=lambda s: (s[0], -s[1]))


def latency(fn, n, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, (time.perf_counter() - t) / n * 1000)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument(
        "--labelled",
        nargs="*",
        type=Path,
        default=[DEFAULT_LABELLED],
        help="directories of labelled *.jsonl (default data/intent/labelled)",
    )
    ap.add_argument("--cache", type=Path, default=ROOT / ".graphfeed" / "models" / "intent" / "embeddings.npz")
    ap.add_argument(
        "--max-tokens",
        type=int,
        default=embedding.MAX_TOKENS,
        help="word pieces MiniLM reads per text (the shipped value is transforms/intent/embedding.py)",
    )
    ap.add_argument(
        "--float32",
        action="store_true",
        help="MiniLM with float32 weights (the reference; the shipped intent features use int8 dense weights)",
    )
    args = ap.parse_args()
    embedding.MAX_TOKENS = args.max_tokens
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})

    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    labels = taxonomy.names
    lexicon_data = __import__("json").loads(DEFAULT_LEXICON.read_text(encoding="utf-8"))
    lexicon = Lexicon.from_dict(lexicon_data)
    files = [f for d in args.labelled for f in labelled_files(d)]
    units = load_units(files, taxonomy)
    train_u = [u for u in units if u.split == "train"]
    eval_u = [u for u in units if u.split == "eval"]
    synthetic = load_units([DEFAULT_TRAIN], taxonomy)
    heldout = load_units([DEFAULT_HELDOUT], taxonomy)
    print(
        f"labelled units {len(units)} from {', '.join(f.name for f in files)}: train {len(train_u)}, "
        f"eval {len(eval_u)}; synthetic train {len(synthetic)}, synthetic held-out {len(heldout)}"
    )
    fam_counts = {}
    for u in eval_u:
        fam_counts[u.source_family] = fam_counts.get(u.source_family, 0) + 1
    print(f"eval by family: {fam_counts}")

    disk = DiskCache(args.cache)
    reference = shared_minilm(max_len=embedding.MAX_TOKENS, int8=False, taps=embedding.TAPS) if args.float32 else None
    embedder = IntentEmbedder(reference, disk=disk)
    print(f"MiniLM weights: {embedder.precision}")
    fit_u = train_u + synthetic
    fit_in = [prepare(u) for u in fit_u]
    gold_fit = [u.label for u in fit_u]
    folds = np.array([fold_of(u) for u in fit_u])
    real = np.array([u.source_family != "synthetic" for u in fit_u])
    eval_in = [prepare(u) for u in eval_u]
    held_in = [prepare(u) for u in heldout]
    gold_eval = [u.label for u in eval_u]
    fam_eval = [u.source_family for u in eval_u]
    t0 = time.perf_counter()
    vocabulary = cue_vocabulary(lexicon)
    feats, fits = {}, {}
    for name, cfg in CONFIGS.items():
        # the context head trains on each unit with context once more without it, as fit_units does
        units_cfg = fit_u + context_free_copies(fit_u) if cfg.context else fit_u
        fits[name] = (
            np.array([labels.index(u.label) for u in units_cfg]),
            np.array([fold_of(u) for u in units_cfg]),
            np.array([u.source_family != "synthetic" and n < len(fit_u) for n, u in enumerate(units_cfg)]),
            [u.label for u in units_cfg],
        )
        feats[name] = (
            featurize([prepare(u) for u in units_cfg], cfg, lexicon, vocabulary, embedder),
            featurize(eval_in, cfg, lexicon, vocabulary, embedder),
            featurize(held_in, cfg, lexicon, vocabulary, embedder),
            featurize([i._replace(context=()) for i in eval_in], cfg, lexicon, vocabulary, embedder),
        )
    disk.save()
    print(
        f"features for {len(fit_in) + len(eval_in) + len(held_in)} units in {time.perf_counter() - t0:.0f} s "
        f"(embedding cache {args.cache})"
    )

    results = {}
    # today's model, as shipped before this change, on today's input
    with tempfile.TemporaryDirectory() as tmp:
        today = IntentClassifier.load(train(DEFAULT_TRAIN, DEFAULT_TAXONOMY, Path(tmp) / "m", seed=0))
    texts_today = [today_input(u) for u in eval_u]
    pred = [p for p, _ in today.predict(texts_today, [u.lang for u in eval_u], threshold=0.5)]
    results["today"] = (
        report(gold_eval, pred, fam_eval, labels),
        macro_f1(
            [u.label for u in heldout],
            [p for p, _ in today.predict([u.text for u in heldout], [u.lang for u in heldout])],
            labels,
        ),
        "threshold 0.5 (as shipped)",
    )

    cv_probs = {}
    for name, cfg in CONFIGS.items():
        x_fit, x_eval, x_held, x_bare = feats[name]
        y_cfg, folds_cfg, scored_cfg, gold_cfg = fits[name]
        l2, thr, cv = calibrate(x_fit, gold_cfg, folds_cfg, labels, scored_cfg)
        if name == SHIPPED:
            l2_cues = l2
        cv_probs[name] = out_of_fold(x_fit, y_cfg, folds_cfg, len(labels), l2)[: len(fit_u)]
        w, b = fit_softmax(x_fit, y_cfg, len(labels), l2=l2)
        p_eval, p_held = predict_proba(x_eval, w, b), predict_proba(x_held, w, b)
        if cfg.context:
            bare = report(gold_eval, decide(predict_proba(x_bare, w, b), labels, thr), fam_eval, labels)
            print(f"  [{name}] eval units without their context: macro-F1 {bare.macro_f1:.3f}")
        results[name] = (
            report(gold_eval, decide(p_eval, labels, thr), fam_eval, labels),
            macro_f1([u.label for u in heldout], decide(p_held, labels, thr), labels),
            f"CV macro-F1 {cv:.3f}, l2 {l2:g}, threshold {thr:.2f}",
        )
        cv_probs[name + ":eval"] = p_eval
        cv_probs[name + ":held"] = p_held

    # lexical retrained on real data; out-of-fold probabilities for the ensemble weight
    lex_oof = np.zeros((len(fit_u), len(labels)), dtype=np.float32)
    for f in sorted(set(folds.tolist())):
        test = folds == f
        lex_oof[test] = lexical_probs(
            [u for u, t in zip(fit_u, test) if not t], [i for i, t in zip(fit_in, test) if t], labels, lexicon_data
        )
    lex_eval = lexical_probs(fit_u, eval_in, labels, lexicon_data)
    lex_held = lexical_probs(fit_u, held_in, labels, lexicon_data)
    real_gold = [g for g, r in zip(gold_fit, real) if r]
    cv_lex, thr_lex = best_threshold(lex_oof[real], real_gold, labels)
    results["lexical"] = (
        report(gold_eval, decide(lex_eval, labels, thr_lex), fam_eval, labels),
        macro_f1([u.label for u in heldout], decide(lex_held, labels, thr_lex), labels),
        f"CV macro-F1 {cv_lex:.3f}, threshold {thr_lex:.2f}",
    )

    best = (-1.0, 0.5, 0.0)
    for wgt in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8):
        mix = wgt * cv_probs[SHIPPED] + (1 - wgt) * lex_oof
        score, thr = best_threshold(mix[real], real_gold, labels)
        if score > best[0]:
            best = (score, wgt, thr)
    cv_mix, wgt, thr_mix = best
    mix_eval = wgt * cv_probs[SHIPPED + ":eval"] + (1 - wgt) * lex_eval
    mix_held = wgt * cv_probs[SHIPPED + ":held"] + (1 - wgt) * lex_held
    results["ensemble"] = (
        report(gold_eval, decide(mix_eval, labels, thr_mix), fam_eval, labels),
        macro_f1([u.label for u in heldout], decide(mix_held, labels, thr_mix), labels),
        f"CV macro-F1 {cv_mix:.3f}, weight embed {wgt:.1f}, embed l2 {l2_cues:g}, "
        f"threshold {thr_mix:.2f} (shipped: transforms/intent/ensemble.py)",
    )

    print("\n== eval split (frozen; nothing tuned on it) ==")
    print(f"  {'model':<11} {'macro-F1':>8} {'acc':>6} {'other P/R':>10} {'synthetic held-out':>19}  selection")
    for name, (rep, held, how) in results.items():
        o = rep.per_label["other"]
        print(
            f"  {name:<11} {rep.macro_f1:8.3f} {rep.accuracy:6.3f} {o.precision:5.2f}/{o.recall:4.2f} "
            f"{held:19.3f}  {how}"
        )
    chosen = max((n for n in results if n != "today"), key=lambda n: results[n][0].macro_f1)
    print(
        f"\n  best on eval: {chosen}; ratio to today: {results[chosen][0].macro_f1 / max(results['today'][0].macro_f1, 1e-9):.2f}x"
    )
    for name in dict.fromkeys(("today", SHIPPED, "ensemble", chosen)):
        print()
        print(format_report(results[name][0], title=f"[{name}] "))

    print_fact_bars(gold_eval, mix_eval, labels, thr_mix)

    print("\n== latency, one core, eval units (batched; embedding cache cold) ==")
    n = len(eval_u)
    ms_today = latency(lambda: today.predict(texts_today, [u.lang for u in eval_u]), n, repeat=2)
    lexical = fit_lexical(fit_u, labels, lexicon_data)
    ms_prep = latency(lambda: [prepare(u) for u in eval_u], n)
    cfg = CONFIGS["embed+cues"]
    ms_embed = latency(lambda: featurize(eval_in, cfg, lexicon, vocabulary, IntentEmbedder(embedder.model)), n)
    ms_lex = latency(lambda: lexical.scores([i.text or i.subject for i in eval_in], [i.lang for i in eval_in]), n)
    total = ms_prep + ms_embed + ms_lex
    lens = sorted(len(i.text) for i in eval_in)
    raw = sorted(len(u.raw_text or "") for u in eval_u)
    print(f"  today (intent-2):   {ms_today:.2f} ms/record")
    print(
        f"  shipped ensemble:   author_text {ms_prep:.2f} + embedding head incl. MiniLM {ms_embed:.2f} + lexical "
        f"{ms_lex:.2f} = {total:.2f} ms/record ({total / ms_today:.0f}x today; target <= 10)"
    )
    print(
        f"  raw text median {raw[len(raw) // 2]} chars -> author text median {lens[len(lens) // 2]} chars "
        f"(MiniLM reads the first {embedding.MAX_TOKENS} word pieces); empty author texts: {sum(1 for i in eval_in if not i.text.strip())}"
    )
    print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores while measuring")


def print_fact_bars(gold: list[str], probs: np.ndarray, labels: list[str], threshold: float) -> None:
    """How true intent facts are per GRAPHFEED_INTENT_FACT_THRESHOLD: every unit whose label is not `other` and whose
    confidence reaches the bar is one fact; precision = facts whose label is the gold one."""
    pred = decide(probs, labels, threshold)
    conf = probs.max(axis=1)
    acts = sum(1 for g in gold if g != "other")
    print(f"\n== intent facts by bar (ensemble above, eval split; {acts} units carry an act) ==")
    print(f"  {'bar':>4} {'facts':>6} {'precision':>9} {'acts covered':>12}")
    for bar in (0.0, 0.5, 0.6, 0.7, 0.8):
        facts = [(g, p) for g, p, c in zip(gold, pred, conf) if p != "other" and c >= bar]
        right = sum(1 for g, p in facts if g == p)
        print(f"  {bar:4.1f} {len(facts):6d} {right / max(len(facts), 1):9.2f} {right / max(acts, 1):12.2f}")


if __name__ == "__main__":
    main()
