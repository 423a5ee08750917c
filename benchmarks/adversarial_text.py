"""Seconds the embedded judge needs for one sample whose context (or response) is 1 MB of adversarial text.

Every step of the embedded judge must be linear or capped on any input: a run of periods or ellipses was
quadratic in sentence splitting (25k dots took 15 s). Each kind is scored once as the context of a sample with an
ordinary question, response and reference, and once as the response, all fifteen metrics; the table prints the
seconds side by side.

    .venv/bin/python benchmarks/adversarial_text.py            # 1 MB of each kind
    .venv/bin/python benchmarks/adversarial_text.py --mb 0.1   # smaller
    .venv/bin/python benchmarks/adversarial_text.py --kind "capitals in a row" --mb 0.2

Scored without a CPU budget, to show the judge's own time; the last column says whether the default per-sample
budget of a batch run (``ragmetrics_core.engine.DEFAULT_CPU_BUDGET_S``) would have stopped the sample.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from ragmetrics_core import Evaluator, RagSample
from ragmetrics_core.engine import DEFAULT_CPU_BUDGET_S

KINDS: dict[str, Callable[[int], str]] = {
    "dot run": lambda size: "." * size,
    "ellipsis run": lambda size: "…" * size,
    "one giant token": lambda size: "a" * size,
    "digit groups": lambda size: ("286,723 213,723 7 570,376.4 1,000\u00a0000.5 " * (size // 44 + 1))[:size],
    "50k tiny sentences": lambda size: ("A b. " * (size // 5 + 1))[:size],
    "mixed marks": lambda size: (".!?…。！？；" * (size // 8 + 1))[:size],
    "unbroken Chinese": lambda size: ("北京是中国的首都" * (size // 8 + 1))[:size],
    "role phrases": lambda size: ("the tower is the tallest building of Paris was " * (size // 47 + 1))[:size],
    # Capitalised words in a row with no sentence end: every prefix of their initials was once a term (quadratic).
    "capitals in a row": lambda size: ("Paris London Berlin Madrid Rome Vienna Prague Oslo " * (size // 52 + 1))[:size],
    "U.S. in a row": lambda size: ("U.S. " * (size // 5 + 1))[:size],
}


def seconds(evaluator: Evaluator, sample: RagSample) -> tuple[float, float]:
    """Wall and CPU seconds of one evaluation."""
    started, cpu = time.perf_counter(), time.process_time()
    evaluator.evaluate(sample)
    return time.perf_counter() - started, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=1.0, help="size of each adversarial text in MB (characters)")
    parser.add_argument("--kind", action="append", choices=sorted(KINDS), help="only these kinds (repeatable)")
    args = parser.parse_args()
    size = int(args.mb * 1_000_000)
    evaluator = Evaluator(cpu_budget_s=None)
    question = "When was the Eiffel Tower built?"
    answer = "The Eiffel Tower was built in 1889."
    header = f"{'kind':22s} {'as context':>11s} {'as response':>12s} {'over budget':>12s}"
    print(f"{header}   ({args.mb:g} MB each, all metrics; budget: {DEFAULT_CPU_BUDGET_S:g} s of CPU)")
    for name, make in KINDS.items():
        if args.kind and name not in args.kind:
            continue
        text = make(size)
        in_context, context_cpu = seconds(evaluator, RagSample(
            user_input=question, retrieved_contexts=[text, "The tower was built in 1889."], response=answer,
            reference=answer,
        ))
        in_response, response_cpu = seconds(evaluator, RagSample(
            user_input=question, retrieved_contexts=["The tower was built in 1889."], response=text, reference=answer,
        ))
        over = "yes" if max(context_cpu, response_cpu) > DEFAULT_CPU_BUDGET_S else "no"
        print(f"{name:22s} {in_context:10.2f}s {in_response:11.2f}s {over:>12s}")


if __name__ == "__main__":
    main()
