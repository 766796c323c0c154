"""What graphfeed knows about Salesforce objects: record kind, title/body fields, who owns it, what it belongs to.

Anything not listed (custom objects, ``__c``) is read generically: Name/Subject as title, Description as body and every
other non-system field rendered as ``Label: value``. Child objects (histories, case comments) are folded into their
parent record so the parent's facts carry their own change history.
"""

from pydantic import BaseModel, Field


class ObjectSpec(BaseModel):
    name: str
    kind: str
    title: list[str] = Field(default_factory=lambda: ["Name", "Subject"])
    body: list[str] = Field(default_factory=lambda: ["Description"])  # rendered as "Label: value" lines
    text: list[str] = Field(default_factory=lambda: ["Description"])  # free text appended as paragraphs
    event: bool = False  # something that happened once (mail, call): occurred_at = its own date
    when: list[str] = Field(default_factory=list)  # the event's own date fields, before CreatedDate
    account: list[str] = Field(default_factory=lambda: ["AccountId"])
    related: list[str] = Field(default_factory=list)  # lookups rendered and kept as links (WhatId, OpportunityId)


OBJECTS: dict[str, ObjectSpec] = {
    s.name: s
    for s in [
        ObjectSpec(
            name="Account",
            kind="account",
            title=["Name"],
            body=["Type", "Industry", "Website", "BillingCity", "BillingCountry", "Phone"],
            account=[],
        ),
        ObjectSpec(
            name="Contact",
            kind="contact",
            title=["Name"],
            body=["Title", "Department", "Email", "Phone", "MailingCity"],
        ),
        ObjectSpec(
            name="User", kind="user", title=["Name"], body=["Title", "Department", "Email", "CompanyName"], account=[]
        ),
        ObjectSpec(
            name="Lead",
            kind="lead",
            title=["Name"],
            body=["Company", "Title", "Email", "Status", "LeadSource"],
            account=[],
        ),
        ObjectSpec(
            name="Opportunity",
            kind="opportunity",
            title=["Name"],
            body=["StageName", "Amount", "CloseDate", "Probability", "Type", "NextStep", "ForecastCategoryName"],
        ),
        ObjectSpec(
            name="OpportunityContactRole",
            kind="contact_role",
            title=[],
            body=["Role", "IsPrimary"],
            text=[],
            account=["Opportunity.AccountId"],
            related=["OpportunityId"],
        ),
        ObjectSpec(name="AccountContactRole", kind="contact_role", title=[], body=["Role", "IsPrimary"], text=[]),
        ObjectSpec(
            name="AccountContactRelation",
            kind="contact_role",
            title=[],
            body=["Roles", "IsDirect", "IsActive", "StartDate", "EndDate"],
            text=[],
        ),
        ObjectSpec(
            name="Case",
            kind="case",
            title=["Subject", "CaseNumber"],
            body=["CaseNumber", "Status", "Priority", "Origin", "Type", "Reason"],
        ),
        ObjectSpec(
            name="Task",
            kind="task",
            title=["Subject"],
            body=["Status", "Priority", "ActivityDate", "CallType", "CallDurationInSeconds", "TaskSubtype"],
            event=True,
            when=["CompletedDateTime"],
            related=["WhatId", "WhoId"],
        ),
        ObjectSpec(
            name="Event",
            kind="event",
            title=["Subject"],
            body=["StartDateTime", "EndDateTime", "Location"],
            event=True,
            when=["StartDateTime", "ActivityDateTime", "ActivityDate"],
            related=["WhatId", "WhoId"],
        ),
        ObjectSpec(
            name="EmailMessage",
            kind="email",
            title=["Subject"],
            body=[],
            text=["TextBody"],
            event=True,
            when=["MessageDate"],
            account=[],
            related=["RelatedToId", "ParentId"],
        ),
    ]
}

# Objects read only to resolve ids to people and names; they never become records.
DIRECTORY_ONLY = {"Group", "RecordType", "Profile"}

# Child object -> (parent object, parent id field). Folded into the parent's fields.
HISTORY_CHILDREN: dict[str, tuple[str, str]] = {
    "OpportunityHistory": ("Opportunity", "OpportunityId"),
    "OpportunityFieldHistory": ("Opportunity", "OpportunityId"),
    "AccountHistory": ("Account", "AccountId"),
    "ContactHistory": ("Contact", "ContactId"),
    "CaseHistory": ("Case", "CaseId"),
    "LeadHistory": ("Lead", "LeadId"),
}
COMMENT_CHILDREN: dict[str, tuple[str, str]] = {"CaseComment": ("Case", "ParentId")}
CHILDREN = {**HISTORY_CHILDREN, **COMMENT_CHILDREN}

# Columns that say nothing to a reader of the rendered text.
SYSTEM_FIELDS = {
    "id",
    "isdeleted",
    "systemmodstamp",
    "createddate",
    "createdbyid",
    "lastmodifieddate",
    "lastmodifiedbyid",
    "lastactivitydate",
    "lastvieweddate",
    "lastreferenceddate",
    "ownerid",
    "masterrecordid",
    "photourl",
    "recordtypeid",
    "jigsaw",
    "jigsawcontactid",
    "jigsawcompanyid",
    "cleanstatus",
    "connectionreceivedid",
    "connectionsentid",
    "isarchived",
    "isclosed",
    "iswon",
    "hasopenactivity",
    "hasoverduetask",
    "fiscal",
    "fiscalyear",
    "fiscalquarter",
    "accountid",
    "contactid",
    "opportunityid",
    "parentid",
    "whatid",
    "whoid",
}

# Compound fields: readable through REST, refused by Bulk 2.0 (query their components instead).
COMPOUND_FIELDS = {"BillingAddress", "ShippingAddress", "MailingAddress", "OtherAddress", "Address", "Name__c"}

# Fields of the history snapshot object that become field changes of the parent.
OPPORTUNITY_SNAPSHOT_FIELDS = ("StageName", "Amount", "CloseDate", "Probability", "ForecastCategory")


def spec_for(name: str) -> ObjectSpec:
    if name in OBJECTS:
        return OBJECTS[name]
    kind = name[:-3].lower() if name.endswith("__c") else name.lower()
    return ObjectSpec(name=name, kind=kind or "record")


_KNOWN = [*OBJECTS, *DIRECTORY_ONLY, *CHILDREN]


def object_from_file_name(stem: str) -> str:
    """``Account`` / ``Accounts`` / ``sf_opportunity_history_data`` / ``data-Case`` / ``Experience__c`` -> object name."""
    name = stem
    for prefix in ("sf_", "data-"):
        if name.lower().startswith(prefix):
            name = name[len(prefix) :]
    for suffix in ("_data", "-data", "-large"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith("__cs"):
        name = name[:-1]
    squashed = name.replace("_", "").replace("-", "").replace(" ", "").lower()
    if name.endswith("__c"):
        return name
    for known in _KNOWN:
        low = known.lower()
        if squashed in (low, low + "s", low + "es", (low[:-1] + "ies") if low.endswith("y") else low):
            return known
    if "_" in name.strip("_"):
        return "".join(part[:1].upper() + part[1:] for part in name.split("_") if part)
    return name[:1].upper() + name[1:] if name.islower() else name
