"""How many dates written in text become facts (transforms/text_date_facts.py), on exports of any source.

Not a timing: counts of episodes, dates found in the author's prose (transforms.text_dates.find_dates) and the date
facts transforms.intent_facts writes from them (confirmed dates, slot values), with --show their sentences, so a
reader can judge them by hand. Every
record is read by the source's own export reader and rendered as the pipeline renders it (transforms.build); the
intent does not matter to these facts, so no classifier runs.

    PYTHONPATH=$PWD .venv/bin/python bench/text_date_facts_count.py email ../shared/corpus/email [--show 20]
"""

import argparse
from collections import Counter

from assets.resources import SourceApisResource
from connectors.registry import intent_subjects, source_traits, traits_of
from ground.records import RecordFailure, as_utc
from transforms.build import EpisodeSettings, make_episode, record_text
from transforms.intent_facts import intent_facts
from transforms.language import detect_language
from transforms.text_date_facts import prose, stated_by_prose
from transforms.text_dates import find_dates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", choices=["email", "jira", "confluence", "salesforce"])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--show", type=int, default=0, help="print this many statements with their sentences")
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    subjects = intent_subjects()
    shown = 0
    seen: set[str] = set()
    for record in SourceApisResource().export_reader(args.source, args.paths).read(None):
        if isinstance(record, RecordFailure):
            counts["failures"] += 1
            continue
        text = record_text(record, traits_of(record.source))
        episode = make_episode(record, text, detect_language(text), "other", 0.0, [], EpisodeSettings())
        if episode.id in seen:
            continue
        seen.add(episode.id)
        counts["episodes"] += 1
        traits = traits_of(record.source)
        if not stated_by_prose(episode, traits):
            continue
        when = as_utc(episode.timestamp)
        own = prose(episode, traits)
        found = find_dates(own, episode.metadata.language, when).dates
        counts["episodes with a date in prose"] += bool(found)
        counts["dates in prose"] += len(found)
        facts = [
            f
            for f in intent_facts(episode, subjects=subjects, traits=source_traits()).facts
            if f.attributes.get("kind") != "intent"
        ]
        counts["episodes with a date fact"] += bool(facts)
        for f in facts:
            counts[f"facts {f.predicate}"] += 1
            if shown < args.show:
                shown += 1
                print(f"{record.source_key[:50]} | {f.predicate} {f.attributes['date']} | {f.attributes['sentence']}")
    for key, value in sorted(counts.items()):
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
