"""Chat turns that assert nothing checkable, and leading hedges around a claim (EN/RU/ZH).

A dialogue answer reacts to the other speaker ("That is so true!", "I agree with you", "Это правда", "没错") or
opens with discourse markers and a hedge ("Yes, I think that X" asserts X; "It's interesting that X" asserts X).
"""

from __future__ import annotations

import re

# Leading discourse markers and hedges: "yes, I think that X" asserts X.
_HEDGE_RE = re.compile(
    r"^(?:(?:yes|yeah|yep|no|nope|well|oh|so|ok|okay|haha|hmm|actually|indeed|sure|right|да|нет|ну|что ж|嗯|是的)"
    r"[\s,!.]+)*(?:(?:i|we) (?:think|believe|guess|know|heard|read|suppose|feel)(?: that)?[\s,]+"
    r"|(?:я думаю|мне кажется|я считаю|по-моему)(?:,? что)?[\s,]+|我(?:认为|觉得|想)[,，]?)?",
    re.IGNORECASE,
)
# Conversational reactions assert nothing about the world: "That is so true!", "I agree with you.", "Absolutely".
_REACTION_WORDS = (
    r"true|interesting|cool|great|awesome|amazing|funny|crazy|right|correct|fascinating|neat|nice|wild|good|"
    r"impressive|surprising|incredible|fun|sad|weird|strange|hilarious|insane|exciting|unbelievable|wonderful"
)
_REACTION_RE = re.compile(
    r"(?:(?:yes|yeah|yep|oh|wow|well|so|ok|okay|haha|lol|ha|ah|hmm|really|indeed|sure|right)[\s,!.]+)*"
    r"(?:(?:that|this|it)(?:\s?'s|\s+is|\s+was|\s+sounds|\s+seems)(?:\s+(?:really|so|very|pretty|quite|too|"
    r"actually|definitely|super|kind of|sort of|such an?))*(?:\s+(?:" + _REACTION_WORDS + r"))?"
    r"|(?:that|this|it) (?:really|truly|sure|definitely|certainly) (?:is|was|does|did)"
    r"|(?:how|so|very|really) (?:" + _REACTION_WORDS + r")"
    r"|(?:" + _REACTION_WORDS + r")|i (?:totally |completely |really )?agree(?: with (?:you|that))?"
    r"|you(?:'re| are) (?:so |totally |absolutely )?right|good point|me too|same here|i see|i know|of course"
    r"|absolutely|exactly|definitely|totally|certainly|indeed|wow|cool|nice|thanks?(?: you)?|lol|haha"
    r"|это (?:правда|интересно|здорово|верно)|интересно|согласен|согласна|точно|конечно"
    r"|(?:真的|没错|确实|是的|对|有意思|太好了)(?:啊|呀|吧)?)"
    r"(?:\s+(?:too|then|though|indeed))?[\s!.,…]*",
    re.IGNORECASE,
)
# "It's interesting that X" asserts X.
_FRAME_RE = re.compile(
    r"^(?:it\s?'s|it is|that\s?'s|that is) (?:(?:really|so|very|pretty|quite) )?(?:" + _REACTION_WORDS
    + r") (?:that|how) ",
    re.IGNORECASE,
)


def without_hedge(sentence: str) -> str:
    """``sentence`` without its leading discourse markers, hedge and "it's interesting that" frame."""
    return _FRAME_RE.sub("", _HEDGE_RE.sub("", sentence, count=1), count=1)


def is_reaction(text: str) -> bool:
    """Whether ``text`` only reacts to the other speaker ("That is so true!", "Absolutely", "没错")."""
    return _REACTION_RE.fullmatch(text) is not None
