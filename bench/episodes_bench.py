"""Episodes stage speed (what `graphfeed preview` does: read, build episodes, dedup) over the shared e-mail corpus,
with NER as before this change (spaCy with its unused shared tok2vec), with NER as now, and without NER.

usage: python bench/episodes_bench.py [--corpus ../shared/corpus/email] [--repeat 1]
Prints records/s per CPU-second of this process (robust on a shared machine) and wall records/s, and ratios against
the "before" row measured in the same run. Targets: >= 150 records/s/core with NER, >= 500 without.
"""

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from transforms import ner  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def preview_once(paths: list[str], use_ner: bool) -> tuple[int, float, float]:
    """(records, CPU seconds, wall seconds) of one preview pass, output discarded."""
    from assets.resources import IntentModelResource
    from flow import settings
    from flow.staging import spooled_dedup
    from ground.records import RecordFailure
    from pipelines.resources import api_resources
    from transforms.build import EpisodeSettings, build_episodes
    from transforms.references import ReferenceConfig

    classifier = IntentModelResource().classifier(settings.home())
    config = EpisodeSettings(references=ReferenceConfig(ner=use_ner))
    reader = api_resources()["apis"].export_reader("email", paths)
    seen = 0

    def records():
        nonlocal seen
        for item in reader.read(None):
            seen += 1
            if not isinstance(item, RecordFailure):
                yield item

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
    import spacy

    print(f"corpus {args.corpus}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores at start")
    before = [p for p in ner.EXCLUDE if p != "tok2vec"]
    rows = []
    for title, exclude, use_ner in (
        ("NER before (tok2vec loaded, unsorted)", before, True),
        ("NER now (ner only, batched by length)", ner.EXCLUDE, True),
        ("without NER", ner.EXCLUDE, False),
    ):
        ner._nlp = spacy.load(ner.MODEL, exclude=exclude)
        preview_once([args.corpus], use_ner)  # warm-up: intent model, spaCy caches
        runs = [preview_once([args.corpus], use_ner) for _ in range(args.repeat)]
        n, cpu, wall = min(runs, key=lambda r: r[1])
        rows.append((title, n, cpu, wall))
    base = rows[0][1] / rows[0][2]
    for title, n, cpu, wall in rows:
        target = 150 if "NER" in title and "without" not in title else 500
        rate = n / cpu
        print(
            f"  {title:<40}: {n} records, {rate:6.0f} records/s per CPU-second ({rate / base:4.1f}x before; "
            f"target >= {target}: {'met' if rate >= target else 'NOT met'}), {n / wall:6.0f}/s wall"
        )
    print(f"load {os.getloadavg()[0]:.1f} at end")


if __name__ == "__main__":
    main()
