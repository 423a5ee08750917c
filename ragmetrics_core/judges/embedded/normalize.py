"""The public face of the judge's text analysis, by job: :mod:`.tokens` (writing normalised, text → tokens, what
a word is), :mod:`.numbers` (numbers in every format), :mod:`.terms` (text → weighted terms), :mod:`.chinese`
and :mod:`.acronyms` (their rules), :mod:`.knobs` (the weights). Import from here or from those modules."""

from __future__ import annotations

from ragmetrics_core.judges.embedded.knobs import KNOBS
from ragmetrics_core.judges.embedded.numbers import Number, number_key, parse_number
from ragmetrics_core.judges.embedded.terms import SPEAKER, Terms, terms
from ragmetrics_core.judges.embedded.tokens import MAX_TOKEN_CHARS, prepare, tokens, word_key

NUMBER_WEIGHT = KNOBS.number_weight
NAME_WEIGHT = KNOBS.name_weight
PREFIX_LENGTH = KNOBS.prefix_length

__all__ = [
    "MAX_TOKEN_CHARS",
    "NAME_WEIGHT",
    "NUMBER_WEIGHT",
    "PREFIX_LENGTH",
    "SPEAKER",
    "Number",
    "Terms",
    "number_key",
    "parse_number",
    "prepare",
    "terms",
    "tokens",
    "word_key",
]
