"""What an app's start-up pays for ragmetrics: importing an integration loads the hot path and nothing else.

Each case runs in a fresh interpreter (``sys.modules`` of this test process holds everything already): it imports
what an app on the framework imports anyway, then the integration's public name, and lists what was added.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Never needed to snapshot a run and queue it: they load with the worker, on the first accepted sample.
FORBIDDEN = (
    "ragmetrics_core.engine", "ragmetrics_core.judges", "ragmetrics_core.results", "ragmetrics_core.sample",
    "ragmetrics_core.evidence", "ragmetrics_core.metrics", "ragmetrics_core.batch", "ragmetrics_core.aggregate",
    "ragmetrics_core.report", "ragmetrics_core.formats", "ragmetrics_core.explain", "ragmetrics_core.online.evaluator",
    "ragmetrics_core.online.worker", "ragmetrics_core.online.privacy", "ragmetrics_core.online.emitters",
    "langsmith", "langchain_core.tracers.context", "opentelemetry",
)


def _added_modules(framework: str, ours: str) -> list[str]:
    probe = (
        "import json, sys\n"
        f"{framework}\n"
        "before = set(sys.modules)\n"
        f"{ours}\n"
        "print(json.dumps(sorted(set(sys.modules) - before)))\n"
    )
    env = {"PYTHONPATH": f"{ROOT}:{ROOT / 'integrations'}", "PATH": "/usr/bin:/bin"}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, cwd=ROOT, check=True)
    added: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return added


def _forbidden(added: list[str]) -> list[str]:
    return [name for name in added if any(name == f or name.startswith(f + ".") for f in FORBIDDEN)]


@pytest.mark.parametrize(
    ("framework", "ours"),
    [
        (
            "from langchain_core.callbacks import BaseCallbackHandler\n"
            "from langchain_core.runnables import Runnable, RunnableLambda",
            "from ragmetrics_langchain import RagMetricsCallbackHandler, instrument",
        ),
        ("import llama_index.core", "from ragmetrics_llamaindex import RagMetricsInstrumentor"),
    ],
    ids=["langchain", "llamaindex"],
)
def test_importing_an_integration_loads_only_the_hot_path(framework: str, ours: str) -> None:
    added = _added_modules(framework, ours)
    assert _forbidden(added) == []
    assert "ragmetrics_core.online.types" in added  # the probe does see our modules


def test_importing_the_package_loads_nothing_until_a_name_is_used() -> None:
    added = _added_modules("", "import ragmetrics_core, ragmetrics_core.online")
    assert sorted(name for name in added if name.startswith("ragmetrics")) == [
        "ragmetrics_core", "ragmetrics_core._lazy", "ragmetrics_core.online",
    ]
    used = _added_modules("import ragmetrics_core", "ragmetrics_core.Evaluator")
    assert "ragmetrics_core.engine" in used  # and a name still works on first use


def test_the_probe_fails_when_the_hot_path_pulls_in_the_engine() -> None:
    added = _added_modules("", "import ragmetrics_core.online.types, ragmetrics_core.engine")
    assert "ragmetrics_core.engine" in _forbidden(added)
