"""Redaction: secret scrubbing, the user hook, caps."""

from __future__ import annotations

import pytest

from ragmetrics_core.online.privacy import REDACTION_FAILED, PrivacyOptions, Redactor
from ragmetrics_core.scrub import scrub_secrets


@pytest.mark.parametrize(
    "secret",
    [
        "sk-proj-AbCdEfGhIjKlMnOpQrSt1234",
        "sk-ant-api03-abcdefghijklmnop",
        "ghp_abcdefghijklmnopqrstuvwxyz0123",
        "xoxb-1234567890-abcdefghij",
        "AKIAIOSFODNN7EXAMPLE",
        "AIzaSyA1234567890abcdefghijklmnopqrstu",
    ],
)
def test_credential_shapes_are_masked(secret: str) -> None:
    assert secret not in scrub_secrets(f"the key {secret} leaked")
    assert "[redacted]" in scrub_secrets(f"the key {secret} leaked")


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.payload.sig", "Authorization"),
        ('{"api_key": "abc123secret"}', '"api_key": "'),
        ("password=hunter2", "password="),
        ("OPENAI_API_KEY=xyz-secret-value", "API_KEY="),
    ],
)
def test_key_value_credentials_keep_the_key_and_lose_the_value(text: str, kept: str) -> None:
    scrubbed = scrub_secrets(text)
    assert kept in scrubbed
    for value in ("eyJhbGciOiJIUzI1NiJ9", "abc123secret", "hunter2", "xyz-secret-value"):
        assert value not in scrubbed


def test_ordinary_text_is_left_alone() -> None:
    text = "Paris is in France; the task-list has 12 items and skis are fun."
    assert scrub_secrets(text) == text


def test_redactor_applies_hook_then_cap_and_fails_closed() -> None:
    redactor = Redactor(PrivacyOptions(redact=lambda t: t.upper(), max_text_chars=5))
    assert redactor.text("abcdefgh") == "ABCD…"
    assert Redactor(PrivacyOptions(redact=lambda t: None)).text("x") == REDACTION_FAILED  # type: ignore[arg-type,return-value]
    assert Redactor(PrivacyOptions(capture_texts=False)).text("anything") is None
    assert Redactor(PrivacyOptions(capture_texts=False)).error("token=abc failed") == "token=[redacted] failed"


@pytest.mark.parametrize("field", ["max_text_chars", "max_contexts", "max_claims", "max_error_chars"])
def test_caps_must_be_non_negative_ints(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        PrivacyOptions(**{field: -1})
    with pytest.raises(TypeError, match="redact"):
        PrivacyOptions(redact="upper")  # type: ignore[arg-type]


def test_ids_and_names_go_out_without_captured_texts_but_never_with_a_secret() -> None:
    from ragmetrics_core.online.types import Origin
    from ragmetrics_core.online.worker import labelled_origin
    from ragmetrics_core.scrub import SECRETS

    redactor = Redactor(PrivacyOptions(capture_texts=False, max_text_chars=60))
    assert redactor.label("doc-17") == "doc-17"
    assert redactor.label(None) is None
    assert redactor.label("https://s3.example/a.pdf?token=abcdef0123456789") == "https://s3.example/a.pdf?token=[redacted]"
    assert redactor.label("x" * 100) == "x" * 59 + "…"
    origin = labelled_origin(
        Origin(chain_name="bot sk-proj-AbCdEfGhIjKlMnOpQrSt1234", run_id="r-1", tags=("a", "password=hunter2")),
        Redactor(PrivacyOptions()),
    )
    assert (origin.chain_name, origin.run_id, origin.tags) == ("bot [redacted]", "r-1", ("a", "password=[redacted]"))
    # A secret the process was given is masked by value even with the guessing by shape turned off.
    SECRETS.register("plainvalue-0042")
    try:
        assert Redactor(PrivacyOptions(scrub_secrets=False)).label("tag plainvalue-0042") == "tag [redacted]"
    finally:
        SECRETS.clear()  # the environment is read again on next use


def test_error_messages_and_labels_are_always_encodable() -> None:
    redactor = Redactor(PrivacyOptions())
    assert redactor.error("judge said: bad \udce9 byte") == "judge said: bad \ufffd byte"
    assert redactor.label("caf\udce9") == "caf\ufffd"
    assert redactor.label("Cafe\u0301") == "Cafe\u0301"  # ids are matched byte for byte: not normalised
