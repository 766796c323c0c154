"""`graphfeed intent eval`: the configured intent model measured on a labelled units file."""

import argparse
from pathlib import Path

from pipelines.commands.common import EXIT_OK, usage_error


def cmd_intent(args: argparse.Namespace) -> int:
    from flow import settings
    from pipelines.commands.intent_eval import evaluate_file
    from pipelines.resources import intent_model

    path = Path(args.labels)
    if not path.is_file():
        return usage_error(f"no such labels file: {path}")
    llm = None
    if args.llm:
        from graph.llm.settings import llm_settings_from_env

        llm = llm_settings_from_env()
        if llm is None:
            return usage_error(
                "--llm needs an OpenAI-compatible endpoint: set GRAPHFEED_LLM_BASE_URL (and GRAPHFEED_LLM_API_KEY, "
                "GRAPHFEED_LLM_MODEL / GRAPHFEED_LLM_SMALL_MODEL, GRAPHFEED_LLM_PRICES for its price)"
            )
    resource = intent_model()

    def cascade(model):
        from flow.intent_cascade import open_intent_cascade
        from transforms.build import EpisodeSettings

        taxonomy = Path(resource.taxonomy_path) if resource.taxonomy_path else None
        episode_settings = EpisodeSettings(intent_threshold=args.threshold)
        return open_intent_cascade(llm, settings.home(), model, episode_settings, taxonomy)

    try:
        text = evaluate_file(
            path,
            lambda: resource.classifier(settings.home()),
            split=args.split,
            threshold=args.threshold,
            show_errors=args.errors,
            cascade=cascade if llm is not None else None,
        )
    except ValueError as exc:  # IntentDataError: names file and line
        return usage_error(str(exc))
    print(text)
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    it = sub.add_parser("intent", help="intent model: `eval` prints macro-F1, per-label/per-source F1, confusion")
    it.add_argument("action", choices=("eval",))
    it.add_argument("--labels", required=True, help="labelled units, JSON lines (docs/intent.md)")
    it.add_argument(
        "--split",
        choices=("eval", "train", "all"),
        default="all",
        help="which units of the file to score (by their `split` field; default all)",
    )
    it.add_argument("--threshold", type=float, default=None, help="`other` below this confidence (default: model's)")
    it.add_argument("--errors", type=int, default=0, help="list up to N misclassified units by source key")
    it.add_argument(
        "--llm",
        action="store_true",
        help="also run the LLM intent cascade (GRAPHFEED_LLM_*): macro-F1 local vs cascade, calls, tokens, USD",
    )
    it.set_defaults(func=cmd_intent)
