"""`graphfeed references eval`: the reference extractor measured on the labelled reference set."""

import argparse
import json
import sys
from pathlib import Path

from pipelines.commands.common import EXIT_OK, usage_error

REPO = Path(__file__).resolve().parents[2]
DEFAULT_LABELLED = REPO / "data" / "references" / "labelled"
DEFAULT_CORPUS = REPO / ".." / "shared" / "corpus"


def cmd_references(args: argparse.Namespace) -> int:
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


def register(sub: argparse._SubParsersAction) -> None:
    rf = sub.add_parser(
        "references",
        help="references: `eval` prints precision/recall per kind on the labelled set (docs/references.md)",
    )
    rf.add_argument("action", choices=("eval",))
    rf.add_argument(
        "--labelled", default=str(DEFAULT_LABELLED), help="folder or file of labelled episodes (JSON lines)"
    )
    rf.add_argument(
        "--split", choices=("dev", "eval", "all"), default="eval", help="which labelled episodes (default eval)"
    )
    rf.add_argument("--corpus", default=str(DEFAULT_CORPUS), help="the corpus the labels' corpus_file paths are under")
    rf.add_argument("--show", type=int, default=5, help="false positives and misses shown per kind (default 5)")
    rf.add_argument("--json", action="store_true", help="the figures and every example as JSON")
    rf.set_defaults(func=cmd_references)
