"""Organisations and people from NER candidates, plus the one organisation rule NER needs help with: a name written
with its legal form ("Deutsche Telekom AG", "Elsevier Science Ltd", "CAIXABANK, S.A.", "IBM Italia S.p.A.").

The small English model rarely tags a company of a signature or letterhead, and reads only English segments; a
legal form, though, says "organisation" in any Latin-script language. The rule runs on NER's view of the text (rule
spans, code and paths blanked), so a URL, address or identifier never becomes a company, and its candidates pass
the same stop list and name map as the model's (a stopped or mapped name wins). Where nouns are capitalised (German
segments) the run before the form is cut at the first word the language writes in lower case elsewhere in the text,
and leading articles and prepositions of the languages seen in the corpus are trimmed ("Die Muster GmbH" ->
"Muster GmbH").

A candidate whose word stands for a device model in the same text ("Xperia U", "Galaxy S2": the word followed by a
model number or a single capital) is a product, neither a person nor an organisation (issue 28, pattern 2).
"""

import re
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

from transforms import ner, reference_names
from transforms.name_check import COMPANY_WORDS, SENTENCE_WORDS, common_word, person_shaped, proper_word
from transforms.reference_bodies import may_name_body, public_body, public_body_names
from transforms.reference_gazetteer import host_organisation
from transforms.reference_ids import org_ref_id
from transforms.reference_model import Reference, ReferenceConfig, ReferenceKind, _fold, _mapped, _Prepared

# Unambiguous legal forms (no bare "SA", "SE", "AB", "Co": those are also words and abbreviations).
_FORM = re.compile(
    r"(?<![\w.&-])(?:Inc|Incorporated|Corp|Corporation|Company|Ltd|Limited|LLC|L\.L\.C|LLP|PLC|plc|GmbH|AG|KG|KGaA|"
    r"e\.\s?V|S\.A|S\.L|S\.p\.A|SpA|S\.r\.l|Srl|SRL|S\.A\.S|B\.V|N\.V|Pty|Oy)\.?(?![\w&-])"
)
_ABBREVIATED = frozenset({"Inc", "Corp", "Ltd", "Pty"})
# Forms written as words: after a comma they are an item of a list ("your Name, Title, Company, Address"), not the form
# of the name before it as in "CAIXABANK, S.A." or "Acme, Inc.".
_WORD_FORMS = frozenset({"Company", "Corporation", "Incorporated", "Limited"})
_WORD = re.compile(r"[^\W\d_][^\W\d_'’.&-]*(?:[-'’.][^\W\d_]+)*[-.]?")
# Inside a name, lower-case joiners: "Verwaltungs- und Wirtschafts-Akademie", "Bank of America".
_JOINERS = frozenset({"and", "und", "of", "de", "di", "del", "della", "y", "et", "&", "for", "für"})
# Leading words that are no part of a company name (articles, prepositions, greetings) in en/de/fr/it/es.
_LEADING = frozenset(
    "the a an at by for from with to in on of via der die das dem den des ein eine einer bei mit von vom zur zum an "
    "la le les il lo gli el los las un una uno une du da dal al del per con con presso con chez para por "
    "dear hi hello sehr geehrte liebe your our my their his her its this that each every any copyright present "
    "ihre ihr unsere votre notre vostra nostra su sus".split()
)
_MAX_WORDS = 6
# A model number right after a word: "S2", "6P", "5s", "2", "Z1" (a lone capital too, but not "I"/"A" or an initial).
_MODEL = r"[ -]?(?:[A-Z]{0,2}\d{1,4}[A-Za-z]{0,2}|[B-HJ-Z])(?![\w/]|[.,:]\w)"
_LETTERED_MODEL = r"[ -]?(?:[A-Z]{1,2}\d{1,4}[A-Za-z]{0,2}|\d{1,4}[A-Za-z]{1,2})(?![\w/]|[.,:]\w)"
# A last word that names a product line, form factor or a company's service ("S-series", "Galaxy-smartphone", "Note
# Pro", "Spotify Premium", "Google Reader", "Apple Store").
_PRODUCT_WORD = re.compile(
    r"(?i)(?:^|-)(?:series|edition|smartphone|phone|tablet|pro|plus|mini|max|ultra|lite|premium|reader|store|play|app)$"
)


def legal_form_names(view: str, text: str) -> list[ner.Entity]:
    """ORG entities for capitalised names followed by a legal form in `view` (NER's view of `text`, same offsets)."""
    found = []
    for form in _FORM.finditer(text):  # on the text: the view blanks dotted forms ("S.p.A.") as code-like tokens
        start = _name_start(view, text, form.start(), after_comma=form.group() not in _WORD_FORMS)
        if start is None:
            continue
        end = form.end()
        if text[end - 1] == "." and "." not in form.group()[:-1] and form.group()[:-1] not in _ABBREVIATED:
            end -= 1  # "Datenwerk GmbH." ends a sentence; "Acme Corp." and "S.p.A." keep their dot
        found.append(ner.Entity("ORG", text[start:end], start, end))
    # "Intelligent\n\nSports, Inc." beside "Intelligent Sports, Inc.": the run cut at a line break is a fragment
    return [e for e in found if not any(len(o.text) > len(e.text) and o.text.endswith(" " + e.text) for o in found)]


def written_organisations(text: str) -> list[ner.Entity]:
    """Organisations the text's own words mark as such in any Latin-script segment: a legal form, then a public
    body's head word (reference_bodies.py) where no legal-form name holds the span. Read on NER's view of the text
    (code blanked), which is built only when a legal form or a head word is there at all: a code-token pass over a
    whole mail cost more than the rest of the rules."""
    if _FORM.search(text) is None and not may_name_body(text):
        return []
    view = reference_names.ner_view(text, (), ())
    legal = legal_form_names(view, text)
    bodies = [b for b in public_body_names(view, text) if not any(b.start < c.end and c.start < b.end for c in legal)]
    return sorted([*legal, *bodies], key=lambda e: e.start)


def _name_start(view: str, text: str, form_start: int, *, after_comma: bool = True) -> int | None:
    """Where the name before a legal form starts, or None when no capitalised word stands right before it (or, unless
    `after_comma`, only before a comma)."""
    end = form_start
    comma = view[:end][-2:] == ", " and after_comma
    if comma:
        end -= 2
    elif view[end - 1 : end] == " ":
        end -= 1
    else:
        return None
    words = list(_WORD.finditer(view, max(0, end - 200), end))
    name: list[re.Match[str]] = []
    for word in reversed(words):
        following = name[0].start() if name else end
        gap = view[word.end() : following]
        if not (gap in (" ", "") or (gap == " & " and name)) or len(name) >= _MAX_WORDS:  # "Hughes Hubbard & Reed LLP"
            break
        token = word.group()
        if _FORM.fullmatch(token):  # the end of another company's name ("CA Energy I, LLC and ...")
            break
        if token.endswith(".") and len(token) > 6 and not token.isupper():  # a sentence's end, not "Württ."
            break
        if token[0].isupper():
            name.insert(0, word)
        elif token.casefold() in _JOINERS and name:
            name.insert(0, word)
        else:
            break
    if name and _capitalised_nouns(text):
        name = _cut_at_nouns(name, text)
    while name and name[0].group().casefold() in _LEADING | _JOINERS | SENTENCE_WORDS:
        name.pop(0)  # "Copyright 2008-Present Nimbus Labs, Inc."
    if len(name) > 3 and person_shaped(" ".join(w.group() for w in name[:3])):  # given name, initial, surname
        name = name[3:]  # a signature run into one line: "Richard S. Friedman Hughes Hubbard & Reed LLP"
    if name and _glued(view[name[0].start() - 1 : name[0].start()]):
        return None  # the run is the tail of a longer token ("Centr●Studi ..."): its start is unknown
    numbered = comma and len(name) > 1 and name[-1].group() in ("I", "V", "X")  # "CA Energy Development I, LLC"
    if not name or (len(name[-1].group().strip(".-")) < 2 and not numbered):
        return None  # "E Ltd", "Set E Ltd"
    return name[0].start()


def _glued(before: str) -> bool:
    return bool(before) and not before.isspace() and before not in "([{\"'“‘<|,;:"


def _capitalised_nouns(text: str) -> bool:
    """A text with German function words: there nouns are capitalised, so a capital does not make a name."""
    return len(re.findall(r"\b(?:und|der|die|das|nicht|mit|ist|wir|für|Sie)\b", text)) >= 3


def _cut_at_nouns(name: list[re.Match[str]], text: str) -> list[re.Match[str]]:
    """Keep the words after the last one the text also writes after an article elsewhere (a noun: "den Vertrag"),
    so "Vertrag Muster GmbH" is "Muster GmbH" while "Deutsche Telekom AG" stays whole."""
    start, end = name[0].start(), name[-1].end()
    for i in range(len(name) - 1, -1, -1):
        word = name[i].group().rstrip(".-")
        pattern = rf"\b(?:der|die|das|den|dem|des|ein|eine|einen|einer)\s+({re.escape(word)})\b"
        if any(not start <= m.start(1) < end for m in re.finditer(pattern, text, re.I)):
            return name[i + 1 :]
    return name


# A name the text writes as a device: "tested on a Razr Maxx", "users with Foo Pixel phones".
_DEVICE_BEFORE = (
    r"(?<![A-Za-z])(?:tested|testing|running|runs|reproduced|installed|crashes|crashed|works|worked|fails|failed)"
    r"(?:[ \t]+(?:[a-z]+ly|fine|well|only))?[ \t]+on[ \t]+(?:(?:a|an|the|my|our|his|her)[ \t]+)?"
)
_DEVICE_AFTER = (
    r"[ \t]+(?:phones?|smartphones?|devices?|tablets?|handsets?|emulators?|simulators?)(?![A-Za-z])|"
    r"[ \t]+running[ \t]+[A-Z][A-Za-z]*[ \t]+\d"  # "X running Android 4.1"
)


def model_word(name: str, text: str) -> bool:
    """A word of `name` stands for a device or product model here: it ends in a single capital ("Xperia U") or a
    product-line word ("S-series"), or the text writes one of its words (after the first) right before a model
    number ("Galaxy S2", "Pixel 2"), or the text writes the name as a device ("tested on a X", "X phones")."""
    named = re.escape(name)
    if re.search(rf"{_DEVICE_BEFORE}{named}(?![\w-])|(?<![\w-]){named}(?:{_DEVICE_AFTER})", text, re.I):
        return True
    words = name.split()
    if len(words) >= 2 and (re.fullmatch(r"[A-Z]", words[-1]) or _PRODUCT_WORD.search(words[-1])):
        return True
    if len(words) == 1:  # "Jan 31" is a date, "Mac 10" a count: one word needs a lettered model ("Nexus 6P")
        return bool(re.search(rf"(?<![\w-])(?i:{re.escape(name)}){_LETTERED_MODEL}", text))
    return any(re.search(rf"(?<![\w-])(?i:{re.escape(w)}){_MODEL}", text) for w in words[1:] if len(w) > 2)


# After a lone ORG word: its possessive before a common noun ("Apple's event", "Appcelerator's name"; not "Samsung's
# S duos", a device, nor "Martin's confirmation", a given name). Its own site or mail domain in the text: "a video
# from Microsoft ... www.microsoft.com", unless the text puts something on it, which makes it a site ("on YouTube").
_POSSESSIVE_NOUN = re.compile(r"['’]s[ \t]+[a-z]{3,}")
_ON_SITE = re.compile(r"(?i)\b(?:on|at|via)[ \t]+$")


def site_organisations(found: Sequence[Reference]) -> frozenset[str]:
    """The organisation labels (casefolded) of the hosts and mail domains among a text's URL and address references."""
    hosts = (
        urlsplit(r.id.removeprefix("url:")).hostname or "" if r.kind == "url" else r.id.rsplit("@", 1)[-1]
        for r in found
        if r.kind in ("url", "email_address")
    )
    return frozenset(org.casefold() for org in map(host_organisation, hosts) if org)


def org_cue(entity: ner.Entity, text: str, sites: frozenset[str]) -> str | None:
    """The text to judge a lone ORG word on when the words around it say "organisation", else None: the text
    itself after a possessive; when `sites` (site_organisations) hold the name, the text with the name blanked inside
    hosts (where a lower-case "microsoft" must not count against it)."""
    if " " in entity.text or not entity.text[:1].isupper() or entity.text.casefold() in COMPANY_WORDS:
        return None  # "the Commission's decision": a kind of body, not its name
    if _POSSESSIVE_NOUN.match(text, entity.end):
        return None if proper_word(entity.text) else text  # "Martin's confirmation": a given name, a place
    name = entity.text.casefold()
    if name not in sites or _ON_SITE.search(text, max(0, entity.start - 8), entity.start):
        return None
    return re.sub(rf"(?i)(?<=[./@]){re.escape(name)}(?=\.)", lambda m: "_" * len(m.group()), text)


def legal_form_confidence(name: str, stop: frozenset[str]) -> float:
    """0.9 for a name with its legal form, 0 when the name or its part before the form is a stopped name, or when the
    form stands inside a list ("Name, Title, Company, Address")."""
    core = _FORM.sub("", name).strip(" ,")
    if not core or name.casefold() in stop or core.casefold() in stop:
        return 0.0
    if "," in core and not any(form.end() == len(name) for form in _FORM.finditer(name)):
        return 0.0
    return 0.9


def merge(legal: Sequence[ner.Entity], entities: Sequence[ner.Entity]) -> list[ner.Entity]:
    """The legal-form names first; a model entity overlapping one is its fragment ("Deutsche Telekom")."""
    kept = [e for e in entities if not any(e.start < b.end and b.start < e.end for b in legal)]
    return [*legal, *kept]


def entity_references(
    entities: Sequence[ner.Entity],
    found: Sequence[Reference],
    claimed: Callable[[int, int], bool],
    prepared: _Prepared,
    text: str,
    config: ReferenceConfig,
    title_end: int = 0,
) -> list[Reference]:
    """The references the NER (and legal-form) entities outside the rules' `claimed` spans make; `found` (the rules'
    references) gives the text's sites, a cue for a lone ORG word. The text's first `title_end` characters are its
    title (headline_only)."""
    sites = site_organisations(found) if entities else frozenset()
    refs = (
        entity_reference(e, prepared, text, config, sites, title_end) for e in entities if not claimed(e.start, e.end)
    )
    return [ref for ref in refs if ref is not None]


# A title (a Jira summary, a mail subject, a page title) is written in headline style, so its capitals mark no name:
# of 45 model names in held-out Jira summaries, 2 were people and none an organisation ("Create Analytics and
# Breadcrumbs", "Remove Yahoo", "Video Player", "Google Play Services"). There a model name counts only when the
# body writes it too, or when it is a person whose given name follows "with", "to", "by", "from" ("Meet with Chris and
# Tony", "forwarded message from Barry A. Warsaw").
_GIVEN_NAME_BEFORE = re.compile(r"(?i)\b(?:with|to|by|from|and|for|cc|ask)[ \t]+$")


def headline_only(entity: ner.Entity, label: str, text: str, title_end: int) -> bool:
    """The model name stands in the title (the text's first `title_end` characters) and nowhere in the body."""
    if entity.start >= title_end or re.search(rf"(?<![\w-]){re.escape(entity.text)}(?![\w-])", text[title_end:]):
        return False
    given = entity.text.split()[0]
    return not (
        label == "PERSON"
        and proper_word(given)
        and _GIVEN_NAME_BEFORE.search(text, max(0, entity.start - 8), entity.start)
    )


# A verb in -ing and its preposition the model ran into a name: "Working for Parakweet", "Meeting with Acme Corp".
_LEADING_VERB = re.compile(r"([A-Z][a-z]+ing)[ ](?:for|at|with|from|by|to|on)[ ](?=[A-Z])")


def without_leading_verb(entity: ner.Entity) -> ner.Entity:
    """The entity without a leading "<verb>ing <preposition>" (a common word: "Working", not "Ewing")."""
    m = _LEADING_VERB.match(entity.text)
    if not m or not common_word(m.group(1)):
        return entity
    return ner.Entity(entity.label, entity.text[m.end() :], entity.start + m.end(), entity.end)


def entity_reference(
    entity: ner.Entity,
    prepared: _Prepared,
    text: str,
    config: ReferenceConfig,
    sites: frozenset[str],
    title_end: int = 0,
) -> Reference | None:
    """The reference an NER (or legal-form) entity makes, or None when it is no party's name. `sites`: the text's
    site organisations (site_organisations), a cue for a lone ORG word; `title_end`: headline_only."""
    if entity.label not in ("PERSON", "ORG"):
        return None  # dates come from transforms/text_dates.py alone
    entity = without_leading_verb(entity)
    mapped = _mapped(entity.text, prepared) if entity.text[:1].isupper() else None  # "linux" is no known "Linux"
    label = reference_names.label_of(entity.text, entity.label, text, entity.end)
    if mapped and mapped.startswith(("person:", "org:")):  # a known party decides what it is
        label = "PERSON" if mapped.startswith("person:") else "ORG"
    kind: ReferenceKind = "person" if label == "PERSON" else "organization"
    stop = reference_names.stop_list(config)
    if mapped:
        confidence = 1.0
    elif label == "ORG" and (_FORM.search(entity.text) or public_body(entity.text)):
        confidence = legal_form_confidence(entity.text, stop)
    elif model_word(entity.text, text) or headline_only(entity, label, text, title_end):
        confidence = 0.0
    else:
        confidence = reference_names.name_confidence(entity.text, label, text, entity.start, stop)
        if label == "ORG" and confidence < config.org_min_confidence and (cued := org_cue(entity, text, sites)):
            again = reference_names.name_confidence(entity.text, label, cued, entity.start, stop, cued=True)
            confidence = config.org_min_confidence if again >= config.name_min_confidence else 0.0
    if confidence < config.name_min_confidence or (kind == "organization" and confidence < config.org_min_confidence):
        return None
    return Reference(
        kind=kind,
        id=mapped or (org_ref_id(entity.text) if kind == "organization" else f"person:{_fold(entity.text)}"),
        text=entity.text,
        start=entity.start,
        end=entity.end,
        confidence=confidence,
    )
