"""Two checkouts of the embedded judge timed alternately on the same synthetic samples, in one run.

Run by hand from the repository root, naming the checkouts to compare with (e.g. main's worktree, an older commit's)::

    python benchmarks/embedded_alternating.py ../main            # 6 rounds
    python benchmarks/embedded_alternating.py ../main --rounds 8 --samples 400
    python benchmarks/embedded_alternating.py ../main /tmp/old   # this against each of them, in the same rounds

Each round starts one fresh process per checkout, in turn (A B, A B, …), each scoring the same samples of
``embedded_judge.py`` (all fifteen metrics, five contexts of ~110 words; 200 warm-up samples first) and reporting
samples per second of CPU time. A shared, busy machine drifts by tens of per cent from minute to minute; the
alternation puts both sides under the same drift, and the median of the per-round ratios is the figure to read.

``--per-sample`` alternates far more finely: one worker process per checkout stays alive, and each sample is scored
by one, then the other (the order swapping every sample), so both see the same second of the machine. It prints
the median of the per-sample ratios and the ratio of the total CPU times (a round of fresh processes swings by a
factor of two on a busy machine; this figure by a few per cent)::

    python benchmarks/embedded_alternating.py /tmp/old --per-sample --samples 1000
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent

_ONE_SIDE = """
import asyncio, random, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[1] + "/benchmarks")
import embedded_judge as bench
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.embedded import EmbeddedJudge
rng = random.Random(11)
vocabulary = bench._vocabulary(rng)
warm = [bench.synthetic_sample(rng, vocabulary) for _ in range(200)]
timed = [bench.synthetic_sample(rng, vocabulary) for _ in range(int(sys.argv[2]))]
evaluator = Evaluator(judge=EmbeddedJudge())
async def run(batch):
    for sample in batch:
        await evaluator.aevaluate(sample)
asyncio.run(run(warm))
cpu = time.process_time()
asyncio.run(run(timed))
print(len(timed) / (time.process_time() - cpu))
"""


_WORKER = """
import asyncio, random, sys, time
sys.path.insert(0, sys.argv[1])
sys.path.insert(1, sys.argv[1] + "/benchmarks")
import embedded_judge as bench
from ragmetrics_core.engine import Evaluator
from ragmetrics_core.judges.embedded import EmbeddedJudge
rng = random.Random(11)
vocabulary = bench._vocabulary(rng)
samples = [bench.synthetic_sample(rng, vocabulary) for _ in range(200 + int(sys.argv[2]))]
evaluator = Evaluator(judge=EmbeddedJudge())
loop = asyncio.new_event_loop()
for sample in samples[:200]:
    loop.run_until_complete(evaluator.aevaluate(sample))
print("ready", flush=True)
for line in sys.stdin:
    cpu = time.process_time()
    loop.run_until_complete(evaluator.aevaluate(samples[200 + int(line)]))
    print(time.process_time() - cpu, flush=True)
"""


def per_sample(other: Path, n_samples: int) -> None:
    """Each sample scored by a worker of ``other``, then of this checkout (the order swapping every sample)."""
    workers = []
    for checkout in (other, REPO_ROOT):
        env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{checkout / 'integrations'}"}
        workers.append(subprocess.Popen(
            [sys.executable, "-c", _WORKER, str(checkout), str(n_samples)], cwd=checkout, env=env, text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        ))
    for worker in workers:
        assert worker.stdout is not None and worker.stdout.readline().strip() == "ready"

    def timed(worker: subprocess.Popen[str], number: int) -> float:
        assert worker.stdin is not None and worker.stdout is not None
        worker.stdin.write(f"{number}\n")
        worker.stdin.flush()
        return float(worker.stdout.readline())

    theirs: list[float] = []
    ours: list[float] = []
    for number in range(n_samples):
        first, second = (0, 1) if number % 2 else (1, 0)
        spent = {first: timed(workers[first], number), second: timed(workers[second], number)}
        theirs.append(spent[0])
        ours.append(spent[1])
    for worker in workers:
        worker.communicate("")
    ratios = [their / our for their, our in zip(theirs, ours, strict=True)]
    print(f"{n_samples} samples, each scored by both: this/{other.name} median per-sample ratio "
          f"{statistics.median(ratios):.3f}, total CPU ratio {sum(theirs) / sum(ours):.3f} "
          f"({n_samples / sum(theirs):.1f} vs this {n_samples / sum(ours):.1f} samples/s)")


def samples_per_second(checkout: Path, n_samples: int) -> float:
    """One fresh process scoring ``n_samples`` samples with ``checkout``'s code (its own benchmark's samples)."""
    env = {**os.environ, "PYTHONPATH": f"{checkout}{os.pathsep}{checkout / 'integrations'}"}
    done = subprocess.run(
        [sys.executable, "-c", _ONE_SIDE, str(checkout), str(n_samples)],
        cwd=checkout, env=env, capture_output=True, text=True, check=True,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("others", type=Path, nargs="+", help="the checkouts to compare with (repository roots)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--samples", type=int, default=400)
    parser.add_argument("--per-sample", action="store_true", help="alternate every sample between two workers")
    args = parser.parse_args(argv)
    others = [other.resolve() for other in args.others]
    if args.per_sample:
        for other in others:
            per_sample(other, args.samples)
        return
    ratios: list[list[float]] = [[] for _ in others]
    print(f"samples/s per core (CPU time), {args.samples} samples a side; this = {REPO_ROOT}")
    for number in range(1, args.rounds + 1):
        line = []
        for other, found in zip(others, ratios, strict=True):
            theirs = samples_per_second(other, args.samples)
            ours = samples_per_second(REPO_ROOT, args.samples)
            found.append(ours / theirs)
            line.append(f"{other.name} {theirs:6.1f} this {ours:6.1f} ratio {ours / theirs:.3f}")
        print(f"  round {number}: " + " | ".join(line))
    for other, found in zip(others, ratios, strict=True):
        print(f"median ratio this/{other}: {statistics.median(found):.3f} (min {min(found):.3f}, max {max(found):.3f})")


if __name__ == "__main__":
    main()
