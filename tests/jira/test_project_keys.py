"""Issue 28 pattern 7: a Jira issue's text names issues of its own and sibling projects; the keys are learned from the
export (own keys, link targets, parent, changelog), kept under the graphfeed home, and accepted in mail read later."""

import datetime as dt

from connectors.jira.project_keys import learn_project_keys
from connectors.registry import source_traits
from flow import project_keys
from flow.episodes import stage_episodes
from flow.staging import RAW, Staging
from ground.records import Actor, SourceRecord
from transforms.build import EpisodeSettings
from transforms.references import ReferenceConfig

WHEN = dt.datetime(2018, 11, 20, 12, tzinfo=dt.UTC)
PARTITION = "2018-11-20"


class Constant:
    def predict(self, texts, languages=None, threshold=0.5, **inputs):
        return [("inform", 0.9) for _ in texts]


def issue(key: str, body: str, **fields) -> SourceRecord:
    return SourceRecord(
        source="jira",
        kind="issue",
        source_key=key,
        thread_key=key,
        title=f"Issue {key}",
        body=body,
        actor=Actor(id="jira:jvennemann", name="Jan Vennemann"),
        occurred_at=WHEN,
        updated_at=WHEN,
        related_keys=[link["key"] for link in fields.get("links", [])],
        fields={"issue_key": key, **fields},
    )


# the tidev export's shape: TIMOB-26391 is duplicated by TIMOB-26420 and relates to MOD-2464; a later change
# history moved an issue from the AC project.
ISSUES = [
    issue(
        "TIMOB-26391",
        "Same freeze as TIMOB-26420, and MOD-2464 tracks the module. UTF-8 and ISO-9001 are not issues.",
        links=[{"type": "Duplicate", "key": "TIMOB-26420"}, {"type": "Relates", "key": "MOD-2464"}],
    ),
    issue(
        "TIMOB-26420",
        "Looks like AC-5432 again.",
        history=[{"field": "Key", "from_string": "AC-5432", "to_string": "TIMOB-26420"}],
    ),
]


def references(episodes):
    return {e.metadata.source_key: e.references for e in episodes}


def test_given_a_jira_export_then_its_projects_are_learned_from_keys_links_and_history():
    assert learn_project_keys(ISSUES) == {"TIMOB", "MOD", "AC"}


def test_given_no_configured_keys_when_a_jira_partition_is_staged_then_keys_of_learned_projects_are_references(
    tmp_path,
):
    # given the two issues staged for one partition and no GRAPHFEED_JIRA_PROJECT_KEYS
    staging = Staging(str(tmp_path / "staging"))
    staging.write_all("jira", RAW, PARTITION, ISSUES)
    settings = EpisodeSettings(references=ReferenceConfig(ner=False), source_traits=source_traits())
    # when the episodes are built
    stage_episodes(staging, "jira", [PARTITION], Constant(), settings)
    # then the keys of the own and the sibling projects are references, the look-alikes are not
    built = references(_episodes(staging, "jira"))
    assert {"jira:issue:TIMOB-26420", "jira:issue:MOD-2464"} <= set(built["TIMOB-26391"])
    assert not [r for r in built["TIMOB-26391"] if "UTF" in r or "ISO" in r]
    assert "jira:issue:AC-5432" in built["TIMOB-26420"]


def test_given_a_jira_run_then_a_later_mail_run_accepts_keys_of_its_projects(tmp_path):
    # given a Jira run that learned its projects under this home
    staging = Staging(str(tmp_path / "staging"))
    staging.write_all("jira", RAW, PARTITION, ISSUES)
    settings = EpisodeSettings(references=ReferenceConfig(ner=False), source_traits=source_traits())
    stage_episodes(staging, "jira", [PARTITION], Constant(), settings)
    # when a mail naming an issue of a learned project and a look-alike is staged afterwards
    mail = SourceRecord(
        source="email",
        kind="email",
        source_key="<abc@example.com>",
        title="Freeze",
        body="Is MOD-2464 released? We hit SHA-256 errors too.",
        actor=Actor(id="ada@example.com"),
        occurred_at=WHEN,
        updated_at=WHEN,
    )
    staging.write_all("email", RAW, PARTITION, [mail])
    stage_episodes(staging, "email", [PARTITION], Constant(), settings)
    # then the mail references the issue and not the look-alike
    (refs,) = references(_episodes(staging, "email")).values()
    assert "jira:issue:MOD-2464" in refs
    assert not [r for r in refs if r.startswith("jira:") and "SHA" in r]
    # and the learned keys are kept under the home
    assert project_keys.load(staging) == {"TIMOB", "MOD", "AC"}


def _episodes(staging, source):
    from ground.episode import Episode

    return [Episode.model_validate(row) for row in staging.rows(source, "episodes", PARTITION)]
