"""Is a name a model extracted actually in the record? Pure functions for the LLM grounding guard
(graph/llm/guard.py).

A model writes entities the text never names: a 135M model copies the name from the prompt's own example, a large one
"helpfully" completes a first name to a full name it saw elsewhere. A name is grounded when its folded form occurs as
whole words in the record's text, or equals one of the record's own aliases: the people and organisations its
metadata names (author, recipients, participants, people/org references), by name or address. Folding is NFKC +
casefold + every run of non-word characters one space, so "ACME Corp." finds "Acme Corp" and "dana@acme.example"
finds "Dana@Acme.example". An organisation's legal suffix ("Acme Corp" for a text that says "Acme") and a leading
"the" or trailing possessive are not held against a name.
"""

import re
from collections.abc import Iterable

from ground.episode import Episode
from transforms.ner import _COMPANY_SUFFIX  # the one list of company suffixes
from transforms.text import normalise

_NON_WORD = re.compile(r"[\W_]+")
_LEADING_THE = re.compile(r"^the ")
_POSSESSIVE = re.compile(r"(?:'s|’s)$")
# References whose value is a person's or an organisation's name/address (others are ids, urls, amounts, dates).
ALIAS_KINDS = ("person", "org")


def fold(text: str) -> str:
    return " ".join(_NON_WORD.sub(" ", normalise(text).casefold()).split())


def name_forms(name: str) -> list[str]:
    """The folded name, and the same without a possessive, a leading "the" or an organisation's legal suffix."""
    base = _POSSESSIVE.sub("", normalise(name).strip())
    forms = [fold(base)]
    stripped = _COMPANY_SUFFIX.sub("", base).strip(" ,.")
    if stripped and stripped != base:
        forms.append(fold(stripped))
    forms += [_LEADING_THE.sub("", f) for f in list(forms) if f.startswith("the ")]
    return [f for f in dict.fromkeys(forms) if f]


def episode_aliases(episode: Episode) -> set[str]:
    """The record's own people and organisations: actor, participants (name, address, address's local part) and the
    values of its person/org references."""
    values: list[str] = []
    actors = [episode.actor] + [p.actor for p in episode.metadata.participants]
    for actor in actors:
        values += [actor.name or "", actor.email or ""]
        if actor.email and "@" in actor.email:
            values.append(actor.email.split("@", 1)[0])
    for ref in episode.references:
        kind, _, value = ref.partition(":")
        if kind in ALIAS_KINDS and value:
            values.append(value.rsplit(":", 1)[-1])  # person:<source>:<id> -> the id
    return {f for f in (fold(v) for v in values) if f}


def is_grounded(name: str, folded_text: str, aliases: Iterable[str]) -> bool:
    """name occurs (as whole words) in the folded text, or is one of the aliases (folded)."""
    alias_set = aliases if isinstance(aliases, set | frozenset) else set(aliases)
    padded = f" {folded_text} "
    return any(f" {form} " in padded or form in alias_set for form in name_forms(name))
