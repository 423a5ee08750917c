"""Secret masking's CPU on free text, three ways side by side in one run.

``scrub_secrets`` runs on every answer an LLM endpoint returns and on every text the online pipeline exports, so
its cost is paid per sample. Each text is masked by:

- **every shape**: each secret shape's regular expression run over the whole text;
- **needles**: a shape run only when the text holds one of its pieces ("key", "token", "auth", ...), as before;
- **scrub_secrets**: today's function, which also tests what follows each piece before running the two
  credential shapes (``key=value`` and a key's hex digits), whose expressions cost most on prose.

Printed: microseconds per text and the ratios, best of ``--repeat`` timings of ``--number`` calls each.

    .venv/bin/python benchmarks/scrub.py
"""

from __future__ import annotations

import argparse
import json
import sys
import timeit
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ragmetrics_core.scrub import _NEEDLES, _SHAPES, SECRETS, scrub_secrets

PROSE = ("The bridge opened in 1932 and carries eight lanes of traffic across the harbour, with a railway line and "
         "two footpaths beside them. ") * 6
PROSE_NAMING_KEYS = ("The author of the keyboard manual explained how tokens are counted by the model, and the "
                     "authority approved the secret recipe in 1889. ") * 6
JUDGE_ANSWER = json.dumps({"claims": [
    {"text": "The author of the report is the city's transport authority."},
    {"text": "Tokens are counted per request and billed monthly."},
    {"text": "The keyboard layout was patented in 1878."},
] * 3})
PLANTED = PROSE_NAMING_KEYS + ' the config said api_key="sk-live-0123456789abcdef" and auth token: ' + "9f86d081" * 4

TEXTS = {"prose": PROSE, "prose naming keys": PROSE_NAMING_KEYS, "judge answer (JSON)": JUDGE_ANSWER,
         "prose with two credentials": PLANTED}


def every_shape(text: str) -> str:
    text = SECRETS.mask(text)
    for shape in _SHAPES:
        text = shape.pattern.sub(shape.replacement, text)
    return text


def needles(text: str) -> str:
    text = SECRETS.mask(text)
    folded = text.casefold()
    found = {needle for needle in _NEEDLES if needle in folded}
    for shape in _SHAPES:
        if not found.isdisjoint(shape.needles):
            text = shape.pattern.sub(shape.replacement, text)
    return text


def best_us(function: Callable[[str], str], text: str, number: int, repeat: int) -> float:
    return min(timeit.repeat(lambda: function(text), number=number, repeat=repeat)) / number * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--number", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    ways = {"every shape": every_shape, "needles": needles, "scrub_secrets": scrub_secrets}
    print(f"{'text':>28} {'chars':>6} " + " ".join(f"{name + ' µs':>16}" for name in ways)
          + f" {'every/now':>10} {'needles/now':>12}")
    for name, text in TEXTS.items():
        outputs = {way(text) for way in ways.values()}
        assert len(outputs) == 1, f"the three ways disagree on {name!r}"
        timings = [best_us(way, text, args.number, args.repeat) for way in ways.values()]
        print(f"{name:>28} {len(text):>6} " + " ".join(f"{value:>16.1f}" for value in timings)
              + f" {timings[0] / timings[2]:>10.1f} {timings[1] / timings[2]:>12.1f}")


if __name__ == "__main__":
    main()
