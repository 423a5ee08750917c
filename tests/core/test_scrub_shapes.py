"""Secret shapes are tried only on texts that hold a piece every match of the shape holds: the output is the same
as trying every shape on every text, for planted keys, look-alikes and case-folding tricks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from ragmetrics_core.scrub import _SHAPES, SECRETS, scrub_secrets

PIECES = [
    "sk-abcdefgh12345678", "PK-abcdefgh12345678",  # upper case: no provider key, left alone
    "gsk_" + "a" * 16, "hf_" + "b" * 24, "glpat-" + "c" * 16,
    "xai-" + "d" * 20, "r8_" + "e" * 24, "ghp_" + "f" * 16, "github_pat_" + "g" * 16, "xoxb-1234567890",
    "AKIA" + "A" * 16, "AIza" + "h" * 30, "Bearer abc.def", "BEARER x", "api_key=zzz", "API-KEY: 'v'",
    "token: " + "0123456789abcdef" * 2, "credential is " + "a" * 32, "Auth " + "f" * 40, "passwd=p",
    "ſecret=abc",  # a long s: matches "s" when case is ignored
    "authorızation: x",  # a dotless i: matches "i" when case is ignored
    "authorİzation: x",  # a dotted capital I: matches "i", and casefolds to two characters
    "KEY=v", "Kelvin \u212aey=v", "plain words", "ı", "é", " ", "\n", ",", "{", '"', "=",
    "gho_" + "i" * 16, "ghu_" + "j" * 16, "ghs_" + "k" * 16, "GHP_" + "f" * 16, "through Ghent", "gh", "_",
    # Pieces of a key=value or a key and its hex digits, and prose holding the names (tested at each name first):
    "author", "Keyboard", "tokens", "API", "_key", "-Token", "orization", "word", "d", "s", "'", " = ", ": ", "is ",
    "0123456789abcdef" * 2, "ABCDEF0123456789", "ß", "İ", "\u0345",  # casefolding changes the length or the class
]


def _every_shape(text: str) -> str:
    text = SECRETS.mask(text)
    for shape in _SHAPES:
        text = shape.pattern.sub(shape.replacement, text)
    return text


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=8))
def test_the_needles_change_no_output(parts: list[str]) -> None:
    text = "".join(parts)
    assert scrub_secrets(text) == _every_shape(text)


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=10))
def test_names_and_values_in_any_order_change_no_output(parts: list[str]) -> None:
    text = "".join(parts)
    assert scrub_secrets(text) == _every_shape(text)


def test_prose_naming_keys_and_tokens_is_left_alone_and_a_credential_in_it_is_masked() -> None:
    prose = "The author of the keyboard manual counts tokens; the authority kept the recipe secret. " * 8
    assert scrub_secrets(prose) == prose
    assert scrub_secrets(prose + "auth_token = abc123") == prose + "auth_token = [redacted]"
    assert scrub_secrets(f"{prose}secret key is {'9f86d081' * 4}") == f"{prose}secret key is [redacted]"


def test_planted_keys_are_still_masked() -> None:
    for piece in PIECES[:20]:
        if piece.startswith("PK-"):
            continue
        assert "[redacted]" in scrub_secrets(f"the answer quotes {piece} here"), piece


def test_every_github_key_prefix_is_masked_and_words_with_gh_are_not_touched() -> None:
    for prefix in ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"):  # ghr_: refresh tokens
        assert scrub_secrets(f"leaked {prefix}{'Ab1' * 6} here") == "leaked [redacted] here", prefix
    text = "Although he thought it through, the right night in Ghent was high."
    assert scrub_secrets(text) == text
