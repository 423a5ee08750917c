"""Names and their acronyms: "Life Insurance Corporation of India" and "LIC" match each other."""

from __future__ import annotations

from collections import Counter
from itertools import pairwise

from ragmetrics_core.judges.embedded.chinese import add
from ragmetrics_core.judges.embedded.tokens import MAX_TOKEN_CHARS, Token, word_key

_SPAN_CONNECTORS = frozenset({"of", "the", "for", "de", "du", "la", "von", "van", "&"})
MAX_ACRONYM = 12
"""Initials of at most this many words of a name become terms: no acronym is longer, and a run of capitalised
words without punctuation ("Paris London Berlin …") would otherwise give every prefix of its initials (quadratic
in time and memory)."""


def add_acronyms(
    text: str,
    matches: list[Token],
    keys_at: list[str | None],
    capitals: list[int],
    weights: dict[str, float],
) -> None:
    """Let "LIC" and "Life Insurance Corporation" match each other.

    Every capitalised span of two or more words (tokens ``capitals`` of ``matches``) also yields its initials
    (weight 0: they help a premise match, they never make a claim harder to cover). A span followed by its own
    acronym in parentheses, "Life Insurance Corporation of India (LIC)", hands its weight to the acronym, so a
    premise that only says "LIC" still covers the claim (``keys_at`` holds every token's key, None for no term).
    """
    key_counts: Counter[str] | None = None  # every key's count in the text, counted once, when a name needs it
    for span in _spans(text, matches, capitals):
        initials = "".join(matches[position][1][0].casefold() for position in span[:MAX_ACRONYM])
        for length in range(3 if len(initials) > 2 else 2, len(initials) + 1):
            add(weights, initials[:length], 0.0)
        acronym = _acronym_after(text, matches, span, initials)
        if acronym is None:
            continue
        if key_counts is None:
            key_counts = Counter(key for key in keys_at if key)
        inside = Counter(key for key in (keys_at[position] for position in span) if key)
        for key, count in inside.items():
            if key_counts[key] == count and key != acronym:  # the key appears nowhere outside the name
                weights[key] = 0.0


def _spans(text: str, matches: list[Token], capitals: list[int]) -> list[list[int]]:
    """The runs of two or more capitalised tokens joined into one name."""
    spans: list[list[int]] = []
    for position in capitals:
        if spans and _joined(text, matches[spans[-1][-1]][3], matches[position][2]):
            spans[-1].append(position)
        else:
            spans.append([position])
    return [span for span in spans if len(span) >= 2]


def _acronym_after(text: str, matches: list[Token], span: list[int], initials: str) -> str | None:
    """The key of the name's own acronym in parentheses right after it ("… of India (LIC)"), if any."""
    follower_at = span[-1] + 1
    if follower_at >= len(matches):
        return None
    follower = matches[follower_at][1]
    if (
        text[matches[span[-1]][3] : matches[follower_at][2]].strip() == "("
        and follower.isupper()
        and len(follower) >= 2
        and initials.startswith(follower.casefold())
    ):
        return word_key(follower[:MAX_TOKEN_CHARS].casefold())
    return None


def _joined(text: str, end: int, start: int) -> bool:
    """Whether two capitalised words belong to one name: only spaces and connectors ("of") between them."""
    gap = text[end:start]
    if not gap.strip():
        return True
    return all(word.casefold() in _SPAN_CONNECTORS for word in gap.split()) and gap[0] == " " and gap[-1] == " "


def may_form_a_name(parts: list[str], capitals: list[int]) -> bool:
    """Whether two consecutive capitalised parts have only connectors between them, which :func:`_joined` needs
    of every word between their tokens: without such a pair the acronym rule adds nothing, and the text is not
    tokenized for it (a sentence's first word and a name further on, the commonest case)."""
    return any(all(part.casefold() in _SPAN_CONNECTORS for part in parts[before + 1 : after])
               for before, after in pairwise(capitals))
