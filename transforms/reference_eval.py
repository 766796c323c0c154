"""Gold references against extracted ones: per-kind precision and recall with a Wilson 95 % interval, the product
match rate of versions, and the worst examples. Pure: `graphfeed references eval` and bench/references_quality.py
feed it.

Both sides are reduced to one comparable key per kind: names casefolded, whitespace collapsed, without a trailing
"'s"; URLs by transforms.references.normalise_url; dates by ISO day; money as CUR:amount; issue keys upper-case;
Salesforce ids by their first 15 characters; versions by the version string without a leading "v" (the product
is compared apart, so a right version with a missing product still counts). Extracted references are read from
their canonical ids (an episode carries ids only); an id of no known shape is counted as unscored, never guessed.
"""

import math
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import NamedTuple

from transforms.reference_ids import normalise_url, org_key

Z95 = 1.959964

# id prefix -> kind, longest first so "email_address:" wins over "email:".
_PREFIXES = (
    ("email_address:", "email_address"),
    ("confluence:page:", "confluence_page"),
    ("attachment:name:", "attachment"),
    ("attachment:", "attachment"),
    ("jira:issue:", "jira_issue"),
    ("salesforce:", "salesforce_record"),
    ("version:", "version"),
    ("person:", "person"),
    ("email:", "email_message"),
    ("money:", "money"),
    ("date:", "date"),
    ("org:", "organization"),
    ("url:", "url"),
)


def name_key(name: str) -> str:
    """A person/organisation/product name compared casefolded, whitespace collapsed, without a trailing "'s"."""
    folded = " ".join(unicodedata.normalize("NFC", name).casefold().split())
    for suffix in ("'s", "\u2019s"):
        if folded.endswith(suffix):
            return folded.removesuffix(suffix).rstrip()
    return folded


def version_key(version: str) -> str:
    version = version.strip()
    if version[:1] in ("v", "V") and version[1:2].isdigit():
        version = version[1:]
    return version.casefold()


def _money_key(currency: str, amount: str) -> str:
    try:
        return f"{currency.upper()}:{Decimal(amount.replace(',', '')).normalize():f}"
    except InvalidOperation:  # a malformed value stays as written and simply never matches
        return f"{currency.upper()}:{amount}"


def gold_key(kind: str, value: str) -> str:
    """The comparable key of a labelled value."""
    value = value.strip()
    if kind == "organization":  # "Acme Corp." and "Acme Corp" are one id (reference_ids.org_key)
        return org_key(name_key(value))
    if kind == "person":
        return name_key(value)
    if kind == "url":
        return normalise_url(value) or value
    if kind == "money":
        currency, _, amount = value.partition(" ")
        return _money_key(currency, amount)
    if kind == "date":
        return value[:10]
    if kind == "jira_issue":
        return value.upper()
    if kind == "salesforce_record":
        return value[:15]
    if kind == "email_message":
        return value.strip("<>")
    if kind == "version":
        return version_key(value)
    if kind == "confluence_page":
        return value.split("@", 1)[0]
    return unicodedata.normalize("NFKC", value).casefold()  # attachment, email_address


class Found(NamedTuple):
    kind: str
    key: str
    product: str | None = None  # versions only


def found_key(ref_id: str, attachment_names: Mapping[str, str] | None = None) -> Found | None:
    """The kind and comparable key of an extracted reference id; None for an id of no known shape (e.g. a name the
    configuration mapped to an id of its own). `attachment_names` names attachments known by content hash."""
    match = next(((p, k) for p, k in _PREFIXES if ref_id.startswith(p)), None)
    if match is None:
        return None
    prefix, kind = match
    rest = ref_id[len(prefix) :]
    if kind == "attachment":
        # attachment:name:<issue or thread>/<file> (a file known by name is scoped), attachment:<hash> by its name
        name = rest.rsplit("/", 1)[-1] if prefix == "attachment:name:" else (attachment_names or {}).get(ref_id)
        # NFKC: a macOS file name is stored decomposed (NFD Hangul), the episode content is NFKC-normalised
        return Found(kind, unicodedata.normalize("NFKC", name).casefold()) if name else None
    if kind == "version":
        product, _, version = rest.rpartition("/")
        return Found(kind, version_key(version), name_key(product) if product else None)
    if kind == "money":
        currency, _, amount = rest.partition(":")
        return Found(kind, _money_key(currency, amount))
    if kind == "salesforce_record":
        return Found(kind, rest.rsplit(":", 1)[-1][:15])
    if kind == "url":
        return Found(kind, normalise_url(rest) or rest)
    if kind == "organization":
        return Found(kind, org_key(name_key(rest)))
    if kind == "person":
        return Found(kind, name_key(rest))
    return Found(kind, gold_key(kind, rest))


class Gold(NamedTuple):
    kind: str
    value: str
    text: str = ""
    product: str | None = None


class Example(NamedTuple):
    uid: str
    kind: str
    outcome: str  # "false positive" or "miss"
    key: str
    text: str  # the labelled surface text of a miss; the id's value of a false positive
    errors: int  # errors of the episode (to rank the worst first)


class KindScore(NamedTuple):
    kind: str
    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float | None:
        return proportion(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return proportion(self.tp, self.tp + self.fn)

    @property
    def precision_ci(self) -> tuple[float, float] | None:
        return wilson(self.tp, self.tp + self.fp)

    @property
    def recall_ci(self) -> tuple[float, float] | None:
        return wilson(self.tp, self.tp + self.fn)


class EvalReport(NamedTuple):
    units: int
    kinds: dict[str, KindScore]
    examples: list[Example]
    versions_with_product: int  # matched versions whose label names a product
    products_matched: int  # ... of which the extractor tied it to the same product
    unscored: int  # extracted ids of no known shape


def proportion(successes: int, trials: int) -> float | None:
    return successes / trials if trials else None


def wilson(successes: int, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval of a proportion; None when there are no trials."""
    if trials <= 0:
        return None
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def score(
    units: Iterable[tuple[str, Sequence[Gold], Sequence[str]]],
    kinds: Sequence[str],
    attachment_names: Mapping[str, str] | None = None,
) -> EvalReport:
    """Score (uid, gold references, extracted reference ids) triples on `kinds`; other kinds are left out."""
    counts: dict[str, Counter] = {kind: Counter() for kind in kinds}
    examples: list[Example] = []
    with_product = products_matched = unscored = n = 0
    for uid, gold, found_ids in units:
        n += 1
        gold_by: dict[tuple[str, str], Gold] = {}
        for g in gold:
            if g.kind in counts:
                gold_by.setdefault((g.kind, gold_key(g.kind, g.value)), g)
        found_by: dict[tuple[str, str], Found] = {}
        for ref_id in found_ids:
            found = found_key(ref_id, attachment_names)
            if found is None:
                unscored += 1
            elif found.kind in counts:
                found_by.setdefault((found.kind, found.key), found)
        unit_examples = []
        for key in gold_by.keys() | found_by.keys():
            kind = key[0]
            if key in gold_by and key in found_by:
                counts[kind]["tp"] += 1
                product = gold_by[key].product
                if kind == "version" and product:
                    with_product += 1
                    products_matched += found_by[key].product == name_key(product)
            elif key in found_by:
                counts[kind]["fp"] += 1
                unit_examples.append((uid, kind, "false positive", key[1], key[1]))
            else:
                counts[kind]["fn"] += 1
                unit_examples.append((uid, kind, "miss", key[1], gold_by[key].text or key[1]))
        examples += [Example(*e, errors=len(unit_examples)) for e in unit_examples]
    scores = {k: KindScore(k, c["tp"], c["fp"], c["fn"]) for k, c in counts.items()}
    examples.sort(key=lambda e: (-e.errors, e.uid, e.kind, e.outcome, e.key))
    return EvalReport(n, scores, examples, with_product, products_matched, unscored)


def figure(value: float | None, ci: tuple[float, float] | None) -> str:
    """A proportion and its interval as the reports print it ("0.70 [0.56, 0.82]"), 17 characters wide."""
    return f"{'n/a':<17}" if value is None or ci is None else f"{value:4.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def format_report(report: EvalReport, *, title: str = "", show: int = 0) -> str:
    """A table per kind (P [95 % CI], R [95 % CI], tp/fp/fn), then up to `show` false positives and misses per kind,
    from the episodes with most errors first."""
    lines = [f"{title}{report.units} episodes"]
    lines.append(f"  {'kind':<18} {'P [95% CI]':<17} {'R [95% CI]':<17} {'tp':>4} {'fp':>4} {'fn':>4}")
    for s in report.kinds.values():
        lines.append(
            f"  {s.kind:<18} {figure(s.precision, s.precision_ci)} {figure(s.recall, s.recall_ci)} "
            f"{s.tp:4d} {s.fp:4d} {s.fn:4d}"
        )
    tp, fp, fn = (sum(getattr(s, f) for s in report.kinds.values()) for f in ("tp", "fp", "fn"))
    total = KindScore("all", tp, fp, fn)
    lines.append(
        f"  {'all kinds':<18} {figure(total.precision, total.precision_ci)} "
        f"{figure(total.recall, total.recall_ci)} {tp:4d} {fp:4d} {fn:4d}"
    )
    if report.versions_with_product:
        lines.append(
            f"  versions matched with a labelled product: {report.versions_with_product}, "
            f"product matched too: {report.products_matched}"
        )
    if report.unscored:
        lines.append(f"  extracted ids of no known shape (not scored): {report.unscored}")
    if show:
        by_kind: dict[tuple[str, str], list[Example]] = defaultdict(list)
        for e in report.examples:
            by_kind[(e.kind, e.outcome)].append(e)
        for kind in report.kinds:
            for outcome in ("false positive", "miss"):
                for e in by_kind[(kind, outcome)][:show]:
                    lines.append(f"  {outcome:<14} {kind:<18} {e.text!r}  ({e.uid})")
    return "\n".join(lines)


def report_dict(report: EvalReport) -> dict:
    """The report as plain data (for --json)."""
    return {
        "units": report.units,
        "kinds": {
            k: {
                "tp": s.tp,
                "fp": s.fp,
                "fn": s.fn,
                "precision": s.precision,
                "precision_ci": s.precision_ci,
                "recall": s.recall,
                "recall_ci": s.recall_ci,
            }
            for k, s in report.kinds.items()
        },
        "versions_with_product": report.versions_with_product,
        "products_matched": report.products_matched,
        "unscored": report.unscored,
        "examples": [e._asdict() for e in report.examples],
    }
