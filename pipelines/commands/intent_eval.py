"""`graphfeed intent eval`: the configured intent model measured on any labelled units file.

Units are keyed by source key (uid when given): a key labelled twice is an error, so a figure never counts one unit
twice. The units are prepared exactly as episodes are (transforms.author_text), so the figure is the pipeline's.
"""

from collections.abc import Callable
from pathlib import Path

from transforms.intent.data import IntentDataError
from transforms.intent.metrics import format_report, report
from transforms.intent.units import load_units, prepare, unit_key


def evaluate_file(
    path: Path,
    classifier: Callable[[], object],
    *,
    split: str = "all",
    threshold: float | None = None,
    show_errors: int = 0,
) -> str:
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
    return "\n".join(lines)
