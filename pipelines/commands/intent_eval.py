"""`graphfeed intent eval`: the configured intent model measured on any labelled units file.

Units are keyed by source key (uid when given): a key labelled twice is an error, so a figure never counts one unit
twice. The units are prepared exactly as episodes are (transforms.author_text), so the figure is the pipeline's.
With `--llm` the LLM intent cascade runs over the same units and both figures are printed, with what it cost.
"""

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from transforms.fingerprint import fingerprint
from transforms.intent.data import IntentDataError
from transforms.intent.metrics import format_report, macro_f1, report
from transforms.intent.units import ClassifierInput, LabelledUnit, load_units, prepare, unit_key

EVAL_SOURCE = "intent_eval"  # the source its spend is logged under (not a real source's nightly budget)


def evaluate_file(
    path: Path,
    classifier: Callable[[], object],
    *,
    split: str = "all",
    threshold: float | None = None,
    show_errors: int = 0,
    cascade: Callable[[Any], Any] | None = None,
) -> str:
    """`cascade(model)` opens the LLM intent cascade for the model (graph/llm/intent.py); it is closed here."""
    units = load_units([path])
    if split != "all":
        units = [u for u in units if u.split == split]
    if not units:
        raise IntentDataError(f"{path}: no units{'' if split == 'all' else f' with split={split}'} to evaluate")
    seen: dict[str, int] = {}
    for n, unit in enumerate(units):
        key = unit_key(unit)
        if key and key in seen:
            raise IntentDataError(f"{path}: unit {key!r} is labelled twice")
        seen[key] = n
    model = classifier()
    unknown = sorted({u.label for u in units} - set(model.labels))
    if unknown:
        raise IntentDataError(f"{path}: labels {unknown} are not in the model's taxonomy ({', '.join(model.labels)})")
    inputs = [prepare(u) for u in units]
    predicted = model.predict(
        [i.text for i in inputs],
        [i.lang for i in inputs],
        threshold=threshold,
        subjects=[i.subject for i in inputs],
        families=[i.family for i in inputs],
        contexts=[i.context for i in inputs],
    )
    pred = [label for label, _ in predicted]
    rep = report([u.label for u in units], pred, [u.source_family for u in units], model.labels)
    lines = [format_report(rep, title=f"{path.name} ({split}): ")]
    wrong = [(unit_key(u), u.label, p) for u, p in zip(units, pred) if u.label != p]
    for key, gold, p in wrong[:show_errors]:
        lines.append(f"  wrong: {key}  gold {gold}  predicted {p}")
    if cascade is not None:
        lines.extend(_cascade_lines(path, split, units, inputs, predicted, model, cascade))
    return "\n".join(lines)


def _cascade_lines(
    path: Path,
    split: str,
    units: Sequence[LabelledUnit],
    inputs: Sequence[ClassifierInput],
    predicted: Sequence[tuple[str, float]],
    model: Any,
    open_cascade: Callable[[Any], Any],
) -> list[str]:
    from graph.llm.intent import CascadeUnit

    gold = [u.label for u in units]
    local = [label for label, _ in predicted]
    queue = [
        # the cache key is what an episode's fingerprint would be: local label, the unit's text, its own key
        CascadeUnit(
            fingerprint(label, f"{item.subject}\n\n{item.text}", f"eval:{unit_key(unit)}"),
            unit_key(unit),
            EVAL_SOURCE,
            item,
            label,
            confidence,
        )
        for unit, item, (label, confidence) in zip(units, inputs, predicted)
    ]
    with open_cascade(model) as cascade:
        cascaded = [d.label for d in cascade.run(queue)]
        stats, threshold, llm_model = cascade.stats, cascade.threshold, cascade.model
        priced = cascade.settings.price_table().knows(llm_model)
    m = stats.metrics()
    rep = report(gold, cascaded, [u.source_family for u in units], model.labels)
    below = m["below_threshold"]
    fallbacks = ", ".join(f"{k.split('/', 1)[1]} {v}" for k, v in m.items() if k.startswith("fallback/")) or "none"
    return [
        format_report(rep, title=f"{path.name} ({split}) LLM cascade: "),
        f"LLM cascade ({llm_model}, below confidence {threshold:g}): macro-F1 local {macro_f1(gold, local, model.labels):.3f}"
        f" -> cascade {rep.macro_f1:.3f}",
        f"  units {len(units)}  below threshold {below} ({below / len(units):.1%})  from cache {m['cached']}"
        f"  LLM labels {m['llm_labels']} (changed {m['changed']})  local label kept: {fallbacks}",
        f"  calls {m['calls']} (retries {m['retries']})  tokens in {m['tokens_in']:,} out {m['tokens_out']:,}"
        f"  USD {m['cost_usd']:.4f}"
        + ("" if priced else f"  ({llm_model} has no price: set GRAPHFEED_LLM_PRICES)")
        + (f"  stopped by {m['stopped_by']}" if "stopped_by" in m else ""),
    ]
