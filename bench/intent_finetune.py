"""Does fine-tuning MiniLM on the labelled units lift intent on real text, where the frozen head stalls at ~0.67?

Every weight of all-MiniLM-L6-v2 is trained with a class-balanced cross-entropy on the train split plus the synthetic
phrasings (the shipped model's training set), then scored on the frozen eval split by argmax; `--archive train` moves
the train-side threads of the tidev/jira-archive units (the rule docs/intent.md gives for a split) into training and
scores on the remaining 1,016 eval units, `--archive none` scores the same 1,016 without them.

Two steps, because the fine-tune needs JAX, which is not a graphfeed dependency (and torch never is):
    .venv/bin/python bench/intent_finetune.py dump /tmp/intent_units.jsonl
    python3 -m venv /tmp/ft && /tmp/ft/bin/pip install jax optax tokenizers safetensors numpy
    /tmp/ft/bin/python bench/intent_finetune.py train /tmp/intent_units.jsonl [--epochs 4] [--archive none|train]
`dump` writes what the classifier reads of each unit (transforms.intent.units.prepare) and where the weights live.
Seeded; prints figures per epoch; asserts nothing. Figures: docs/intent.md ("Fine-tuning the encoder").
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def dump(out: Path) -> None:
    sys.path.insert(0, str(ROOT))
    from transforms.intent import load_taxonomy
    from transforms.intent.real_training import DEFAULT_LABELLED
    from transforms.intent.training import DEFAULT_TAXONOMY, DEFAULT_TRAIN
    from transforms.intent.units import labelled_files, load_units, prepare
    from transforms.minilm.weights import model_dir

    sys.path.insert(0, str(ROOT / "scripts" / "intent_units"))
    from build_labelled import split_of  # the labelling schema's split-by-thread rule

    taxonomy = load_taxonomy(DEFAULT_TAXONOMY)
    units = load_units(labelled_files(DEFAULT_LABELLED), taxonomy) + load_units([DEFAULT_TRAIN], taxonomy)
    with out.open("w", encoding="utf-8") as f:
        f.write(json.dumps({"labels": list(taxonomy.names), "model_dir": str(model_dir())}) + "\n")
        for u in units:
            p = prepare(u)
            row = {"text": p.text, "subject": p.subject, "family": p.family, "context": list(p.context)}
            row |= {"label": u.label, "split": u.split, "uid": u.uid}
            # where the schema's rule would put the unit: the archive units are all held out, this side may train
            row["rule_side"] = split_of(u.thread or u.uid)
            f.write(json.dumps(row) + "\n")
    print(f"{len(units)} units -> {out}")


def split(rows: list[dict], archive: str) -> tuple[list[dict], list[dict]]:
    train = [r for r in rows if r["split"] == "train"]
    evals = [r for r in rows if r["split"] == "eval"]
    if archive:

        def moved(r: dict) -> bool:
            return "jira-archive" in r["uid"] and r["rule_side"] == "train"

        train += [r for r in evals if moved(r)] if archive == "train" else []
        evals = [r for r in evals if not moved(r)]
    return train, evals


def macro_f1(gold: list[str], pred: list[str]) -> float:
    """transforms.intent.metrics' macro-F1 (over the labels present), restated: the JAX venv has none of our deps."""
    scores = []
    for label in sorted(set(gold)):
        tp = sum(g == p == label for g, p in zip(gold, pred))
        wrong = sum((g == label) != (p == label) for g, p in zip(gold, pred))
        scores.append(2 * tp / (2 * tp + wrong) if tp else 0.0)
    return sum(scores) / len(scores)


def train(units_path: Path, args: argparse.Namespace) -> None:
    import jax
    import jax.numpy as jnp
    import numpy as np
    import optax
    from safetensors.numpy import load_file
    from tokenizers import Tokenizer

    lines = units_path.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    labels, mdir = head["labels"], head["model_dir"]
    train_rows, eval_rows = split([json.loads(x) for x in lines[1:]], args.archive)
    tok = Tokenizer.from_file(f"{mdir}/tokenizer.json")
    tok.no_padding()

    def encode_row(r: dict) -> tuple[list[int], list[int]]:
        # the author text first, then what the record says around it (family, context, subject) as the second segment
        second = tok.encode(
            " ".join([r["family"], *r["context"]]) + " | " + (r["subject"] or ""), add_special_tokens=False
        )
        b = second.ids[:32]
        a = tok.encode(r["text"] or "", add_special_tokens=False).ids[: args.max_tokens - 3 - len(b)]
        return [101, *a, 102, *b, 102], [0] * (len(a) + 2) + [1] * (len(b) + 1)

    weights = {k: jnp.asarray(v) for k, v in load_file(f"{mdir}/model.safetensors").items() if "position_ids" not in k}

    def norm(x, g, b):
        m = x.mean(-1, keepdims=True)
        return (x - m) / jnp.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-12) * g + b

    def dense(x, p, name):
        return x @ p[name + ".weight"].T + p[name + ".bias"]

    def sentence(p, ids, types, mask):
        emb = "embeddings."
        x = p[emb + "word_embeddings.weight"][ids] + p[emb + "token_type_embeddings.weight"][types]
        x = norm(
            x + p[emb + "position_embeddings.weight"][: ids.shape[1]][None],
            p[emb + "LayerNorm.weight"],
            p[emb + "LayerNorm.bias"],
        )
        batch, length, _ = x.shape
        bias = (1.0 - mask[:, None, None, :]) * -1e9
        for i in range(6):
            layer = f"encoder.layer.{i}."
            q, k, v = (
                dense(x, p, layer + f"attention.self.{n}").reshape(batch, length, 12, 32).transpose(0, 2, 1, 3)
                for n in ("query", "key", "value")
            )
            att = jax.nn.softmax(q @ k.transpose(0, 1, 3, 2) / np.sqrt(32) + bias, -1)
            ctx = (att @ v).transpose(0, 2, 1, 3).reshape(batch, length, 384)
            out = layer + "attention.output."
            x = norm(x + dense(ctx, p, out + "dense"), p[out + "LayerNorm.weight"], p[out + "LayerNorm.bias"])
            hidden = jax.nn.gelu(dense(x, p, layer + "intermediate.dense"), approximate=False)
            x = norm(
                x + dense(hidden, p, layer + "output.dense"),
                p[layer + "output.LayerNorm.weight"],
                p[layer + "output.LayerNorm.bias"],
            )
        vec = (x * mask[..., None]).sum(1) / mask.sum(1)[:, None]
        return vec / jnp.linalg.norm(vec, axis=-1, keepdims=True)

    rng = np.random.default_rng(args.seed)
    params = {k: v for k, v in weights.items() if not k.startswith("pooler")}
    params["head.weight"] = jnp.asarray(rng.normal(0, 0.02, (len(labels), 384)).astype(np.float32))
    params["head.bias"] = jnp.zeros(len(labels))
    gold_train = np.array([labels.index(r["label"]) for r in train_rows])
    counts = np.bincount(gold_train, minlength=len(labels))
    class_weight = jnp.asarray(len(gold_train) / (len(labels) * np.maximum(counts, 1)))

    def logits(p, ids, types, mask):
        return sentence(p, ids, types, mask) @ p["head.weight"].T * 20.0 + p["head.bias"]

    def loss(p, ids, types, mask, y):
        nll = -jnp.take_along_axis(jax.nn.log_softmax(logits(p, ids, types, mask)), y[:, None], 1)[:, 0]
        return (nll * class_weight[y]).sum() / class_weight[y].sum()

    total = -(-len(train_rows) // args.batch) * args.epochs

    def schedule(peak):
        return optax.warmup_cosine_decay_schedule(0.0, peak, total // 10, total)

    opt = optax.multi_transform(
        {
            "enc": optax.adamw(schedule(args.lr), weight_decay=0.01),
            "head": optax.adamw(schedule(2e-3), weight_decay=0.0),
        },
        {k: "head" if k.startswith("head") else "enc" for k in params},
    )
    state = opt.init(params)

    @jax.jit
    def step(p, st, ids, types, mask, y):
        value, grads = jax.value_and_grad(loss)(p, ids, types, mask, y)
        updates, st = opt.update(grads, st, p)
        return optax.apply_updates(p, updates), st, value

    predict = jax.jit(logits)

    def batches(rows, size, shuffle):
        encoded = [encode_row(r) for r in rows]
        order = np.argsort([len(e[0]) for e in encoded], kind="stable")  # similar lengths per batch
        groups = [order[i : i + size] for i in range(0, len(order), size)]
        if shuffle:
            rng.shuffle(groups)
        for group in groups:
            width = next(w for w in (16, 32, 64, 96, 128, 160) if w >= max(len(encoded[i][0]) for i in group))
            ids, types, mask = (np.zeros((len(group), width), t) for t in (np.int32, np.int32, np.float32))
            for j, i in enumerate(group):
                n = len(encoded[i][0])
                ids[j, :n], types[j, :n], mask[j, :n] = encoded[i][0], encoded[i][1], 1
            yield group, ids, types, mask

    print(f"train {len(train_rows)} units, eval {len(eval_rows)}; {args.epochs} epochs, lr {args.lr}, seed {args.seed}")
    start = time.perf_counter()
    for epoch in range(1, args.epochs + 1):
        losses = []
        for group, ids, types, mask in batches(train_rows, args.batch, True):
            params, state, value = step(params, state, ids, types, mask, jnp.asarray(gold_train[group]))
            losses.append(float(value))
        pred = [""] * len(eval_rows)
        for group, ids, types, mask in batches(eval_rows, 64, False):
            for i, row in zip(group, np.asarray(predict(params, ids, types, mask)).argmax(1)):
                pred[i] = labels[row]
        gold = [r["label"] for r in eval_rows]
        families = {
            fam: round(macro_f1(*zip(*[(g, p) for g, p, r in zip(gold, pred, eval_rows) if r["family"] == fam])), 3)
            for fam in sorted({r["family"] for r in eval_rows})
        }
        accuracy = sum(g == p for g, p in zip(gold, pred)) / len(gold)
        print(
            f"epoch {epoch}: loss {np.mean(losses):.3f}  eval macro-F1 {macro_f1(gold, pred):.3f}  accuracy "
            f"{accuracy:.3f}  per family {families}  [{time.perf_counter() - start:.0f} s]",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("step", choices=["dump", "train"])
    ap.add_argument("units", type=Path, help="the JSON Lines file dump writes and train reads")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-tokens", type=int, default=128)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--archive", choices=["none", "train"], default=None)
    args = ap.parse_args()
    if args.step == "dump":
        dump(args.units)
    else:
        train(args.units, args)


if __name__ == "__main__":
    main()
