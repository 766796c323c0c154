"""The Salesforce source as the pipeline and the transforms see it (one spec per source package)."""

from ground.source_traits import ClosingRule, MentionKind, SourceTraits

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
