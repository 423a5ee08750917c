"""Peak memory and seconds of ``ragmetrics evaluate``'s batch path at scale: a run over N rows, then a resume of
the finished run (every row skipped), each in a fresh process so peak RSS is its own. Each run does what the CLI
does: ``keep_results=False``, the summary table and the HTML report (capped at its detail limit).

``--evaluator judge`` scores with a trivial in-process judge (two claims, every check entailed) through the real
engine; ``instant`` (the default; the engine costs ~1 ms a sample, too slow for a million rows) returns one
precomputed result of the same shape for every sample. Either way the figures measure the pipeline (reading,
writing, resuming, summarising, reporting), not a judge.

    .venv/bin/python benchmarks/batch_scale.py                        # 100,000 and 1,000,000 rows
    .venv/bin/python benchmarks/batch_scale.py --rows 20000 --evaluator judge
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = """
import asyncio, resource, sys, time
from ragmetrics_core.batch import evaluate_file
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.report.html import write_report_data
from ragmetrics_core.sample import RagSample
from ragmetrics_core.evidence import Check, Claim, Verdict
from ragmetrics_core.judges.base import CheckResult, Extraction, SimilarityResult


class Trivial:
    name = "trivial"

    async def extract(self, request):
        claims = [Claim(text="claim one"), Claim(text="claim two")]
        return Extraction(response_claims=claims, reference_claims=claims)

    async def check(self, request):
        k = len(request.contexts)
        yes = Check(verdict=Verdict.ENTAILED)
        return CheckResult(
            response_vs_reference=[yes] * len(request.response_claims),
            reference_vs_response=[yes] * len(request.reference_claims),
            response_vs_chunks=[[yes] * k for _ in request.response_claims],
            reference_vs_chunks=[[yes] * k for _ in request.reference_claims],
        )

    async def similarity(self, question, candidates):
        return SimilarityResult(similarities=[1.0] * len(candidates))


METRICS = ["overall_precision", "overall_recall", "faithfulness", "hallucination"]
engine = Evaluator(judge=Trivial(), metrics=METRICS)


class Instant:
    # One precomputed result (from the engine and the trivial judge) for every sample.

    def __init__(self):
        sample = RagSample(user_input="What is fact 1?", response="Fact 1 is true.", reference="Fact 1.",
                           retrieved_contexts=["Fact 1 is true.", "Unrelated text."])
        self.result = asyncio.run(engine.aevaluate(sample))

    async def aevaluate(self, sample):
        return self.result


started = time.perf_counter()
evaluator = Instant() if sys.argv[3] == "instant" else engine
run = evaluate_file(sys.argv[1], out=sys.argv[2], evaluator=evaluator, metrics=METRICS, concurrency=8,
                    progress=False, keep_results=False)
table = run.summary().table()
write_report_data(run.report, sys.argv[2] + ".html")
elapsed = time.perf_counter() - started
peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(f"{elapsed:.1f} {peak_mb:.0f} {run.evaluated} {run.resumed}")
"""


def measure(rows: int, folder: Path, evaluator: str) -> list[tuple[str, float, float]]:
    source = folder / f"in-{rows}.jsonl"
    with source.open("w", encoding="utf-8") as handle:
        for index in range(rows):
            handle.write(json.dumps({
                "id": f"s{index}", "user_input": f"What is fact {index}?", "response": f"Fact {index} is true.",
                "retrieved_contexts": [f"Fact {index} is true.", "Unrelated text."], "reference": f"Fact {index}.",
            }) + "\n")
    out = folder / f"out-{rows}.jsonl"
    figures = []
    for phase in ("run", "resume"):
        done = subprocess.run(
            [sys.executable, "-c", CHILD, str(source), str(out), evaluator], capture_output=True, text=True, check=True,
            cwd=Path(__file__).resolve().parents[1],
        )
        seconds, peak, evaluated, resumed = done.stdout.split()
        expected = (rows, 0) if phase == "run" else (0, rows)
        assert (int(evaluated), int(resumed)) == expected, (phase, evaluated, resumed)
        figures.append((phase, float(seconds), float(peak)))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--evaluator", choices=("instant", "judge"), default="instant")
    args = parser.parse_args()
    print(f"evaluator: {args.evaluator}")
    print(f"{'rows':>9} {'run s':>8} {'run MB':>8} {'resume s':>9} {'resume MB':>10}")
    with tempfile.TemporaryDirectory() as folder:
        for rows in args.rows:
            (_, run_s, run_mb), (_, resume_s, resume_mb) = measure(rows, Path(folder), args.evaluator)
            print(f"{rows:9,d} {run_s:8.1f} {run_mb:8.0f} {resume_s:9.1f} {resume_mb:10.0f}", flush=True)


if __name__ == "__main__":
    main()
