"""Masking secrets in text that may leave the process: results, reports, caches, telemetry, logs, errors.

Two nets, applied together by :func:`scrub_secrets`:

* **by value** (:data:`SECRETS`): every secret the process was given (the judge's API keys, the variable named by
  ``--api-key-env``, Langfuse's keys, the values of OTLP exporter headers, any ``*_API_KEY``/``*_TOKEN``-style
  variable) is masked wherever it appears, whatever its shape. Cheap enough for every written row: a few substring
  tests, no regular expression.
* **by shape**: provider key formats, bearer tokens, ``key=value`` credentials and long hex strings after a
  key-like word, for secrets the process was never told about (a key quoted by a user's judge in its error).

Writers and caches apply the first net to everything they write (:func:`mask_known_secrets`); free text (answers
from an endpoint, exception messages, telemetry texts) gets both.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from typing import NamedTuple
from urllib.parse import unquote

REDACTED = "[redacted]"

MIN_SECRET_CHARS = 8
"""Shorter values are not masked by value: masking ``abc`` everywhere would garble ordinary text."""

# Environment variables that hold secrets by name: whole values.
_SECRET_ENV_NAMES = frozenset({
    "OPENAI_API_KEY", "RAGMETRICS_JUDGE_API_KEY", "RAGMETRICS_EMBEDDING_API_KEY", "AZURE_OPENAI_API_KEY",
    "LANGFUSE_SECRET_KEY", "LANGFUSE_PUBLIC_KEY", "PHOENIX_API_KEY", "PHOENIX_CLIENT_HEADERS",
})
_SECRET_ENV_SUFFIX = re.compile(r"(?:_API_KEY|_SECRET_KEY|_SECRET|_TOKEN|_ACCESS_KEY|_PASSWORD)$")
# Header lists ("name=value,name2=value2", values URL-encoded) whose values are secrets (OTel's format).
_HEADER_ENV = re.compile(r"^OTEL_EXPORTER_OTLP(?:_[A-Z]+)*_HEADERS$|^PHOENIX_CLIENT_HEADERS$")
_AUTH_SCHEME = re.compile(r"^(?:bearer|basic|token|api-key)\s+", re.IGNORECASE)


class SecretRegistry:
    """The process-wide set of secret values to mask by value; thread-safe.

    Registering builds a new tuple under a lock and swaps it in; :meth:`mask` reads the tuple once without a lock.
    The environment is read on first use and again on :meth:`load_environment` (judges and the online evaluator
    call it when built, so a variable set before them is always known).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._values: tuple[str, ...] = ()
        self._environment_loaded = False

    def register(self, *values: str | None) -> None:
        """Add secret values (``None``, blank and values shorter than :data:`MIN_SECRET_CHARS` are ignored)."""
        fresh = [value.strip() for value in values if isinstance(value, str)]
        fresh = [value for value in fresh if len(value) >= MIN_SECRET_CHARS]
        if not fresh:
            return
        with self._lock:
            known = set(self._values)
            if known.issuperset(fresh):
                return
            # Longest first: a secret containing another is masked whole.
            self._values = tuple(sorted(known.union(fresh), key=len, reverse=True))

    def load_environment(self, environ: Mapping[str, str] | None = None) -> None:
        """Register the secrets found in the environment (see the module docstring for which)."""
        env = os.environ if environ is None else environ
        self._environment_loaded = True
        self.register(*secrets_in_environment(env))

    def mask(self, text: str) -> str:
        """``text`` with every registered value replaced by ``[redacted]``."""
        if not self._environment_loaded:
            self.load_environment()
        for value in self._values:
            if value in text:
                text = text.replace(value, REDACTED)
        return text

    def __contains__(self, value: object) -> bool:
        return value in self._values

    def __len__(self) -> int:
        return len(self._values)

    def clear(self) -> None:
        """Forget every value (tests); the environment is read again on next use."""
        with self._lock:
            self._values = ()
            self._environment_loaded = False


def secrets_in_environment(env: Mapping[str, str]) -> Iterable[str]:
    """Secret values held by ``env``: whole values of secret-named variables, values of header lists."""
    for name, value in env.items():
        upper = name.upper()
        if _HEADER_ENV.search(upper):
            yield from header_values(value)
        elif upper in _SECRET_ENV_NAMES or _SECRET_ENV_SUFFIX.search(upper):
            yield value


def header_values(headers: str) -> Iterable[str]:
    """The values of an OTel-style header list, each also without its ``Bearer``/``Basic`` scheme."""
    for item in headers.split(","):
        _, sep, raw = item.partition("=")
        if not sep:
            continue
        value = unquote(raw).strip()
        yield value
        bare = _AUTH_SCHEME.sub("", value)
        if bare != value:
            yield bare


SECRETS = SecretRegistry()
"""The process's registry; what :func:`scrub_secrets` and :func:`mask_known_secrets` consult."""


def register_secret(*values: str | None) -> None:
    """Mask these values in everything ragmetrics writes or emits from now on."""
    SECRETS.register(*values)


def mask_known_secrets(text: str) -> str:
    """Mask the registered secret values only (what writers apply to whole rows)."""
    return SECRETS.mask(text)


class _Shape(NamedTuple):
    needles: tuple[str, ...]
    """Pieces of which every match holds one, casefolded (see :data:`_SHAPES`)."""
    pattern: re.Pattern[str]
    replacement: str
    after: re.Pattern[str] | None = None
    """What every match holds right after one of its needles (case ignored), when that is worth testing first."""


_SHAPES: tuple[_Shape, ...] = (
    # Each shape with pieces of which every match contains one (casefolded; in a case-blind shape none with an "i",
    # which "ı" matches and casefolds to itself): most texts contain none, and a substring test costs far less than
    # a regular expression, which Python tries at every position of the text (about 4 ms for a 3 kB answer here).
    # A piece may be shorter than the shape's prefix ("k-" for sk-/pk-/rk-): each distinct piece is one scan of the
    # text, and the scans are most of the cost for a text holding none. GitHub's are looked for whole: "gh" alone is in
    # ordinary words ("through", "right", "Ghent"), and each such hit ran the expression over the whole text.
    # Provider keys: OpenAI/Anthropic/Langfuse (sk-, pk-, rk-), Groq, Hugging Face, GitLab, xAI, Replicate, GitHub,
    # Slack, AWS, Google.
    _Shape(("k-",), re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}"), REDACTED),
    _Shape(("gsk_",), re.compile(r"\bgsk_[A-Za-z0-9]{16,}"), REDACTED),
    _Shape(("hf_",), re.compile(r"\bhf_[A-Za-z0-9]{24,}"), REDACTED),
    _Shape(("glpat-",), re.compile(r"\bglpat-[A-Za-z0-9_\-]{16,}"), REDACTED),
    _Shape(("xai-",), re.compile(r"\bxai-[A-Za-z0-9]{20,}"), REDACTED),
    _Shape(("r8_",), re.compile(r"\br8_[A-Za-z0-9]{24,}"), REDACTED),
    _Shape(
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr|github_pat)_[A-Za-z0-9_]{16,}"),
        REDACTED,
    ),
    _Shape(("xox",), re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"), REDACTED),
    _Shape(("akia",), re.compile(r"\bAKIA[0-9A-Z]{16}\b"), REDACTED),
    _Shape(("aiza",), re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"), REDACTED),
    _Shape(("bearer",), re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]+=*"), REDACTED),
    # key=value / "key": "value" credentials: the name stays, the value goes.
    _Shape(
        ("key", "token", "secret", "passw", "auth"),
        re.compile(
            r"(?i)\b([\w-]*?(?:api[_-]?key|token|secret|password|passwd|authorization))"
            r"(\"?'?\s*[:=]\s*\"?'?)([^\s\"',;}]+)"
        ),
        rf"\1\2{REDACTED}",
        # The rest of the name, then ":" or "=". Prose is full of "author", "keyboard" and "tokens", on which the
        # expression above costs ~0.2 ms a kB; this test at each needle costs a tenth of it.
        re.compile(r"[\w-]*\"?'?\s*[:=]"),
    ),
    # 32+ hex digits after a key-like word ("key 9f86d0...", "secret: ..."): API keys of many providers.
    _Shape(
        ("key", "token", "secret", "credent", "auth"),
        re.compile(r"(?i)\b((?:api[_-]?)?(?:key|token|secret|credential|auth)s?\b[^\w\n]{1,4}(?:is\s+)?)([0-9a-f]{32,})\b"),
        rf"\1{REDACTED}",
        re.compile(r"(?i)\w*\W{1,4}(?:is\s+)?[0-9a-f]{32}"),  # the rest of the word, a separator, the digits
    ),
)


_NEEDLES = tuple(sorted({needle for shape in _SHAPES for needle in shape.needles}))


def scrub_secrets(text: str) -> str:
    """Mask the registered secret values, then substrings shaped like API keys, tokens and credentials."""
    text = SECRETS.mask(text)
    folded = text.casefold()  # a replacement adds no needle, so the needles of the first text are enough
    found = {needle for needle in _NEEDLES if needle in folded}  # each piece looked for once
    if found:
        for shape in _SHAPES:
            if found.isdisjoint(shape.needles):
                continue
            if shape.after is None or _needle_followed(text, folded, found.intersection(shape.needles), shape.after):
                text, replaced = shape.pattern.subn(shape.replacement, text)
                if replaced:
                    folded = text.casefold()  # the next shape's needles are looked up in the text as it is now
    return text


def _needle_followed(text: str, folded: str, needles: Iterable[str], after: re.Pattern[str]) -> bool:
    """Whether ``after`` matches right after an occurrence of a needle. Found in ``folded`` (``text`` casefolded), a
    needle is at the same place in ``text`` when casefolding changed no length (no "ß" → "ss"); otherwise the answer
    is yes, and the shape's expression decides."""
    if len(folded) != len(text):
        return True
    for needle in needles:
        start = folded.find(needle)
        while start >= 0:
            if after.match(text, start + len(needle)):
                return True
            start = folded.find(needle, start + 1)
    return False
