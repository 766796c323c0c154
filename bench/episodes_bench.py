"""Episodes stage speed (what `graphfeed preview` does: read, build episodes, dedup) over the shared e-mail corpus,
with and without NER, each before and after the per-input cache of transforms.build (DERIVED_CACHE: content,
language, intent and references computed once per distinct input of a run; "before" keeps them for one batch only).

usage: python bench/episodes_bench.py [--corpus ../shared/corpus/email] [--repeat 1]
Prints records/s per CPU-second of this process (robust on a shared machine) and wall records/s, and ratios against
the matching "before" row measured in the same run. Targets: >= 150 records/s/core with NER, >= 500 without.
Each row is measured after a warm-up pass (intent model and spaCy loaded, the embedder's per-text cache filled).
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from transforms import build  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def preview_once(paths: list[str], use_ner: bool) -> tuple[int, float, float]:
    """(records, CPU seconds, wall seconds) of one preview pass, output discarded."""
    from assets.resources import IntentModelResource
    from connectors.registry import source_traits
    from flow import settings
    from flow.staging import spooled_dedup
    from ground.records import RecordFailure
    from pipelines.resources import api_resources
    from transforms.build import EpisodeSettings, build_episodes
    from transforms.intent.embedding import shared_embedder
    from transforms.references import ReferenceConfig

    classifier = IntentModelResource().classifier(settings.home())
    config = EpisodeSettings(references=ReferenceConfig(ner=use_ner), source_traits=source_traits())
    reader = api_resources()["apis"].export_reader("email", paths)
    seen = 0

    def records():
        nonlocal seen
        for item in reader.read(None):
            seen += 1
            if not isinstance(item, RecordFailure):
                yield item

    shared_embedder().forget()  # each pass pays its MiniLM forward passes, as a run's first pass does
    c, t = time.process_time(), time.perf_counter()
    with spooled_dedup(build_episodes(records(), classifier, config, on_failure=lambda f: None)) as (unique, _):
        for episode in unique:
            episode.model_dump_json()
    return seen, time.process_time() - c, time.perf_counter() - t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(ROOT.parent / "shared" / "corpus" / "email"))
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    print(f"corpus {args.corpus}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at start")
    cache_size = build.DERIVED_CACHE
    rows = []
    for title, use_ner, cache in (
        ("NER before (derived per batch)", True, 0),
        ("NER now (derived once per input)", True, cache_size),
        ("without NER before", False, 0),
        ("without NER now", False, cache_size),
    ):
        build.DERIVED_CACHE = cache
        preview_once([args.corpus], use_ner)  # warm-up: models loaded (the embedding cache is cleared per pass)
        runs = [preview_once([args.corpus], use_ner) for _ in range(args.repeat)]
        n, cpu, wall = min(runs, key=lambda r: r[1])
        rows.append((title, use_ner, n, cpu, wall))
    build.DERIVED_CACHE = cache_size
    base = {use_ner: n / cpu for title, use_ner, n, cpu, _ in rows if "before" in title}
    for title, use_ner, n, cpu, wall in rows:
        target = 150 if use_ner else 500
        rate = n / cpu
        print(
            f"  {title:<34}: {n} records, {rate:6.0f} records/s per CPU-second ({rate / base[use_ner]:4.1f}x before; "
            f"target >= {target}: {'met' if rate >= target else 'NOT met'}), {n / wall:6.0f}/s wall"
        )
    print(f"load {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
