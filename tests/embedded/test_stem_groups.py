"""Suffix stripping by length groups removes exactly the suffix the longest-first scan of the list removes."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragmetrics_core.judges.embedded import stem


def _scan(word: str, suffixes: tuple[str, ...], min_stem: int) -> str:
    """The rule written plainly: the suffixes tried one by one, longest first."""
    for suffix in suffixes:
        if word.endswith(suffix) and len(word) - len(suffix) >= (min_stem if len(suffix) > 1 else 3):
            if suffix == "s" and word.endswith(("ss", "us", "is")):
                return word
            return word[: -len(suffix)]
    return word


EN_LETTERS = st.sampled_from(list("aeioustlndrzcvfygm'"))
RU_LETTERS = st.sampled_from(list("аеиоуыэюяьйлнтсмвхчшгк"))


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(EN_LETTERS, max_size=14).map("".join), st.sampled_from((*stem.EN_SUFFIXES, "", "ss", "us", "is")))
def test_english_groups_strip_like_the_scan(start: str, ending: str) -> None:
    word = start + ending
    assert stem.strip_ending(word, stem.EN_GROUPS, stem.EN_MIN_STEM) == _scan(word, stem.EN_SUFFIXES, stem.EN_MIN_STEM)


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(RU_LETTERS, max_size=12).map("".join), st.sampled_from((*stem.RU_SUFFIXES, "", "s")))
def test_russian_groups_strip_like_the_scan(start: str, ending: str) -> None:
    word = start + ending
    assert stem.strip_ending(word, stem.RU_GROUPS, stem.RU_MIN_STEM) == _scan(word, stem.RU_SUFFIXES, stem.RU_MIN_STEM)


def test_everyday_words() -> None:
    for word in ("investments", "investor", "organizations", "class", "bus", "analysis", "cats", "its", "это",
                 "построена", "открылся", "years", "studies"):
        suffixes, groups, min_stem = (
            (stem.RU_SUFFIXES, stem.RU_GROUPS, stem.RU_MIN_STEM) if stem.is_cyrillic(word)
            else (stem.EN_SUFFIXES, stem.EN_GROUPS, stem.EN_MIN_STEM)
        )
        assert stem.strip_ending(word, groups, min_stem) == _scan(word, suffixes, min_stem)
