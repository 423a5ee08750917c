"""Masking credentials in text that may reach a log, a result or telemetry (exception messages of HTTP clients
and of users' judges can quote headers and keys)."""

from __future__ import annotations

import re

REDACTED = "[redacted]"

# Shapes of credentials that must never reach an exporter: provider keys, bearer tokens, key=value pairs.
_SECRET_PATTERNS: tuple[re.Pattern[str], ...] = (
    re.compile(r"\b(?:sk|pk|rk)-[A-Za-z0-9_\-]{8,}"),
    re.compile(r"\b(?:ghp|gho|ghu|ghs|github_pat)_[A-Za-z0-9_]{16,}"),
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/\-]+=*"),
    re.compile(
        r"(?i)\b([\w-]*?(?:api[_-]?key|token|secret|password|passwd|authorization))"
        r"(\"?'?\s*[:=]\s*\"?'?)([^\s\"',;}]+)"
    ),
)


def scrub_secrets(text: str) -> str:
    """Mask substrings shaped like API keys, tokens and ``key=value`` credentials."""
    for pattern in _SECRET_PATTERNS:
        if pattern.groups == 3:
            text = pattern.sub(lambda match: f"{match.group(1)}{match.group(2)}{REDACTED}", text)
        else:
            text = pattern.sub(REDACTED, text)
    return text
