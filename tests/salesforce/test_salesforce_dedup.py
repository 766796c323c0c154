"""The mail Salesforce logged (EmailMessage) and the same mail from the email export fingerprint the same."""

from pathlib import Path

from connectors.email import EmailExportReader
from connectors.registry import traits_of
from connectors.salesforce import SalesforceExportReader
from ground.contract import split
from transforms.build import EpisodeSettings, make_episode, record_text

REPO = Path(__file__).resolve().parents[2]
MAIL = REPO / "sample" / "exports" / "email" / "archive-2026-q2" / "20260603-change-of-contact.eml"
SAMPLE = REPO / "sample" / "exports" / "salesforce"


def test_given_the_logged_mail_and_the_archived_mail_then_actor_content_and_fingerprint_match():
    (mail,), _ = split(EmailExportReader([MAIL]).read())
    logged = [r for r in split(SalesforceExportReader([SAMPLE]).read())[0] if r.kind == "email"]
    assert len(logged) == 1
    crm = logged[0]
    assert crm.actor.id == mail.actor.id == "dana.whitfield@acme.example"
    assert crm.occurred_at == mail.occurred_at
    assert record_text(crm, traits_of(crm.source)) == record_text(mail, traits_of(mail.source))
    settings = EpisodeSettings()
    a = make_episode(mail, record_text(mail, traits_of(mail.source)), "en", "decision", 0.9, [], settings)
    b = make_episode(crm, record_text(crm, traits_of(crm.source)), "en", "decision", 0.9, [], settings)
    assert a.fingerprint == b.fingerprint and a.id != b.id
    assert crm.fields["message_id"] == "<20260603.1000.dana@acme.example>"
