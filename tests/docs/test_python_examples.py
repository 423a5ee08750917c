"""Every ```python example of README.md and docs/*.md runs as a user would run it, or says why not.

Each example runs as a script in a fresh interpreter, in an empty working directory, with the repository on
``PYTHONPATH``. What it reaches over the network is local: the LLM judge talks to the fake OpenAI-compatible
server, configured through the variables the docs tell users to set (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``,
``RAGMETRICS_JUDGE_MODEL``), and Langfuse is the local stand-in (``LANGFUSE_BASE_URL``).

Markers in the markdown, on the lines just before a block, say how the tests treat it:

- ``<!-- continues the previous example -->``: a fragment, run after the previous block of the same file (and
  what that one continues); ``<!-- continues the first example -->``: after the file's first block.
- ``<!-- the tests run this with stand-ins for: sample, chain, calibration.json -->``: the user's own objects it
  presupposes come from ``tests/docs/stand_ins.py``; names with a dot or slash are files or model directories
  made in the working directory first.
- ``<!-- not run by the tests: REASON -->``: compiled, and every name it imports must exist.
"""

from __future__ import annotations

import ast
import importlib
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.docs import stand_ins
from tests.llm.fake_openai_server import FakeOpenAIServer
from tests.monitoring.langfuse_server import LangfuseStandIn, serve

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
TIMEOUT_S = 120

CONTINUES = "continues the previous example"
CONTINUES_FIRST = "continues the first example"
STAND_INS = "the tests run this with stand-ins for:"
NOT_RUN = "not run by the tests:"
_MARKER = re.compile(r"^<!--\s*(.*?)\s*-->$")


@dataclass(frozen=True)
class Block:
    path: Path
    line: int  # of the opening fence, 1-based
    code: str
    markers: tuple[str, ...]
    previous: Block | None
    first: Block | None  # the file's first block, if this is not it

    @property
    def id(self) -> str:
        return f"{self.path.relative_to(REPO)}:{self.line}"

    @property
    def continues(self) -> Block | None:
        """The block this one is a fragment of."""
        if CONTINUES in self.markers:
            return self.previous
        return self.first if CONTINUES_FIRST in self.markers else None

    @property
    def not_run_reason(self) -> str | None:
        return next((m.removeprefix(NOT_RUN).strip() for m in self.markers if m.startswith(NOT_RUN)), None)

    @property
    def stand_ins(self) -> list[str]:
        own = [name.strip() for m in self.markers if m.startswith(STAND_INS)
               for name in m.removeprefix(STAND_INS).split(",")]
        before = self.continues.stand_ins if self.continues is not None else []
        return before + [name for name in own if name not in before]

    @property
    def chain(self) -> list[Block]:
        """This block after the blocks it continues."""
        if self.continues is not None:
            return [*self.continues.chain, self]
        return [self]

    def program(self) -> str:
        objects = [name for name in self.stand_ins if not _is_file(name)]
        prelude = f"from tests.docs.stand_ins import {', '.join(objects)}\n" if objects else ""
        return prelude + "\n".join(block.code for block in self.chain)


def _is_file(name: str) -> bool:
    return "." in name or "/" in name


def collect(path: Path) -> list[Block]:
    lines = path.read_text("utf-8").splitlines()
    blocks: list[Block] = []
    index = 0
    while index < len(lines):
        if lines[index].strip() == "```python":
            end = next(i for i in range(index + 1, len(lines)) if lines[i].strip() == "```")
            markers: list[str] = []
            before = index - 1
            while before >= 0 and (found := _MARKER.match(lines[before].strip())):
                markers.insert(0, found.group(1))
                before -= 1
            code = "\n".join(lines[index + 1 : end]) + "\n"
            previous, first = (blocks[-1], blocks[0]) if blocks else (None, None)
            blocks.append(Block(path, index + 1, code, tuple(markers), previous, first))
            index = end
        index += 1
    return blocks


BLOCKS = [block for path in DOCS for block in collect(path)]
RUN = [block for block in BLOCKS if block.not_run_reason is None]
NOT_RUN_BLOCKS = [block for block in BLOCKS if block.not_run_reason is not None]

# What a block must show beyond running cleanly: checks appended after it (keyed by file and a line of the block),
# run in the same script, so a comment in the docs that claims a value is held to it.
CHECKS: dict[tuple[str, str], str] = {
    ("README.md", "result = Evaluator().evaluate(sample)"): (
        "assert result.values()['faithfulness'] == 1.0\n"
        "assert result.values()['noise_sensitivity_irrelevant'] == 0.5\n"
        "assert 0.0 <= aggregate(results).means()['faithfulness'] <= 1.0\n"
    ),
    ("README.md", 'result.scores["claims_in_top_chunk"]'): (
        "top = result.scores['claims_in_top_chunk']\n"
        "assert top.score == 0.5 and top.label == 'pass', top  # 'It is in Paris.' is in no chunk\n"
    ),
    ("docs/embedded_judge.md", 'result.values()["faithfulness"]'): (
        "assert result.values()['faithfulness'] == 1.0\n"
        "assert result.evidence.response_vs_chunks[0][0].rationale == "
        "'100% of content covered by chunk 1 sentence 1; number 1889 matches'\n"
    ),
    ("docs/llm_judge.md", "print(result.values(), result.usage)"): (
        # 3 chat calls + 1 embeddings call per sample, as the doc says; 'It is in Paris.' is in no chunk
        "assert (result.usage.calls, result.usage.embedding_calls) == (3, 1), result.usage\n"
        "assert result.values()['faithfulness'] == 0.5, result.values()\n"
    ),
    ("docs/calibration.md", 'result.scores["faithfulness"].probability'): (
        "assert 0.0 < result.scores['faithfulness'].probability < 1.0\n"
    ),
    ("README.md", 'evaluate(sample)   # configured from the environment'): (
        "assert result.judge.startswith('model'), result.judge\n"
        "assert abs(result.values()['faithfulness'] - 0.5) < 0.01, result.values()  # 'It is in Paris.': no chunk\n"
    ),
    ("README.md", 'chain.invoke("How deep is Lake Baikal?"'): (
        "assert online.flush(timeout_s=60) and online.stats().completed == 1, online.stats()\n"
    ),
    ("README.md", "online.submit(SampleDraft(user_input=question"): "assert online.stats().submitted == 1\n",
    ("docs/online.md", "online.submit("): "assert online.stats().submitted == 1\n",
    ("docs/langchain.md", "rag = chain.with_config(callbacks=[handler])"): (
        "assert online.flush(timeout_s=60) and online.stats().completed == 1, online.stats()\n"
    ),
    ("docs/llamaindex.md", "response = index.as_query_engine(similarity_top_k=4)"): (
        "assert online.flush(timeout_s=60) and online.stats().completed == 1, online.stats()\n"
    ),
    ("docs/llamaindex.md", "capture.set_response(answer)"): (  # after the first example's query
        "assert online.flush(timeout_s=60) and online.stats().completed == 2, online.stats()\n"
    ),
    ("docs/llamaindex.md", 'instrumentor.capture(reference="Rome is the capital of Italy.")'): (
        "assert online.flush(timeout_s=60) and online.stats().completed == 3, online.stats()\n"
    ),
    ("docs/cli.md", 'run = evaluate_file("samples.csv"'): (
        "from pathlib import Path\n"
        "assert len(run.results) == 2 and not run.errors and len(samples) == 2, run\n"
        "assert len(Path('results.jsonl').read_text('utf-8').splitlines()) == 2\n"
        "assert Path('report.html').stat().st_size > 0\n"
    ),
    ("docs/model_judge.md", 'judge = ModelJudge("models/mdeberta-xnli-onnx")'): (
        "assert abs(result.values()['faithfulness'] - 0.5) < 0.01, result.values()  # 'It is in Paris.': no chunk\n"
    ),
    ("docs/llm_judge.md", "result.per_judge"): "assert len(result.per_judge) == 3, result.per_judge\n",
    # The scores reach the local Langfuse stand-in (it refuses a request off Langfuse's published shape).
    ("docs/tracing_backends.md", 'LangfuseEmitter(environment="production")'): (
        "from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from ragmetrics_core.online import ContextDraft, SampleDraft\n"
        "trace.set_tracer_provider(TracerProvider())\n"
        "online.submit(SampleDraft(user_input='When was the Eiffel Tower completed?', response='In 1889.',\n"
        "                          contexts=[ContextDraft('The Eiffel Tower was completed in 1889.')]))\n"
        "assert online.flush(timeout_s=60)\n"
        "langfuse = online.stats().emitters['langfuse']\n"
        "assert langfuse.emitted == 1 and langfuse.failed == 0, online.stats()\n"
    ),
}

# The blocks that score with the LLM judge: each must have asked the fake server (and so no other endpoint).
CALLS_THE_LLM: list[tuple[str, str]] = [
    ("README.md", "Evaluator(judge=OpenAIJudge()).evaluate(sample)"),
    ("docs/llm_judge.md", "print(result.values(), result.usage)"),
    ("docs/llm_judge.md", 'EnsembleEvaluator(judges, aggregate="majority").evaluate(sample)'),
]

# What a block prints (regular expressions searched in its standard output, line by line).
OUTPUTS: dict[tuple[str, str], list[str]] = {
    ("README.md", "print(result.values())"): [r"^\{'overall_precision': .*'faithfulness': 1\.0"],
    ("docs/ragas.md", "print(run.summary())"): [
        r"faithfulness", r"context_recall", r"When was the Eiffel Tower completed\?",
        # "It was completed in 1889." read with its question: the table's line, then the mean printed alone
        r"^overall_precision +1\.000 +1 +0 ", r"^1\.0\Z",
    ],
}


def _is_block(block: Block, key: tuple[str, str]) -> bool:
    name, line = key
    return str(block.path.relative_to(REPO)) == name and line in block.code


def test_every_check_names_an_example_that_exists() -> None:
    for key in [*CHECKS, *OUTPUTS, *CALLS_THE_LLM]:
        assert sum(_is_block(block, key) for block in RUN) == 1, key


def test_markers_are_known_and_fragments_have_a_predecessor() -> None:
    assert len(BLOCKS) >= 30
    # Not run: Prometheus on a fixed public port, two Ray-cluster examples. A new one needs a reason as good.
    assert len(NOT_RUN_BLOCKS) <= 3, [block.id for block in NOT_RUN_BLOCKS]
    for block in BLOCKS:
        for marker in block.markers:
            known = marker in (CONTINUES, CONTINUES_FIRST) or marker.startswith((STAND_INS, NOT_RUN))
            assert known, f"{block.id}: {marker!r}"
        if CONTINUES in block.markers or CONTINUES_FIRST in block.markers:
            assert block.continues is not None, f"{block.id} continues nothing"
            assert block.continues.not_run_reason is None or block.not_run_reason, f"{block.id} continues a skip"
        for name in block.stand_ins:
            assert _is_file(name) or name in stand_ins.BUILDERS, f"{block.id}: no stand-in for {name!r}"


@pytest.fixture(scope="module")
def openai_server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


@pytest.fixture(scope="module")
def langfuse_url() -> Iterator[str]:
    httpd, url = serve(LangfuseStandIn(public_key="pk-lf-docs", secret_key="sk-lf-docs"))
    try:
        yield url
    finally:
        httpd.shutdown()
        httpd.server_close()


def _environment(openai_server: FakeOpenAIServer, langfuse_url: str) -> dict[str, str]:
    env = {name: value for name, value in os.environ.items()
           if not name.startswith(("RAGMETRICS_", "OPENAI_", "LANGFUSE_", "OTEL_", "PHOENIX_", "RAY_"))}
    env.update({
        "PYTHONPATH": os.pathsep.join([str(REPO), str(REPO / "integrations")]),
        "OPENAI_BASE_URL": openai_server.base_url,
        "OPENAI_API_KEY": "sk-docs-example",
        "RAGMETRICS_JUDGE_MODEL": "fake-judge-1",
        "RAGMETRICS_EMBEDDING_MODEL": "fake-embedding",
        "LANGFUSE_PUBLIC_KEY": "pk-lf-docs",
        "LANGFUSE_SECRET_KEY": "sk-lf-docs",
        "LANGFUSE_BASE_URL": langfuse_url,
        "AZURE_OPENAI_API_KEY": "azure-docs-example",
        "HF_HUB_OFFLINE": "1",
        # The docs show the current API only. Phoenix's client imports ldap3, which calls pyasn1's old names.
        "PYTHONWARNINGS": ",".join(["error::DeprecationWarning", "ignore:tagMap is deprecated",
                                    "ignore:typeMap is deprecated"]),
    })
    return env


def make_file(name: str, directory: Path) -> None:
    """A file or model directory an example reads, as the user would have it."""
    target = directory / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if name.startswith("models/"):
        from tests.model import tiny

        layout = "onnx/model_quantized.onnx" if "minicheck" in name else "model.onnx"
        tiny.build(target, [*stand_ins.CORPUS, stand_ins.EIFFEL, "When was the Eiffel Tower completed? Paris weather "
                            "is mild in spring. It is in Paris."], layout=layout)
    elif name == "calibration.json":
        from ragmetrics_core.calibration import Calibration, PlattMap
        from tests.calibration.conftest import metric_calibration

        Calibration(judge="embedded", metrics={"faithfulness": metric_calibration(PlattMap(slope=4.0, intercept=-2.0))}
                    ).save(target)
    elif name in ("samples.csv", "samples.jsonl", "day.jsonl"):
        import json

        rows = [{"user_input": "When was the Eiffel Tower completed?", "response": "It was completed in 1889.",
                 "retrieved_contexts": [stand_ins.EIFFEL], "reference": stand_ins.EIFFEL},
                {"user_input": "What is the capital of Italy?", "response": "Rome is the capital of Italy.",
                 "retrieved_contexts": [stand_ins.CORPUS[1]], "reference": "Rome."}]
        if name.endswith(".csv"):
            import csv

            with target.open("w", newline="", encoding="utf-8") as out:
                writer = csv.DictWriter(out, ["user_input", "answer", "retrieved_contexts", "reference"])
                writer.writeheader()
                for row in rows:
                    writer.writerow({"user_input": row["user_input"], "answer": row["response"],
                                     "retrieved_contexts": json.dumps(row["retrieved_contexts"]),
                                     "reference": row["reference"]})
        else:
            target.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    else:
        raise AssertionError(f"no stand-in file for {name!r}")


@pytest.mark.parametrize("block", RUN, ids=lambda block: block.id)
def test_example_runs(block: Block, openai_server: FakeOpenAIServer, langfuse_url: str, tmp_path: Path) -> None:
    for name in block.stand_ins:
        if _is_file(name):
            make_file(name, tmp_path)
    script = tmp_path / "example.py"
    checks = "".join(check for key, check in CHECKS.items() if _is_block(block, key))
    script.write_text(block.program() + checks, encoding="utf-8")
    requests_before = len(openai_server.requests)
    done = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, env=_environment(openai_server, langfuse_url),
        capture_output=True, text=True, timeout=TIMEOUT_S, check=False,
    )
    report = (f"{block.id} exited {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n"
              f"--- stderr\n{done.stderr[-5000:]}")
    assert done.returncode == 0, report
    assert "Traceback" not in done.stderr, report
    if any(_is_block(block, key) for key in CALLS_THE_LLM):
        assert len(openai_server.requests) > requests_before, f"{block.id} never reached the fake LLM endpoint"
    for key, patterns in OUTPUTS.items():
        if _is_block(block, key):
            for pattern in patterns:
                assert re.search(pattern, done.stdout.rstrip(), re.MULTILINE), f"{pattern!r} not shown\n{report}"


def _imports(code: str) -> list[tuple[str, str | None]]:
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            found += [(node.module, alias.name) for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
    return found


def check_statically(program: str, where: str) -> None:
    """The program compiles and every module and name it imports exists."""
    compile(program, where, "exec")
    for module, name in _imports(program):
        imported = importlib.import_module(module)
        if name is not None and not hasattr(imported, name):
            importlib.import_module(f"{module}.{name}")  # a submodule imported by name


@pytest.mark.parametrize("block", NOT_RUN_BLOCKS, ids=lambda block: block.id)
def test_example_not_run_compiles_and_imports_what_exists(block: Block) -> None:
    check_statically("\n".join(b.code for b in block.chain), block.id)


@pytest.mark.parametrize(
    ("program", "error"),
    [
        ("from ragmetrics_core import Evaluator, NoSuchName\n", ModuleNotFoundError),
        ("import ragmetrics_core.no_such_module\n", ModuleNotFoundError),
        ("from ragmetrics_core import Evaluator\nEvaluator(\n", SyntaxError),
    ],
)
def test_the_static_check_refuses_missing_names_and_bad_syntax(program: str, error: type[Exception]) -> None:
    with pytest.raises(error):
        check_statically(program, "bad example")
