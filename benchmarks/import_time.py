"""What importing an integration adds to an app's start-up, on top of what the app imports anyway.

Run by hand (not a test): ``python benchmarks/import_time.py`` (``--runs 9`` by default).

For each framework, every run is a fresh interpreter that first imports what an app on that framework imports
anyway (LangChain: ``BaseCallbackHandler``, ``Runnable``, ``RunnableLambda``; LlamaIndex: ``llama_index.core``),
timed, and then the integration's public name an app uses (``RagMetricsCallbackHandler``,
``RagMetricsInstrumentor``), timed on its own. The best run of each is kept (start-up times only get slower under
load), and the integration's share is printed beside the framework's, with the number of modules each loaded.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CASES = {
    "langchain": (
        "from langchain_core.callbacks import BaseCallbackHandler\n"
        "from langchain_core.runnables import Runnable, RunnableLambda",
        "from ragmetrics_langchain import RagMetricsCallbackHandler",
    ),
    "llamaindex": (
        "import llama_index.core",
        "from ragmetrics_llamaindex import RagMetricsInstrumentor",
    ),
}

_PROBE = """
import json, sys, time
start = time.perf_counter()
exec({framework!r})
middle = time.perf_counter()
before = len(sys.modules)
exec({ours!r})
end = time.perf_counter()
ours = sorted(name for name in sys.modules if name.startswith(("ragmetrics_core", "ragmetrics_langchain",
                                                               "ragmetrics_llamaindex")))
print(json.dumps({{"framework_s": middle - start, "ours_s": end - middle, "framework_modules": before,
                  "added_modules": len(sys.modules) - before, "our_modules": len(ours)}}))
"""


def one_run(framework: str, ours: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "integrations")])}
    completed = subprocess.run(
        [sys.executable, "-X", "frozen_modules=on", "-c", _PROBE.format(framework=framework, ours=ours)],
        capture_output=True, text=True, check=True, env=env, cwd=ROOT,
    )
    result: dict[str, float] = json.loads(completed.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--runs", type=int, default=9, help="fresh interpreters per framework")
    parser.add_argument("--target", type=float, default=0.15, help="largest acceptable share, for the verdict")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, best of {args.runs} fresh processes\n")
    header = f"{'framework':<12}{'framework ms':>14}{'ragmetrics ms':>15}{'added':>8}{'modules (ours)':>16}"
    print(f"{header}  within target")
    for name, (framework, ours) in CASES.items():
        runs = [one_run(framework, ours) for _ in range(args.runs)]
        base = min(run["framework_s"] for run in runs)
        added = min(run["ours_s"] for run in runs)
        last = runs[-1]
        share = added / base
        modules = f"{int(last['added_modules'])} ({int(last['our_modules'])})"
        print(
            f"{name:<12}{base * 1000:>14.1f}{added * 1000:>15.1f}{share:>8.1%}{modules:>16}  "
            f"{'yes' if share <= args.target else 'no'}"
        )


if __name__ == "__main__":
    main()
