"""`graphfeed llm check`: scenario probes through the configured model and the grounding guard (probe.py), so a user
sees whether their model is fit for LLM extraction before a nightly run pays for it."""

import argparse
import json

from pipelines.commands.common import EXIT_OK, usage_error


def cmd_llm(args: argparse.Namespace) -> int:
    from graph.llm.probe import check, report_lines, summary
    from graph.llm.settings import llm_settings_from_env

    settings = llm_settings_from_env()
    if settings is None:
        return usage_error("no model configured: set GRAPHFEED_LLM_BASE_URL (and GRAPHFEED_LLM_MODEL, _API_KEY)")
    if args.max_tokens:
        settings = settings.model_copy(update={"max_tokens": args.max_tokens})
    import asyncio  # not at import time: every command's parser is built on each call

    results = asyncio.run(check(settings))
    if args.json:
        print(json.dumps({"summary": summary(results), "probes": [r.model_dump() for r in results]}, indent=2))
        return EXIT_OK
    print(f"model {settings.model} at {settings.base_url} (max_tokens {settings.max_tokens})")
    for line in report_lines(results):
        print(line)
    s = summary(results)
    print(
        f"known values kept {s['known_kept']}/{s['known_total']}; guard dropped {s['dropped']}; "
        f"prompts the model failed {s['failed_prompts']}"
    )
    return EXIT_OK


def register(sub: argparse._SubParsersAction) -> None:
    lm = sub.add_parser("llm", help="the LLM extraction path: `check` probes the configured model and the guard")
    lm.add_argument("action", choices=("check",))
    lm.add_argument("--max-tokens", type=int, help="per call (default: GRAPHFEED_LLM_MAX_TOKENS)")
    lm.add_argument("--json", action="store_true")
    lm.set_defaults(func=cmd_llm)
