"""`graphfeed references eval`: the reference extractor measured on the labelled reference set; `graphfeed references
judged`: its precision on held-out text judged by hand (transforms/reference_judged.py)."""

import argparse
import json
import sys
from pathlib import Path

from pipelines.commands.common import EXIT_OK, usage_error

REPO = Path(__file__).resolve().parents[2]
DEFAULT_LABELLED = REPO / "data" / "references" / "labelled"
DEFAULT_CORPUS = REPO / ".." / "shared" / "corpus"
DEFAULT_JUDGED = REPO / "data" / "references" / "judged"


def cmd_references(args: argparse.Namespace) -> int:
    if args.action == "judged":
        return _judged(args)
    from pipelines.commands.references_eval import evaluate
    from transforms.reference_eval import format_report, report_dict
    from transforms.reference_labels import ReferenceLabelError, load_labelled

    corpus = Path(args.corpus)
    if not corpus.is_dir():
        return usage_error(f"no corpus folder {corpus} (the labelled files' corpus_file paths are relative to it)")
    try:
        units = load_labelled(Path(args.labelled))
    except ReferenceLabelError as exc:  # names file and line
        return usage_error(str(exc))
    if args.split != "all":
        units = [u for u in units if u.split == args.split]
    if not units:
        return usage_error(
            f"no labelled episodes{'' if args.split == 'all' else f' in split {args.split}'} in {args.labelled}"
        )
    try:
        result = evaluate(units, corpus, warn=lambda message: print(f"WARNING: {message}", file=sys.stderr))
    except ValueError as exc:  # a reader setting from the environment is unusable
        return usage_error(str(exc))
    if args.json:
        data = report_dict(result.report)
        data.update(
            split=args.split, metadata_only=result.metadata_only, missing=result.missing, drifted=result.drifted
        )
        print(json.dumps(data, ensure_ascii=False, indent=1))
    else:
        print(format_report(result.report, title=f"references eval ({args.split} split): ", show=args.show))
        print(
            f"  episodes missing from today's build: {result.missing}; content drifted: {result.drifted}; "
            f"attachments and thread Message-IDs of the record that the content does not name (not scored): {result.metadata_only}"
        )
    return EXIT_OK


def _judged(args: argparse.Namespace) -> int:
    """Today's references of every judged text, read as the pipeline reads them, scored on the judgments."""
    from pipelines.resources import episode_config
    from transforms.language import detect_language
    from transforms.reference_judged import JudgedReferenceError, format_judged, judge, load_judged
    from transforms.references import extract_references_batch

    try:
        judged = load_judged(Path(args.judged))
    except JudgedReferenceError as exc:
        return usage_error(str(exc))
    texts = {j.uid: j for j in judged}  # one text per uid
    config = episode_config().episode_settings().references
    keys = sorted({j.id.removeprefix("jira:issue:").rsplit("-", 1)[0] for j in judged if j.kind == "jira_issue"})
    config = config.model_copy(update={"jira_project_keys": sorted({*config.jira_project_keys, *keys})})
    uids = sorted(texts)
    found = extract_references_batch(
        [texts[u].text for u in uids],
        [detect_language(texts[u].text) for u in uids],
        config=config,
        reference_dates=[texts[u].record_date for u in uids],
        title_ends=[len(texts[u].text) if texts[u].title else 0 for u in uids],
    )
    by_uid = {u: [(r.kind, r.id) for r in refs] for u, refs in zip(uids, found)}
    for split in ("test", "tune"):
        part = [j for j in judged if j.split == split]
        rows = judge(part, {j.uid: by_uid[j.uid] for j in part})
        print(format_judged(rows, title=f"references judged ({split} split, held-out text): {len(part)} judgments"))
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    rf = sub.add_parser(
        "references",
        help="references: `eval` prints precision/recall per kind on the labelled set, `judged` precision on held-out "
        "text judged by hand (docs/references.md)",
    )
    rf.add_argument("action", choices=("eval", "judged"))
    rf.add_argument(
        "--labelled", default=str(DEFAULT_LABELLED), help="folder or file of labelled episodes (JSON lines)"
    )
    rf.add_argument(
        "--split", choices=("dev", "eval", "all"), default="eval", help="which labelled episodes (default eval)"
    )
    rf.add_argument("--judged", default=str(DEFAULT_JUDGED), help="folder or file of judged references (JSON lines)")
    rf.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="the corpus the labels' corpus_file paths are under")
    rf.add_argument("--show", type=int, default=5, help="false positives and misses shown per kind (default 5)")
    rf.add_argument("--json", action="store_true", help="the figures and every example as JSON")
    rf.set_defaults(func=cmd_references)
