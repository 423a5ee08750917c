"""Every scoring knob of the embedded judge, in one frozen place.

The modules read these values once, at import (a knob is a constant of the judge, not a setting of a run): change
one here, rerun ``../shared/tools/judge_quality.py --split tune``, and keep it only if the tune sets agree. Limits
that bound work rather than weigh evidence (``MAX_CLAIMS``, ``MAX_POSTINGS``, ...) stay beside the code they bound.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Knobs:
    """How much each term weighs, and how much of a claim a premise must cover for each verdict."""

    # ----------------------------------------------------------------------------------------- term weights
    number_weight: float = 3.0
    """A number or date: the commonest thing an answer gets wrong."""
    name_weight: float = 2.0
    """A capitalised word inside a sentence (a name), an opinion word, a mixed token ("CO2"), the speaker."""
    word_weight: float = 1.0
    """Any other content word."""
    long_word_weight: float = 1.3
    """A content word of at least ``long_word`` characters: long words are rarer, so more telling."""
    long_word: int = 9
    weak_weight: float = 0.4
    """Hedging verbs, manner adverbs ("-ly") and weak Chinese bigrams: they qualify a claim, rarely carry it."""
    zh_bigram_weight: float = 1.0
    """A Chinese character bigram (the Chinese unit of content)."""
    zh_unigram_weight: float = 0.5
    """A lone Chinese content character between stop characters."""
    prefix_length: int = 4
    """Terms sharing this many leading characters are candidates for a near match."""
    stem_prefix_en: int = 8
    stem_prefix_ru: int = 6
    """A stem is cut to this many letters, so word families match ("investor", "investments" → "invest"), at the
    price of rare collisions between unrelated long words."""
    negation_scope: int = 3
    """Content terms after a negation cue that it negates (the scope also ends at a clause break)."""

    # ------------------------------------------------------------------------------------------- coverage
    min_claim_weight: float = 1.0
    """A claim whose only content is hedge-like words ("it is usually included") carries too little to attribute."""
    entail_threshold: float = 0.75
    """Share of a claim's weighted content that the aligned window must cover for *entailed*."""
    long_claim_weight: float = 10.0
    long_claim_threshold: float = 0.7
    """Claims heavier than ``long_claim_weight`` (about ten content words) need this: more words leave more room for
    paraphrase the lexicon does not know."""
    elsewhere_credit: float = 0.5
    """Part credit for a claim term found in the premise but outside the window."""
    prefix_credit: float = 0.7
    """Part credit for a near match in the window: a shared stem prefix or a compound ending ("sunlight" ~ "light")."""
    pair_discount: float = 0.98
    """Coverage factor of a window of two adjacent sentences (a single sentence that covers the claim is preferred)."""
    extra_discount: float = 0.96
    """Coverage factor for every sentence a window borrows from elsewhere (not adjacent)."""
    window_candidates: int = 3
    """Best-scoring sentences whose neighbours are tried as two-sentence windows."""
    max_borrowed_sentences: int = 2
    """Non-adjacent sentences a window may borrow to cover a claim jointly (0 or 1 scored lower on BEGIN/WiCE)."""

    # ------------------------------------------------------------------------------------------ contradiction
    contradiction_alignment: float = 0.5
    """A contradiction signal counts only when the window is about the claim (covers at least this share)."""
    negation_alignment: float = 0.7
    """Negation only contradicts when the window is clearly about the claim."""
    number_alignment: float = 0.75
    """A disagreeing number contradicts when the rest of the claim is this well covered by the same window."""
    number_tolerance: float = 0.02
    """Relative difference under which two large quantities are the same number (rounding)."""
    comparable_count: int = 100
    """Counts from this value up are checked for disagreement; smaller ones ("1" of "March 1") are too ambiguous."""

    # ------------------------------------------------------------------------------------------ graded support
    full_support_coverage: float = 0.9
    uncovered_decay: float = 1.0
    uncovered_allowance: float = 2.0
    max_neutral_support: float = 0.4999
    neutral_rise_power: float = 0.5
    absent_number_support: float = 0.5
    specific_claim_weight: float = 3.0
    borrowed_piece_factor: float = 0.7
    """Graded support (``Check.support``): an entailed claim gets 1/2 at the threshold rising to 1 at
    ``full_support_coverage`` (what a window covering 90 % still lacks is an inflection or a minor word), the rise
    × e^(−``uncovered_decay`` · w) where w is the claim weight the window leaves uncovered beyond
    ``uncovered_allowance`` (two content words: paraphrase; more is room for a detail the premise does not state;
    fitted on the tune splits); a neutral one 0 up to ``contradiction_alignment``, then rising as the
    ``neutral_rise_power`` of the way to the threshold, where it reaches ``max_neutral_support`` (just below 1/2),
    × ``absent_number_support`` when a number of the claim is not in the premise; a contradicted one 0. Both shrink
    toward the boundary for a claim lighter than ``specific_claim_weight`` (in proportion) and by
    ``borrowed_piece_factor`` for every sentence the window borrows from elsewhere."""

    # ------------------------------------------------------------------------------------------- entities
    entity_found_share: float = 0.8
    """Share of an entity's weighted terms a chunk must hold for the entity to be found in it."""

    # ------------------------------------------------------------------------------------------- relevancy
    claims_per_question: int = 3
    """Claims a generated question covers (``response_relevancy`` compares these questions with the user's)."""


KNOBS = Knobs()
"""The judge's knobs: the defaults above."""
