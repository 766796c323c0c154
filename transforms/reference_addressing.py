"""People a text names by how it is written, where the small NER model misses most: the person a
message greets ("Hi Mauro,", "Jan,"), the name it is signed with ("Best,\n\nMauro", "- Russ"), and a name written with
its address or as a reply's attribution ("Author: Sam Ruby <rubys@...>", "Nicu Buculei wrote:").

Rules on the text's layout, no corpus strings: a candidate is one or two name-shaped words (a capital, then lower-case
letters) none of which is a dictionary word, a stop name (products, OS names, generic terms: name_check) or a sentence
word (unless the dictionary also lists it as a given name); a two-to-four-word name beside an address must pass
reference_gazetteer.person_name. The lines first and last in a text are where greetings and signatures are; a lone
name elsewhere counts only after a closing line. A given name that begins exactly one person the export knows (mail
headers, Jira users: reference_gazetteer) is a name in the same export even where it is also a word ("Cheers,\nTill",
"sebastian" as the last line) and in prose ("Ingo is saying", "as per Martin's confirmation").
"""

import re
from collections.abc import Iterator

from transforms.language import Segment, segments
from transforms.name_check import (
    SENTENCE_WORDS,
    common_word,
    compound,
    generic_name,
    load_stop_names,
    person_shaped,
    proper_word,
)
from transforms.reference_gazetteer import person_name
from transforms.reference_model import _fold
from transforms.reference_names import known_names

# Latin letters with accents (Latin-1 and Latin Extended-A: "Weißmüller", "Wójcik", "Łukasz"); Extended-A mixes cases
# in one range, so _name_ok checks each word's case.
_UP, _LOW = "A-ZÀ-ÖØ-ÞĀ-ſ", "a-zß-öø-ÿĀ-ſ"
_WORD = rf"[{_UP}][{_LOW}]+(?:-[{_UP}][{_LOW}]+)?"
_NAME = rf"{_WORD}(?:[ ]{_WORD})?"
# Titles are no part of the name (docs/references.md): "Hallo Herr Specht," greets Specht.
_TITLE = (
    r"(?:(?:Mr|Mrs|Ms|Dr|Prof|Herr|Frau|Sir|Madam|Monsieur|Madame|Mme|Signor|Signora|Sig|Sig\.ra|Dott|Dott\.ssa|"
    r"Señor|Señora|Sr|Sra|Don|Doña)\.?[ \t]+)?"
)
_GREETING = re.compile(
    r"^[ \t]*(?:Hi|Hello|Hey|Dear|Hallo|Hola|Ciao|Bonjour|Thanks|Thank you|Morning|Good morning|Good afternoon|"
    r"Good evening|Buongiorno|Buonasera|Salve|Bonsoir|Salut|Servus|Moin|Guten Tag|Hej|Olá|Ola|Sehr geehrte[rs]?|"
    r"Liebe[rs]?|Gentile|Gentili|Gentilissim[oa]|Caro|Cara|Cher|Chère|Estimad[oa]|Querid[oa])[ \t,]+"
    rf"{_TITLE}({_NAME})"
    r"[ \t]*(?:[,.!:;]|\n|$)",
    re.M,
)
# A line that is only a name: "Jan,", "Mauro", "- Russ", "-Debin", "Lajos...", "Eryq -".
_LONE = re.compile(rf"^[ \t]*(?:-[ \t]*)?({_NAME})[ \t]*(,|\.{{1,3}}|[ \t]-|!)?[ \t]*$")
_CLOSING = re.compile(
    r"^[ \t]*(?:(?:best|kind|warm|many)?[ \t]*(?:regards|wishes)|best|cheers|thanks?(?: you| again| a lot)?|"
    r"thx|ta|greetings|sincerely|yours(?: truly| sincerely)?|grazie|danke|gruß|grüße|merci|cordialement|saludos|"
    r"(?:mit[ \t]+)?(?:freundlichen?|besten?|herzlichen?|vielen?|lieben?|schönen?)[ \t]+gr(?:ü|ue)(?:ß|ss)en?|"
    r"gr(?:ü|ue)sse|(?:cordiali|distinti)[ \t]+saluti|saluti|un[ \t]+saluto|a[ \t]+disposizione|a[ \t]+presto|"
    r"bien[ \t]+(?:cordialement|à[ \t]+vous)|amicalement|atentamente|un[ \t]+saludo)"
    r"\b.{0,60}[,.!]?[ \t]*$",
    re.I,
)
# Greeting and closing words that stand alone on a line like a name, in the languages of mail ("Bonjour,", "Merci").
_SALUTATIONS = frozenset(
    "hi hello hey dear hallo hola ciao bonjour bonsoir salut salve servus moin hej ahoj czesc cześć ola olá oi "
    "thanks thx cheers regards best merci danke gracias grazie obrigado obrigada dank bedankt tack takk kiitos "
    "gruss gruß grüße grüsse saludos cordialement atenciosamente pozdrawiam pozdrav buongiorno buonasera "
    "guten morgen tag abend greetings welcome congrats congratulations sorry cher chère chers caro cara gentile "
    "gentili liebe lieber liebes sehr geehrte geehrter estimado estimada querido querida".split()
)
_SENT_FROM = (
    r"^[ \t]*(?:sent (?:from|via|with)|verzonden (?:vanaf|met)|envoy[ée] (?:de|depuis)|gesendet (?:von|mit)|"
    r"inviato da|enviado (?:desde|de)|get outlook)\b"
)
# What follows a signature: a separator or a mail client's "Sent from my ..." line (any of the corpus's languages).
_FOOTER = re.compile(r"^[ \t]*(?:-{2,}|_{2,}|={3,}|\*{3,})|" + _SENT_FROM, re.I)
_SENT_FROM_LINE = re.compile(_SENT_FROM, re.I)
_LONE_WORD = re.compile(rf"^[ \t]*(?:-[ \t]*)?([{_UP}{_LOW}][{_LOW}]+)[ \t]*(?:,|\.{{1,3}}|!)?[ \t]*$")
# A capitalised word with an optional possessive; the words around it decide whether it stands alone.
_GIVEN = re.compile(rf"(?<![\w.@/-])([{_UP}][{_LOW}]+)(?:['’]s)?(?![\w@-])")
_CAPITAL_BEFORE = re.compile(rf"[{_UP}]\w*[ ]$")  # a word, not a sentence's end ("Android. Ingo said")
_CAPITAL_AFTER = re.compile(rf"(?:['’]s)?[ ][{_UP}]")
# One word beside an address it is the local part of: "Eryq (eryq@example.org)", "Jan <jan.k@example.org>".
_SELF_ADDRESSED = re.compile(rf"(?<![\w.-])({_WORD})[ \t]*[(<][ \t]*([A-Za-z0-9._%+-]+)@[A-Za-z0-9.-]+[ \t]*[)>]")
_ADDRESSED = re.compile(
    rf"({_WORD}(?:[ ](?:[A-Z]\.|{_WORD})){{1,3}})[ \t]*(?:<([^<>@\s]+)@[^<>\s]+>|\(?[ \t]*wrote:|"
    r"(?<=[ \t])([A-Za-z0-9._%+-]+)@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+[ \t]*$)",  # a signature: "Jan Smit jan@x.org"
    re.M,
)


def _name_ok(name: str, dictionary: bool = True, confirmed: str = "") -> bool:
    """No stop name or sentence word; with `dictionary`, no common word or compound of two either, unless it is also
    a given name the dictionary lists capitalised ("Carter", "Mike"). A family name after a given name that passes
    may be a dictionary word ("Orlando Weaver", "Esther Baker"). A stop word the address's local part `confirmed`
    spells is a name there ("Nadia Java <njava@...>")."""
    stop = load_stop_names()
    words = name.split()
    if name.casefold() in stop or not all(_cased(w) for w in words):
        return False
    if dictionary and " " not in name and compound(name) and not proper_word(name):
        return False
    return all(
        w.casefold() not in SENTENCE_WORDS
        and w.casefold() not in _SALUTATIONS
        and (w.casefold() not in stop or (len(w) > 2 and w.casefold() in confirmed))
        and not (dictionary and common_word(w) and not proper_word(w) and not (i == 1 and len(words) == 2))
        for i, w in enumerate(words)
    )


def _addressed_name(name: str, local: str) -> bool:
    """A full name beside an address (reference_gazetteer.person_name), or one whose stop-listed word the address's
    local part spells ("Sam Ruby <rubys@...>": Ruby is a language elsewhere)."""
    if person_name(name):
        return True
    stop = load_stop_names()
    words = name.split()
    return (
        2 <= len(words) <= 4
        and any(len(w) > 2 and w.casefold() in stop and w.casefold() in local for w in words)
        and not generic_name(name, "PERSON", "")
    )


def _opens(text: str, pos: int, line: str, name: str, after: str) -> bool:
    """A one-word name alone on the first body line, then a blank line and a sentence, opens the text like "Jan,"
    does ("Comment on X: ...\n\nSergej\n\nThe view should ..."); a heading is followed by a list or a short line."""
    end = pos + len(line)
    return " " not in name and text[end : end + 2] == "\n\n" and after[:1].isupper() and len(after.split()) >= 4


def _cased(word: str) -> bool:
    """A capital, then lower-case letters, per hyphen part ("Albrecht-Köhler"; not "ŁUKASZ" or "łukasz")."""
    return all(part[:1].isupper() and part[1:].islower() for part in word.split("-"))


def _lines(text: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for line in text.split("\n"):
        out.append((pos, line))
        pos += len(line) + 1
    return out


def _known_given(line: str, given: frozenset[str]) -> re.Match[str] | None:
    """A line that is only a known given name, in any case ("sebastian", "Till,")."""
    m = _LONE_WORD.match(line)
    return m if m and m.group(1).casefold() in given and m.group(1).casefold() not in _SALUTATIONS else None


def given_names(text: str, given: frozenset[str]) -> Iterator[tuple[int, int, str]]:
    """(start, end, name): a capitalised known given name standing alone in prose (no capitalised word right before
    or after it, no dictionary word unless the dictionary lists it as a name), without a possessive "'s"."""
    if not given:
        return
    stop = load_stop_names()
    for m in _GIVEN.finditer(text):
        word = m.group(1)
        folded = word.casefold()
        if folded not in given or folded in SENTENCE_WORDS or folded in stop:
            continue
        if common_word(word) and not proper_word(word):
            continue
        before, after = text[max(0, m.start() - 40) : m.start()], text[m.end() : m.end() + 40]
        if _CAPITAL_BEFORE.search(before) or _CAPITAL_AFTER.match(after):
            continue  # part of a longer name ("Martin Fowler"), which is another person
        yield m.start(1), m.start(1) + len(word), word


def addressed_names(text: str, given: frozenset[str] = frozenset()) -> Iterator[tuple[int, int, str]]:
    """(start, end, name) of greeted, signing and addressed people in `text`, in text order, non-overlapping.
    `given`: the given names the export's known people begin with (a sign-off with one of them is a name)."""
    found: list[tuple[int, int, str]] = []
    for m in _GREETING.finditer(text):
        if _name_ok(m.group(1)):
            found.append((m.start(1), m.end(1), m.group(1)))
    for m in _ADDRESSED.finditer(text):
        local = (m.group(2) or m.group(3) or "").casefold()
        # beside its address or "wrote:", "Sam Ruby" is a name; a stop word the address spells too
        if _addressed_name(m.group(1), local) and _name_ok(m.group(1), dictionary=False, confirmed=local):
            found.append((m.start(1), m.end(1), m.group(1)))
    for m in _SELF_ADDRESSED.finditer(text):
        name, local = m.group(1), m.group(2).casefold()
        if len(name) >= 3 and re.split(r"[._+-]", local)[0] == name.casefold() and _name_ok(name, dictionary=False):
            found.append((m.start(1), m.end(1), name))
    lines = [(pos, line) for pos, line in _lines(text) if line.strip()]
    for i, (pos, line) in enumerate(lines):
        known = _known_given(line, given) if given and i else None
        m = known or _LONE.match(line)
        if not m or not (known or _name_ok(m.group(1))):
            continue
        before = lines[i - 1][1] if i else ""
        after = lines[i + 1][1] if i + 1 < len(lines) else ""
        last = i == len(lines) - 1 or bool(_FOOTER.match(after))  # a footer or "Sent from my phone" may follow
        closing = bool(_CLOSING.match(before))
        # signed with a known person's given name: "Cheers,\nTill", "sebastian\nSebastian Rahtz <...>"
        if known and (closing or last or _ADDRESSED.match(after)):
            found.append((pos + known.start(1), pos + known.end(1), known.group(1)))
            continue
        if known and not ((m := _LONE.match(line)) and _name_ok(m.group(1))):
            continue
        first = i == 1  # line 0 is the title
        # "- Russ" ends a text; so does a name after a sentence's end, or right above "Sent from my phone". A title
        # alone ("Video Capture", an issue without a description) is no signature.
        signed = (
            last
            and i > 0
            and (line.lstrip().startswith("-") or before.rstrip()[-1:] in ".!?" or bool(_SENT_FROM_LINE.match(after)))
        )
        addressed = first and (
            m.group(2) in (",", "...", " -") or (m.group(2) is None and _opens(text, pos, line, m.group(1), after))
        )
        if closing or signed or addressed:
            found.append((pos + m.start(1), pos + m.end(1), m.group(1)))
    found.sort()
    end = -1
    for start, stop, name in found:
        if start >= end:
            yield start, stop, name
            end = stop


def party_names(
    text: str, parties: dict[str, list[tuple[tuple[str, ...], str]]], given: frozenset[str] = frozenset()
) -> Iterator[tuple[int, int, str]]:
    """(start, end, id): the parties the export knows (reference_names.known_names) first, then the greeted, signing
    and addressed people and the known given names in prose that do not overlap them, as `person:<casefolded name>`
    (the name as written: a given name alone is not resolved to the full name)."""
    known = list(known_names(text, parties))
    yield from known
    spans = [(a, b) for a, b, _ in known]
    for start, end, name in sorted([*addressed_names(text, given), *given_names(text, given)]):
        if not any(a < end and start < b for a, b in spans):
            spans.append((start, end))
            yield start, end, f"person:{_fold(name)}"


# A full name in prose: a given name, perhaps an initial, a surname (name_check.person_shaped decides), in a text in a
# Latin-script language that writes its nouns in lower case (German does not; English has the NER model).
FULL_NAME_LANGUAGES = frozenset("fr it es pt ro nl ca pl cs sk sl hr sv da no nb fi hu et lv lt tr id ms".split())
_FULL_NAME = re.compile(rf"(?<![\w.@/-])([{_UP}][{_LOW}]+(?:[ ][A-Z]\.?)?[ ](?:Mc|Mac|O')?[{_UP}][{_LOW}]+)(?![\w@/-])")


def full_names(text: str, language: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, name): full names shaped as a person's ("James McQuillan") in the segments of `text` (a text in
    `language`) that are in FULL_NAME_LANGUAGES, where no NER model reads and a capital marks a name. The segments
    are decided only when a candidate is there."""
    stop = load_stop_names()
    languages: list[Segment] | None = None
    for m in _FULL_NAME.finditer(text):
        name = m.group(1)
        if not person_shaped(name) or name.casefold() in stop or any(w.casefold() in stop for w in name.split()):
            continue
        before = text[max(0, m.start() - 40) : m.start()]
        if _CAPITAL_BEFORE.search(before) or _CAPITAL_AFTER.match(text, m.end()):
            continue  # part of a longer run of capitals: a title, a place, a company
        languages = segments(text, language) if languages is None else languages
        if any(s.start <= m.start() < s.end and s.language in FULL_NAME_LANGUAGES for s in languages):
            yield m.start(1), m.end(1), name
