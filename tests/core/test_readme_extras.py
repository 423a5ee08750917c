"""Every example of the README runs after step 1's install, or says which extra it needs."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"

# What in an example needs which extra (pyproject's optional dependencies).
NEEDS = {
    "pandas": ("to_pandas", "evaluate(df", "pd."),
    "openai": ("OpenAIJudge", "--judge openai"),
    "langchain": ("from ragmetrics_langchain", "import ragmetrics_langchain"),
    "llamaindex": ("from ragmetrics_llamaindex", "import ragmetrics_llamaindex"),
    "otel": ("OtelEmitter",),
    "phoenix": ("PhoenixEmitter",),
    "ray": ("--backend ray",),
}


def _blocks(text: str) -> list[tuple[str, str]]:
    """Each fenced block with the prose paragraph just before it."""
    found = []
    for match in re.finditer(r"(?:^|\n\n)((?:(?!```)[^\n]+\n)*)```[a-z]*\n(.*?)```", text, re.DOTALL):
        found.append((match.group(1), match.group(2)))
    return found


def _extras_named(text: str) -> set[str]:
    return {name for group in re.findall(r'\.\[([a-z,]+)\]|ragmetrics\[([a-z,]+)\]', text)
            for names in group for name in names.split(",") if name}


def test_each_example_names_the_extra_it_needs_beyond_step_one() -> None:
    text = README.read_text("utf-8")
    blocks = _blocks(text)
    first = blocks[0][1]
    installed = _extras_named(first)
    assert installed == {"langchain", "otel"}  # step 1, as the README's first command has it
    missing = []
    for before, code in blocks[1:]:
        needed = {extra for extra, markers in NEEDS.items() if any(marker in code for marker in markers)}
        named = _extras_named(code) | _extras_named(before)
        for extra in sorted(needed - installed - named):
            missing.append(f"{extra} for: {code.strip().splitlines()[0]}")
    assert missing == []
