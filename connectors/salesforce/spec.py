"""The Salesforce source as the pipeline and the transforms see it: its settings (GRAPHFEED_SALESFORCE_*), readers,
facts and traits."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import SecretStr
from pydantic_settings import SettingsConfigDict

from connectors.source_spec import SourceSettings, SourceSpec, secret
from ground.source_traits import ClosingRule, MentionKind, SourceTraits

if TYPE_CHECKING:
    from ground.contract import Reader
    from transforms.fact_extractors import SourceFacts

# CRM master data (people, accounts, roles) is no one's writing: its rendered fields carry no intent.
NO_INTENT_KINDS = frozenset({"user", "contact", "contact_role", "account", "account_history"})
# ... and with field records (an opportunity's rendered fields) no one's prose: no dates stated in it.
NO_PROSE_KINDS = NO_INTENT_KINDS | {"opportunity"}

TRAITS = SourceTraits(
    name="salesforce",
    intent_family="crm",
    # records whose body is prose an author wrote; the others (account, opportunity, ...) are field summaries the
    # reader wrote from structured data: nothing to strip, and "Stage: Closed Won" lines must not collapse
    prose_kinds=frozenset({"email", "task", "event", "case", "note"}),
    reply_kinds=frozenset({"email"}),  # an EmailMessage's content loses its quoted replies like a mail's
    party_titles=True,  # an account's / contact's title is its name (transforms/reference_gazetteer.py)
    no_intent_kinds=NO_INTENT_KINDS,
    # an opportunity's won flag is the system of record's own word on closing: it alone says "closed a deal"
    closing_rules={"opportunity": ClosingRule(flag_field="IsWon", stage_field="StageName", won_stage="closed won")},
    # the reader's rendered field block ("Salesforce Task, ...") and field history are fields, except in a mail
    field_block_prefixes=("Salesforce ", "History:"),
    field_block_free_kinds=frozenset({"email"}),
    no_prose_kinds=NO_PROSE_KINDS,
    # salesforce:<Object>:<id>: the node's label is its object (Opportunity, Account, ...)
    mention=MentionKind(label="Opportunity", relation="MENTIONS_OPPORTUNITY", typed=True),
)
MENTIONS = {TRAITS.name: TRAITS.mention}  # its own namespace, for the entities its facts key by record


class SalesforceSettings(SourceSettings):
    """GRAPHFEED_SALESFORCE_*: a login or instance URL reads the REST/Bulk API for each partition's window, else the
    export files are read (with the instance URL and currency)."""

    model_config = SettingsConfigDict(env_prefix="GRAPHFEED_SALESFORCE_")

    login_url: str = ""  # https://login.salesforce.com, https://test.salesforce.com, My Domain
    instance_url: str | None = None
    username: str | None = None
    password: SecretStr | None = None  # secret
    security_token: SecretStr | None = None  # secret
    client_id: str | None = None
    client_secret: SecretStr | None = None  # secret
    objects: list[str] = []
    extra_fields: dict[str, list[str]] = {}  # Object -> more SOQL columns (custom __c fields): Object.Field,...
    domain: str = "login"  # SOAP login without a connected app: login / test / <mydomain>.my
    api_reserve: int = 1_000  # daily API calls left to the org's other users: the read stops before
    bulk_threshold: int = 10_000  # rows in a window from which Bulk API 2.0 is used
    currency: str = ""  # the org's currency (ISO code) for rows without CurrencyIsoCode


def export_reader(paths: Sequence[str | Path], s: SalesforceSettings) -> Reader:
    from connectors.archives import ArchiveLimits
    from connectors.salesforce.export_reader import SalesforceExportReader

    return SalesforceExportReader(
        paths, archive_limits=ArchiveLimits.from_env(), instance_url=s.instance_url, currency=s.currency or None
    )


def api_reader(s: SalesforceSettings) -> Reader | None:
    """The REST reader when a login or instance URL is set, else None (the export files are read)."""
    if not (s.login_url or s.instance_url):
        return None
    from connectors.salesforce.api_reader import SalesforceApiReader
    from connectors.salesforce.api_settings import SalesforceApiSettings

    return SalesforceApiReader(
        SalesforceApiSettings(
            login_url=s.login_url or None,
            instance_url=s.instance_url,
            username=s.username,
            client_id=s.client_id,
            password=s.password.get_secret_value() if s.password is not None else None,
            security_token=secret(s.security_token),
            client_secret=s.client_secret.get_secret_value() if s.client_secret is not None else None,
            domain=s.domain,
            extra_fields=s.extra_fields,
            api_reserve=s.api_reserve,
            bulk_threshold=s.bulk_threshold,
            currency=s.currency or None,
            **({"objects": s.objects} if s.objects else {}),
        )
    )


def facts() -> SourceFacts:
    from connectors.salesforce.facts import record_subject, salesforce_facts
    from transforms.fact_extractors import SourceFacts

    return SourceFacts(salesforce_facts, record_subject, TRAITS)


SPEC = SourceSpec(
    name="salesforce",
    traits=TRAITS,
    settings=SalesforceSettings,
    export_reader=export_reader,
    api_reader=api_reader,
    facts=facts,
)
