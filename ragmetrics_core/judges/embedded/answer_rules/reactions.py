"""Chat turns that assert nothing checkable, and leading hedges around a claim.

A dialogue answer reacts to the other speaker ("That is so true!", "I agree with you", "Это правда", "没错") or
opens with discourse markers and a hedge ("Yes, I think that X" asserts X; "It's interesting that X" asserts X).
Each language gives its markers, hedges and reactions (:mod:`.english`, :mod:`.russian`, :mod:`.chinese`); the
English interjections and tails may surround a reaction in any language, as chat mixes them.
"""

from __future__ import annotations

import re

from ragmetrics_core.judges.embedded.answer_rules import chinese, english, russian

_LANGUAGES = (english, russian, chinese)
_HEDGE_RE = re.compile(
    rf"^(?:(?:{'|'.join(local.DISCOURSE_MARKERS for local in _LANGUAGES)})[\s,!.]+)*"
    rf"(?:{'|'.join(local.HEDGES for local in _LANGUAGES)})?",
    re.IGNORECASE,
)
_REACTION_RE = re.compile(
    rf"(?:(?:{english.INTERJECTIONS})[\s,!.]+)*(?:{'|'.join(local.REACTIONS for local in _LANGUAGES)})"
    rf"(?:\s+(?:{english.REACTION_TAILS}))?[\s!.,…]*",
    re.IGNORECASE,
)


def without_hedge(sentence: str) -> str:
    """``sentence`` without its leading discourse markers, hedge and "it's interesting that" frame."""
    return english.FRAME_RE.sub("", _HEDGE_RE.sub("", sentence, count=1), count=1)


def is_reaction(text: str) -> bool:
    """Whether ``text`` only reacts to the other speaker ("That is so true!", "Absolutely", "没错")."""
    return _REACTION_RE.fullmatch(text) is not None
