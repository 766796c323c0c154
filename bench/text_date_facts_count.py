"""How many dates written in text become facts (transforms/text_date_facts.py), on exports of any source.

Not a timing: counts of episodes, dates found in the author's prose (transforms.text_dates.find_dates), confirmed
dates and slot statements per slot kind, and with --show the sentences, so a reader can judge them by hand. Every
record is read by the source's own export reader and rendered as the pipeline renders it (transforms.build); the
intent does not matter to these facts, so no classifier runs.

    PYTHONPATH=$PWD .venv/bin/python bench/text_date_facts_count.py email ../shared/corpus/email [--show 20]
"""

import argparse
from collections import Counter

from assets.resources import SourceApisResource
from ground.records import RecordFailure, as_utc
from transforms.build import EpisodeSettings, make_episode, record_text
from transforms.language import detect_language
from transforms.text_date_facts import date_statements, prose, stated_by_prose
from transforms.text_dates import find_dates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("source", choices=["email", "jira", "confluence", "salesforce"])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--show", type=int, default=0, help="print this many statements with their sentences")
    args = parser.parse_args()
    counts: Counter[str] = Counter()
    shown = 0
    seen: set[str] = set()
    for record in SourceApisResource().export_reader(args.source, args.paths).read(None):
        if isinstance(record, RecordFailure):
            counts["failures"] += 1
            continue
        text = record_text(record)
        episode = make_episode(record, text, detect_language(text), "other", 0.0, [], EpisodeSettings())
        if episode.id in seen:
            continue
        seen.add(episode.id)
        counts["episodes"] += 1
        if not stated_by_prose(episode):
            continue
        when = as_utc(episode.timestamp)
        own = prose(episode)
        found = find_dates(own, episode.metadata.language, when).dates
        counts["episodes with a date in prose"] += bool(found)
        counts["dates in prose"] += len(found)
        statements = date_statements(own, episode.metadata.language, when)
        counts["episodes with a date fact"] += bool(statements)
        for s in statements:
            counts["confirmed dates"] += s.confirms
            if s.slot:
                counts[f"slot {s.slot}"] += 1
            if shown < args.show:
                shown += 1
                print(f"{record.source_key[:50]} | {s.slot or 'confirmed'} {s.date} ({s.form}) | {s.sentence[:160]}")
    for key, value in sorted(counts.items()):
        print(f"{key}: {value}")


if __name__ == "__main__":
    main()
