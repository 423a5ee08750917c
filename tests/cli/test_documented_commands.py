"""Every shell command README.md and docs/*.md tell a user to type is true: one test id per ``file:line``.

Collected: the lines of ```bash / ```sh / ```console / ```shell blocks, the ``$ ...`` lines (and lines that start
with one of our programs) of plain ``` blocks, and inline code spans that start with a program (``ragmetrics``,
``python``, ``pip``, ...), e.g. the README's "Measured" table.

Checked without the network:
- ``ragmetrics ...`` parses with the real CLI parser (subcommand, flags, value kinds, metric ids, ``--price``,
  ``--column``); an inline span that only names a subcommand and some of its flags has those flags checked;
- ``python benchmarks/X.py --flags`` names a file that exists whose argparse accepts the flags (the script's own
  parser, stopped right after parsing: nothing is benchmarked); ``python -m MODULE`` names an importable module;
- every path into the repository's own folders exists; every ``ragmetrics[extra]`` / ``.[extra]`` is an extra of
  pyproject.toml (nothing is installed); every ``export RAGMETRICS_*`` / ``OPENAI_*`` is a variable the code reads;
- docs/cli.md's and docs/calibration.md's option tables name the subcommand's flags and choices, and list them
  all; a flag named in prose is one of ours, of a benchmark, or of another program listed here;
- the cheap ``ragmetrics`` commands run, as written, through ``bash`` in a temporary folder holding small input
  files of the names the docs use, with the embedded judge; those that need an LLM endpoint run against
  ``tests/llm/fake_openai_server.py`` (127.0.0.1, port 0) configured through the documented variables, and
  ``--judge model`` on a tiny NLI model of ``tests/model/tiny.py`` put where the docs' model directory is; a
  second run of each ``evaluate --out`` resumes everything; the provider settings (README's table, the ```bash
  exports of docs/llm_judge.md) configure the LLM judge the documented way.

Placeholders are replaced by the explicit tables ``PLACEHOLDERS``, ``TEXT_PLACEHOLDERS`` and ``VALUE_PLACEHOLDERS``;
what cannot be checked here is in ``NOT_CHECKED`` and ``NOT_RUN``, and shows as a skip with its reason.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import importlib.util
import io
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ragmetrics_core import cli
from ragmetrics_core.formats import parse_column_mapping
from ragmetrics_core.judges.openai.config import _ENV_NAMES, _RETRY_ENV_NAMES
from ragmetrics_core.metrics import METRICS
from ragmetrics_core.metrics.registry import check_metric_ids
from tests.calibration.test_cli import labelled_rows
from tests.cli.conftest import RAGCHECKER_DIR, ROOT, cli_env, good_row, read_jsonl
from tests.llm.fake_openai_server import FakeOpenAIServer

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_FENCES = {"bash", "sh", "console", "shell"}
# first words that make a line or an inline code span a command
PROGRAMS = {
    "ragmetrics", "python", "python3", "pip", "bash", "export", "cat", "apt-get", "chromium", "docker", "phoenix",
    "vllm", "optimum-cli", "ray", "promtool", ".venv/bin/pip", ".venv/bin/ragmetrics",
}
# the repository's own folders: a path into one of them must exist
REPO_FOLDERS = ("benchmarks/", "docs/", "examples/", "integrations/", "ragmetrics_core/", "scripts/", "tests/")

# Placeholders in the docs and what the test types instead (whole shell words, or exact text where noted).
PLACEHOLDERS = {
    "INPUT": "samples.jsonl",  # docs/cli.md: `ragmetrics evaluate INPUT`
    "FILE": "samples.jsonl",  # docs/scale.md: `ragmetrics evaluate FILE`
    "LABELLED_FILE": "labelled.jsonl",  # docs/calibration.md, docs/cli.md
    "../main": ".",  # benchmarks/embedded_alternating.py takes the other checkout to compare with: this one
}
TEXT_PLACEHOLDERS = {
    "[--address HOST:PORT]": "--address 127.0.0.1:6379",  # README: an optional flag, shown in brackets
    "\\|": "|",  # a pipe inside a Markdown table cell is written \|
}

# Programs this test does not run or inspect, and why.
NOT_CHECKED = {
    "apt-get": "installs Debian packages (root and the network); scripts/test.sh installs what the tests need",
    "chromium": "a headless browser screenshot; tests/cli/test_report_browser.py drives Chromium the same way",
    "docker": "starts a container (the network); the OTLP/HTTP export Jaeger takes is tested against an in-process "
    "collector (tests/cli/test_demo.py)",
    "phoenix": "starts the Phoenix server; tests/online/test_phoenix_e2e.py starts one itself",
    "vllm": "serves a GPU model downloaded from the Hub",
    "optimum-cli": "exports a model with torch, downloaded from the Hub",
    "ray": "Ray's own command line; tests/scale/conftest.py starts its head node with `ray start` as documented",
    "promtool": "Prometheus' tool; tests/monitoring/test_examples.py runs `promtool check/test rules` on the files",
}
NOT_RUN = {
    "demo": "tests/cli/test_demo.py runs `ragmetrics demo` and `--report` (README's first command)",
    "ray": "needs a Ray cluster; tests/scale runs `--backend ray` on a local one",
}
# docs/model_judge.md's model directory (the user's own export): a tiny NLI model of tests/model/tiny.py there
MODEL_DIRECTORY = "models/mdeberta-xnli-onnx"
THIRD_PARTY = "a third-party package, not ours to check offline"

def _csv(response_column: str) -> str:
    """Three samples in ragas' old column names, the response under ``response_column``."""
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["question", "contexts", response_column, "ground_truth"])
    for row in map(good_row, range(3)):
        writer.writerow([row["user_input"], json.dumps(row["retrieved_contexts"]), row["response"], row["reference"]])
    return text.getvalue()


def _jsonl(rows: Iterable[dict[str, Any]]) -> str:
    return "".join(json.dumps(row) + "\n" for row in rows)


# What a command only reads is created under the name the docs give it (a few rows each).
INPUT_FILES: dict[str, Callable[[], str]] = {
    "samples.jsonl": lambda: _jsonl(map(good_row, range(3))),
    "data.jsonl": lambda: _jsonl(map(good_row, range(3))),
    "day.jsonl": lambda: _jsonl(map(good_row, range(3))),
    "traffic.jsonl": lambda: _jsonl(labelled_rows(2)),
    "labelled.jsonl": lambda: _jsonl(labelled_rows(20)),  # 60 rows: enough for calibrate to fit
    "data.csv": lambda: _csv("answer"),  # README: `--column response=answer`
    "ragas.csv": lambda: _csv("response"),
    "checking_outputs.json": lambda: (RAGCHECKER_DIR / "checking_outputs.json").read_text("utf-8"),
}
# Outputs of one documented command that another reads, made by running the first.
MADE_BY = {
    "results.jsonl": "ragmetrics evaluate samples.jsonl --out results.jsonl",
    "out.csv": "ragmetrics evaluate samples.jsonl --out out.csv",
    "calibration.json": "ragmetrics calibrate labelled.jsonl -o calibration.json",
}
API_KEY = "sk-test-docs-0c41"  # what OPENAI_API_KEY holds for the LLM commands


@dataclass(frozen=True)
class DocCommand:
    doc: str  # "docs/cli.md"
    line: int
    text: str  # as written, continuation lines joined, "$ " dropped
    inline: bool
    heading: bool = False  # an inline span in a heading: a synopsis (`ragmetrics calibrate LABELLED_FILE`)

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"

    @property
    def typed(self) -> str:
        """The text with its placeholders replaced, as this test types it."""
        text = self.text
        for old, new in TEXT_PLACEHOLDERS.items():
            text = text.replace(old, new)
        return re.sub(r"(?<!\S)\S+(?!\S)", lambda word: PLACEHOLDERS.get(word.group(), word.group()), text)

    @property
    def assignments_only(self) -> bool:
        """`NAME=value` settings and nothing else (the README's provider table)."""
        return all(re.fullmatch(ASSIGNMENT, word) for word in self.text.split())

    def parts(self) -> list[list[str]]:
        """The simple commands of ``typed`` (split at ``&&``, ``|`` and ``;``), as words."""
        lexer = shlex.shlex(self.typed, posix=True, punctuation_chars=True)
        lexer.whitespace_split = True
        lexer.commenters = "#"
        parts: list[list[str]] = [[]]
        for word in lexer:
            if word in {"&&", "|", ";", "||"}:
                parts.append([])
            else:
                parts[-1].append(word)
        return [part for part in parts if part]


ASSIGNMENT = r"[A-Z][A-Z0-9_]*=\S*"


def _is_command(text: str, inline: bool = False) -> bool:
    words = text.split()
    while words and re.fullmatch(ASSIGNMENT, words[0]):  # NAME=value before a program
        words = words[1:]
    if not words:  # only assignments: an environment setting, checked like an export
        return bool(re.fullmatch(r"(RAGMETRICS|OPENAI)_[A-Z0-9_]*=\S*", text.strip()))
    # inline, the program's name alone is a name ("`ragmetrics` scores files"), not a command
    return words[0] in PROGRAMS and not (inline and len(words) == 1)


def collect() -> list[DocCommand]:
    commands: list[DocCommand] = []
    for path in DOCS:
        doc = path.relative_to(ROOT).as_posix()
        lines = path.read_text("utf-8").splitlines()
        fence: str | None = None
        index = 0
        while index < len(lines):
            line, number = lines[index], index + 1
            index += 1
            opening = re.match(r"^\s*```(\w*)", line)
            if opening:
                fence = (opening.group(1) or "plain") if fence is None else None
                continue
            if fence is None:
                commands.extend(_inline_commands(doc, number, line))
                continue
            text = line.strip()
            if fence not in SHELL_FENCES and not (text.startswith("$ ") or _is_command(text)):
                continue
            while text.endswith("\\") and index < len(lines):  # a command continued on the next line
                text = text[:-1].rstrip() + " " + lines[index].strip()
                index += 1
            text = text.removeprefix("$ ")
            if text and not text.startswith("#"):
                commands.append(DocCommand(doc, number, text, inline=False))
    return commands


def _inline_commands(doc: str, number: int, line: str) -> list[DocCommand]:
    found: list[DocCommand] = []
    heading = line.startswith("#")
    for span in re.findall(r"`([^`]+)`", line):
        if _is_command(span, inline=True):
            found.append(DocCommand(doc, number, span, inline=True, heading=heading))
        elif span.startswith("--") and found and found[-1].text.startswith("python "):
            # flags alone right after a script's command on the same line ("`python x.py --a 1`; `--a 2`")
            script = " ".join(found[-1].text.split()[:2])
            found.append(DocCommand(doc, number, f"{script} {span}", inline=True))
    return found


COMMANDS = collect()


def _unique_ids(commands: list[DocCommand]) -> list[str]:
    """file:line, with #2, #3 for a second command on the same line."""
    seen: dict[str, int] = {}
    ids = []
    for command in commands:
        seen[command.id] = seen.get(command.id, 0) + 1
        ids.append(command.id if seen[command.id] == 1 else f"{command.id}#{seen[command.id]}")
    return ids


# --- the static checks -----------------------------------------------------------------------------------------


def _parse(words: list[str]) -> argparse.Namespace:
    """Parse with the real CLI parser; an argparse error becomes an assertion naming it."""
    stderr = io.StringIO()
    try:
        with contextlib.redirect_stderr(stderr):
            return cli._parser().parse_args(words)
    except SystemExit as exit_:
        raise AssertionError(f"`ragmetrics {' '.join(words)}` does not parse: {stderr.getvalue().strip()}") from exit_


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = cli._parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert name in commands.choices, f"no subcommand {name!r}; there are {sorted(commands.choices)}"
    found: argparse.ArgumentParser = commands.choices[name]
    return found


def _check_values(args: argparse.Namespace) -> None:
    """The values argparse takes as strings but the command reads further."""
    metrics = getattr(args, "metrics", None)
    if metrics:
        check_metric_ids([part.strip() for part in metrics.split(",") if part.strip()])
    cli._price(getattr(args, "price", None))
    parse_column_mapping(getattr(args, "column", []) or [])


def _is_whole(words: list[str], command: DocCommand) -> bool:
    """Whether ``words`` (after ``ragmetrics``) are a whole command to type, or a mention: an inline span that
    states no positional argument (`ragmetrics evaluate --report`), or a heading's synopsis."""
    subparser = _subparser(words[0])
    needs_positional = any(not action.option_strings and action.required for action in subparser._actions)
    return not (command.heading or (command.inline and needs_positional and not _positionals(subparser, words[1:])))


def _check_ragmetrics(words: list[str], command: DocCommand) -> None:
    """A whole command parses, its values are of the right kind; a mention's subcommand and flags exist."""
    if not words:
        raise AssertionError("`ragmetrics` alone: no subcommand")
    if _is_whole(words, command):
        _check_values(_parse(words))
        return
    subparser = _subparser(words[0])
    unknown = [word for word in words[1:] if word.startswith("-") and word.split("=")[0] not in
               subparser._option_string_actions]
    assert not unknown, f"`ragmetrics {words[0]}` has no {unknown}"


def _positionals(subparser: argparse.ArgumentParser, words: list[str]) -> list[str]:
    """The words that are neither a flag nor a flag's value."""
    stated: list[str] = []
    takes_value = False
    for word in words:
        if takes_value:
            takes_value = False
        elif word.startswith("-") and word != "-":
            action = subparser._option_string_actions.get(word)
            takes_value = action is not None and action.nargs != 0 and "=" not in word
        else:
            stated.append(word)
    return stated


def _check_pip(words: list[str]) -> str | None:
    checked = False
    for word in words[1:]:
        match = re.fullmatch(r"(ragmetrics|\.)\[([\w,-]+)\]", word)
        if match:
            _check_extras(match.group(2).split(","))
            checked = True
        elif word not in {"install", "-e", "-U"}:
            return None if checked else f"{word}: {THIRD_PARTY}"
    return None


def _extras() -> set[str]:
    return set(tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["optional-dependencies"])


def _check_extras(names: list[str]) -> None:
    unknown = sorted(set(names) - _extras())
    assert not unknown, f"pyproject.toml has no extra {unknown}; it has {sorted(_extras())}"


KNOWN_VARIABLES = {name for names in _ENV_NAMES.values() for name in names} | set(_RETRY_ENV_NAMES.values()) | {
    "RAGMETRICS_JUDGE",  # the CLI's --judge default
}


def _check_variable(assignment: str) -> str | None:
    name = assignment.split("=", 1)[0]
    if not name.startswith(("RAGMETRICS_", "OPENAI_")):
        return f"{name}: another program's variable"
    assert name in KNOWN_VARIABLES, f"{name} is read nowhere; the judge reads {sorted(KNOWN_VARIABLES)}"
    return None


def _check_paths(words: list[str]) -> None:
    for word in words:
        path = word.split("=", 1)[-1] if word.startswith("--") else word
        if path.startswith(REPO_FOLDERS):
            assert (ROOT / path).exists(), f"{path} is not in the repository"


# Runs a script as __main__ with the given argv and stops it as soon as its argparse parser has parsed them.
ARGPARSE_ONLY = """
import argparse, runpy, sys
class Parsed(BaseException):
    pass
parse_args = argparse.ArgumentParser.parse_args
def parse_and_stop(self, args=None, namespace=None):
    parse_args(self, args, namespace)
    raise Parsed
argparse.ArgumentParser.parse_args = parse_and_stop
sys.argv = sys.argv[1:]
try:
    runpy.run_path(sys.argv[0], run_name="__main__")
except Parsed:
    sys.exit(0)
sys.exit("ran to the end without parsing its arguments")
"""


def _check_python(words: list[str]) -> str | None:
    if words[1:2] == ["-m"]:
        assert importlib.util.find_spec(words[2]) is not None, f"no module {words[2]}"
        return None
    script, arguments = words[1], words[2:]
    assert (ROOT / script).is_file(), f"{script} does not exist"
    if not arguments:
        return None
    assert "argparse" in (ROOT / script).read_text("utf-8"), f"{script} takes no arguments, the docs give {arguments}"
    done = subprocess.run(
        [sys.executable, "-c", ARGPARSE_ONLY, script, *arguments],
        cwd=ROOT, env=cli_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, f"`{' '.join(words)}`: {done.stderr.strip().splitlines()[-1:]}"
    return None


def check_statically(command: DocCommand) -> list[str]:
    """Check every part of the command; return why parts were not checked (empty: all were)."""
    unchecked: list[str] = []
    if command.assignments_only:
        reasons = [_check_variable(word) for word in command.text.split()]
        return [reason for reason in reasons if reason]
    for words in command.parts():
        _check_paths(words)
        while words and re.fullmatch(ASSIGNMENT, words[0]):
            other_programs = _check_variable(words[0])
            if other_programs and len(words) == 1:
                unchecked.append(other_programs)
            words = words[1:]
        if not words:
            continue
        program = words[0].removeprefix(".venv/bin/")
        reason: str | None = None
        if program == "ragmetrics":
            _check_ragmetrics(words[1:], command)
        elif program in {"python", "python3"}:
            reason = _check_python(words)
        elif program == "pip":
            reason = _check_pip(words)
        elif program == "export":
            reason = _check_variable(words[1])
        elif program == "bash":
            assert (ROOT / words[1]).is_file(), f"{words[1]} does not exist"
        elif program in NOT_CHECKED:
            reason = f"{program}: {NOT_CHECKED[program]}"
        elif program not in {"cat", "head"}:
            raise AssertionError(f"{program}: a program this test does not know; add it to NOT_CHECKED with why")
        if reason:
            unchecked.append(reason)
    return unchecked


@pytest.mark.parametrize("command", COMMANDS, ids=_unique_ids(COMMANDS))
def test_documented_command_is_valid(command: DocCommand) -> None:
    unchecked = check_statically(command)
    parts = len(command.text.split()) if command.assignments_only else len(command.parts())
    if unchecked and len(unchecked) == parts:  # nothing of it could be checked
        pytest.skip("; ".join(unchecked))


def test_the_collection_finds_the_commands_of_every_kind() -> None:
    """Guards the collector itself: a change to the docs' markup must not silently leave commands out."""
    texts = [command.text for command in COMMANDS]
    assert "cat samples.jsonl | ragmetrics evaluate - --metrics faithfulness,hallucination" in texts  # a pipe
    assert any(text.startswith("python benchmarks/llm_client.py --latency-ms 200") for text in texts)  # flags alone
    assert any(text.startswith("ragmetrics evaluate day.jsonl") and text.endswith("--budget-usd 20")
               for text in texts)  # docs/scale.md's continued lines joined
    assert "ragmetrics calibrate labelled.jsonl -o calibration.json --results scores.jsonl" in texts  # a plain block
    assert any(text.startswith("pip install") for text in texts) and any("export " in text for text in texts)
    assert {command.doc for command in COMMANDS} >= {"README.md", "docs/cli.md", "docs/calibration.md",
                                                     "docs/llm_judge.md", "docs/scale.md"}


def test_the_checks_catch_stale_commands() -> None:
    """The checks above can fail: a renamed flag, a wrong value kind, a missing file, an unknown extra."""
    stale = [
        "ragmetrics evaluate x.jsonl --output r.jsonl",
        "ragmetrics evaluate x.jsonl --concurrency four",
        "ragmetrics evaluate x.jsonl --metrics faithfullness",
        "ragmetrics evaluate x.jsonl --price 0.15",
        "ragmetrics evaluate x.jsonl --column reponse=answer",
        "ragmetrics evaluate x.jsonl --judge gpt-4o",
        "ragmetrics report results.jsonl",
        "ragmetrics evalute x.jsonl",
        "python benchmarks/no_such_benchmark.py",
        'pip install "ragmetrics[no-such-extra]"',
        "export RAGMETRICS_JUDGE_MODLE=gpt-4o-mini",
    ]
    for text in stale:
        with pytest.raises((AssertionError, ValueError)):
            check_statically(DocCommand("test", 1, text, inline=False))
    with pytest.raises(AssertionError, match="--reprot"):
        check_statically(DocCommand("test", 1, "ragmetrics evaluate --reprot", inline=True))
    with pytest.raises(AssertionError, match="--rounds"):
        check_statically(DocCommand("test", 1, "python benchmarks/llm_client.py --rounds two", inline=False))


# --- pip extras anywhere in the docs (comments of Python blocks and spans wrapped over lines included) ---------


def _extra_mentions() -> list[tuple[str, list[str]]]:
    found = []
    for path in DOCS:
        text = path.read_text("utf-8")
        pattern = r"pip\s+install\s+(?:-e\s+)?[\"']?(?:ragmetrics|\.)\[([\w,-]+)\]"
        for match in re.finditer(pattern, text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{path.relative_to(ROOT).as_posix()}:{line}", match.group(1).split(",")))
    return found


EXTRA_MENTIONS = _extra_mentions()


@pytest.mark.parametrize("extras", [extras for _, extras in EXTRA_MENTIONS], ids=[w for w, _ in EXTRA_MENTIONS])
def test_documented_extras_exist(extras: list[str]) -> None:
    _check_extras(extras)


def test_the_docs_install_the_project_by_its_name() -> None:
    """`pip install "ragmetrics[...]"` installs this project only while pyproject.toml names it so."""
    assert tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]["name"] == "ragmetrics"
    assert len(EXTRA_MENTIONS) > 10


# --- the option tables of docs/cli.md and docs/calibration.md ----------------------------------------------------


def _option_rows() -> list[tuple[str, str, str]]:
    """(where, subcommand, first cell) of each table row under a heading naming `ragmetrics SUBCOMMAND`."""
    rows = []
    for path in DOCS:
        subcommand = None
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if line.startswith("#"):
                named = re.findall(r"`ragmetrics (\w+)", line)
                subcommand = named[-1] if named else None
            elif subcommand and line.startswith("| `-"):
                rows.append((f"{path.relative_to(ROOT).as_posix()}:{number}", subcommand, line.split(" | ")[0]))
    return rows


OPTION_ROWS = _option_rows()


@pytest.mark.parametrize(("subcommand", "cell"), [row[1:] for row in OPTION_ROWS], ids=[row[0] for row in OPTION_ROWS])
def test_documented_option_exists(subcommand: str, cell: str) -> None:
    subparser = _subparser(subcommand)
    for flag, choices in re.findall(r"`(-[\w-]+)(?: ([\w\\|]+))?", cell):
        assert flag in subparser._option_string_actions, f"`ragmetrics {subcommand}` has no {flag}"
        action = subparser._option_string_actions[flag]
        if choices and "\\|" in choices:
            assert tuple(choices.split("\\|")) == tuple(action.choices or ()), f"{flag} takes {action.choices}"


def test_option_tables_were_found() -> None:
    where = {subcommand for _, subcommand, _ in OPTION_ROWS}
    assert where == {"evaluate", "calibrate"}, where
    assert len(OPTION_ROWS) > 25


def test_every_option_of_evaluate_and_calibrate_is_in_its_table() -> None:
    """The other way round: a flag the parser has and the table leaves out is a flag no one finds."""
    for subcommand in ("evaluate", "calibrate"):
        cells = " ".join(cell for _, name, cell in OPTION_ROWS if name == subcommand)
        listed = set(re.findall(r"`(-[\w-]+)", cells))
        options = {
            flag for action in _subparser(subcommand)._actions if action.help != argparse.SUPPRESS
            for flag in action.option_strings if flag != "-h" and flag != "--help"
        }
        assert options - listed == set(), f"`ragmetrics {subcommand}` options missing from its table"


# Flags of other programs that the docs mention in passing.
OTHER_PROGRAMS_FLAGS = {
    "--screenshot": "chromium", "--dump-dom": "chromium",
    "--node-ip-address": "ray start", "--block": "ray start",
    "--preload": "gunicorn",
}


def _benchmark_flags() -> set[str]:
    text = "".join(path.read_text("utf-8") for path in (ROOT / "benchmarks").glob("*.py"))
    return set(re.findall(r"add_argument\(\s*\"(--[\w-]+)\"", text))


def _flag_mentions() -> list[tuple[str, str]]:
    """(where, span) of each inline code span that starts with a flag, outside the option tables."""
    found = []
    for path in DOCS:
        fence = False
        for number, line in enumerate(path.read_text("utf-8").splitlines(), 1):
            if line.lstrip().startswith("```"):
                fence = not fence
            elif not fence and not line.startswith("| `-"):
                where = f"{path.relative_to(ROOT).as_posix()}:{number}"
                found += [(where, span) for span in re.findall(r"`(--[^`]+)`", line)]
    return found


FLAG_MENTIONS = _flag_mentions()


@pytest.mark.parametrize("span", [span for _, span in FLAG_MENTIONS], ids=_unique_ids(
    [DocCommand(where.split(":")[0], int(where.split(":")[1]), span, inline=True) for where, span in FLAG_MENTIONS]
))
def test_documented_flag_mention_exists(span: str) -> None:
    """A flag named in prose is one of a ``ragmetrics`` subcommand, of a benchmark, or of another program."""
    subcommands = ("evaluate", "calibrate", "report", "demo")
    ours = {flag for name in subcommands for flag in _subparser(name)._option_string_actions}
    known = ours | _benchmark_flags() | set(OTHER_PROGRAMS_FLAGS)
    flags = [word.split("=")[0] for word in span.split() if word.startswith("--")]
    assert set(flags) <= known, f"no program here has {sorted(set(flags) - known)}"


# --- running the cheap commands -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def fake_llm() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as server:
        yield server


def _environment(bin_dir: Path, server: FakeOpenAIServer) -> dict[str, str]:
    env = {name: value for name, value in cli_env().items() if not name.startswith(("RAGMETRICS_", "OPENAI_"))}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["RAGMETRICS_JUDGE_BASE_URL"] = server.base_url  # the documented variables, pointing at the fake server
    env["OPENAI_API_KEY"] = API_KEY
    return env


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory, fake_llm: FakeOpenAIServer) -> tuple[Path, dict[str, str]]:
    """A folder with the docs' input files and the outputs other commands read; a ``ragmetrics`` on PATH."""
    bin_dir = tmp_path_factory.mktemp("bin")
    shim = bin_dir / "ragmetrics"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m ragmetrics_core.cli "$@"\n', encoding="utf-8")
    shim.chmod(0o755)
    folder = tmp_path_factory.mktemp("workspace")
    for name, content in INPUT_FILES.items():
        (folder / name).write_text(content(), encoding="utf-8")
    with contextlib.suppress(ImportError):  # the model extra: without it the command's test says so
        from tests.model import tiny

        tiny.build(folder / MODEL_DIRECTORY, [json.dumps(row) for row in map(good_row, range(3))])
    env = _environment(bin_dir, fake_llm)
    for name, maker in MADE_BY.items():
        done = _bash(maker + " --no-progress", folder, env)
        assert done.returncode == 0 and (folder / name).exists(), f"{maker}: {done.stderr}"
    return folder, env


def _bash(text: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", text], cwd=cwd, env=env, capture_output=True, text=True, timeout=240)


def _ragmetrics_words(command: DocCommand) -> list[str] | None:
    for words in command.parts():
        if words[0].removeprefix(".venv/bin/") == "ragmetrics":
            return words[1:]
    return None


def _runnable(command: DocCommand) -> bool:
    """A whole ``ragmetrics`` command (a stale one too: its run test then fails on it, as its static test does)."""
    words = _ragmetrics_words(command)
    if words is None:
        return False
    try:
        return not words or _is_whole(words, command)
    except AssertionError:  # no such subcommand
        return True


RUNNABLE = [command for command in COMMANDS if _runnable(command)]


def _not_run_reason(args: argparse.Namespace) -> str | None:
    if args.command == "demo":
        return NOT_RUN["demo"]
    if getattr(args, "backend", None) == "ray":
        return NOT_RUN["ray"]
    return None


@pytest.mark.parametrize("command", RUNNABLE, ids=_unique_ids(RUNNABLE))
def test_documented_command_runs(
    command: DocCommand, workspace: tuple[Path, dict[str, str]], tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    words = _ragmetrics_words(command)
    assert words is not None
    args = _parse(words)
    reason = _not_run_reason(args)
    if reason:
        pytest.skip(reason)
    source, env = workspace
    folder = tmp_path / "run"
    shutil.copytree(source, folder)
    if args.command == "evaluate" and args.judge == "model" and not (folder / MODEL_DIRECTORY).exists():
        pytest.skip("the model extra (onnx, onnxruntime, tokenizers) is not installed")
    if args.command in {"evaluate", "calibrate"} and getattr(args, "input", "-") != "-":
        assert (folder / args.input).exists(), f"{args.input}: add a small one to INPUT_FILES"
    if args.command == "evaluate" and args.out:  # a fresh run (an earlier command's file of that name is resumed)
        (folder / args.out).unlink(missing_ok=True)
        (folder / (args.out.removesuffix(".csv") + ".claims.csv")).unlink(missing_ok=True)
    calls_before = len(fake_llm.requests)
    done = _bash(command.typed, folder, env)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr}"
    assert "Traceback" not in done.stderr, done.stderr
    _check_outputs(args, folder, done.stdout)
    if args.command == "evaluate" and (args.judge == "openai" or args.models):
        assert len(fake_llm.requests) > calls_before, "the LLM judge never called the endpoint"
        assert not re.search(r"judge usage: 0 LLM calls", done.stdout), done.stdout
    if args.command == "evaluate" and args.out:  # README: "Runs are resumable (rerun the same command)"
        written = (folder / args.out).read_bytes()
        again = _bash(command.typed, folder, env)
        assert again.returncode == 0, again.stderr
        assert re.search(r"(\d+) samples?: 0 evaluated, \1 resumed, 0 failed", again.stdout), again.stdout
        assert (folder / args.out).read_bytes() == written


def _check_outputs(args: argparse.Namespace, folder: Path, stdout: str) -> None:
    """The files the command says it writes are there and hold what it says."""
    if args.command == "evaluate":
        assert re.search(r"\d+ samples?: \d+ evaluated, 0 resumed, 0 failed; errors: 0 bad input rows skipped", stdout)
        if args.out and args.out.endswith(".jsonl"):
            assert f"results in {args.out}" in stdout
            rows = read_jsonl(folder / args.out)
            assert rows and all(row["error"] is None for row in rows)
        elif args.out:  # CSV: one column per score, and the claims beside it
            claims = args.out.removesuffix(".csv") + ".claims.csv"
            assert f"results in {args.out}, claims in {claims}" in stdout
            with (folder / args.out).open(encoding="utf-8", newline="") as handle:
                header = next(csv.reader(handle))
            assert "faithfulness" in header and (folder / claims).stat().st_size > 0
            if args.calibration:  # docs/calibration.md: a <metric>_probability column per calibrated metric
                assert "faithfulness_probability" in header
        if args.report:
            assert f"report: {args.report}" in stdout
            assert "<html" in (folder / args.report).read_text("utf-8")
        if args.cache:
            assert (folder / args.cache).stat().st_size > 0
        if args.judge in {"openai", "model"} and args.model and args.out:
            name = args.model if args.judge == "openai" else Path(args.model).name
            assert {row["judge"] for row in read_jsonl(folder / args.out)} == {f"{args.judge}:{name}"}
    elif args.command == "report":
        html = (folder / args.out).read_text("utf-8")
        assert "<html" in html and "<details class='sample'" in html
    elif args.command == "calibrate":
        assert f"calibration: {args.out}" in stdout
        fitted = json.loads((folder / args.out).read_text("utf-8"))
        assert set(fitted["metrics"]) == set(args.metrics.split(","))
        if args.results:
            assert read_jsonl(folder / args.results)
    elif args.command == "metrics":
        listed = [line.split()[0] for line in stdout.splitlines() if line.strip()]
        assert listed == list(METRICS)[: len(listed)] and listed, stdout


def test_the_summary_docs_cli_md_shows_is_what_the_command_prints(
    workspace: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    """docs/cli.md shows a whole run's output under its command (RAGChecker's example: deterministic, no judge)."""
    text = (ROOT / "docs" / "cli.md").read_text("utf-8")
    start = text.index("$ ragmetrics evaluate checking_outputs.json --out rc.jsonl")
    command, shown = text[start : text.index("```", start)].split("\n", 1)
    source, env = workspace
    shutil.copytree(source, tmp_path / "run")
    done = _bash(command.removeprefix("$ "), tmp_path / "run", env)
    assert done.returncode == 0, done.stderr
    assert done.stdout == shown, "docs/cli.md shows a stale summary: update it"


# --- the provider settings of docs/llm_judge.md and the README, against the fake server ----------------------

# Values the docs leave for the reader to fill in, and what the test sets instead.
VALUE_PLACEHOLDERS = {
    "sk-…": "sk-test-openai",  # the README's table (an ellipsis is no header-safe key)
    "sk-or-…": "sk-or-test",
    "<--api-key>": "local-key",  # README: the key given to `vllm serve --api-key`
}


def _provider_settings() -> list[tuple[str, list[str]]]:
    """(where, NAME=value settings): each ```bash block of exports, and each README table row of settings."""
    blocks: dict[str, list[str]] = {}
    previous: DocCommand | None = None
    for command in COMMANDS:
        if command.inline and command.assignments_only:
            blocks.setdefault(f"{command.doc}:{command.line}", []).extend(command.text.split())
            previous = None
        elif not command.inline and command.text.startswith(("export ", "vllm ")):
            if previous is None or previous.doc != command.doc or command.line != previous.line + 1:
                start = command.id
                blocks[start] = []
            if command.text.startswith("export "):
                blocks[start].append(shlex.split(command.text, comments=True)[1])
            previous = command
        else:
            previous = None
    return list(blocks.items())


PROVIDER_SETTINGS = _provider_settings()


@pytest.mark.parametrize(
    "settings", [settings for _, settings in PROVIDER_SETTINGS], ids=[where for where, _ in PROVIDER_SETTINGS]
)
def test_documented_provider_settings_configure_the_judge(
    settings: list[str], workspace: tuple[Path, dict[str, str]], tmp_path: Path, fake_llm: FakeOpenAIServer
) -> None:
    """The documented variables, as written but for the endpoint (the fake server's URL stands in for the
    provider's; ``vllm serve`` is not run), then ``ragmetrics evaluate --judge openai``: the model they name
    judges, with the key they give, and embeddings go to the embeddings model they name (none: no call)."""
    source, env = workspace
    env = {name: value for name, value in env.items() if name not in {"RAGMETRICS_JUDGE_BASE_URL", "OPENAI_API_KEY"}}
    env["OPENAI_BASE_URL"] = fake_llm.base_url  # stands in for api.openai.com, the client's default
    values = {name: VALUE_PLACEHOLDERS.get(value, value) for name, value in (s.split("=", 1) for s in settings)}
    if "RAGMETRICS_JUDGE_BASE_URL" in values:
        values["RAGMETRICS_JUDGE_BASE_URL"] = fake_llm.base_url
    env.update(values)
    folder = tmp_path / "run"
    shutil.copytree(source, folder)
    first = len(fake_llm.requests)
    done = _bash("ragmetrics evaluate data.jsonl --judge openai --out r.jsonl --no-progress", folder, env)
    assert done.returncode == 0, done.stderr
    model = values["RAGMETRICS_JUDGE_MODEL"]
    assert {row["judge"] for row in read_jsonl(folder / "r.jsonl")} == {f"openai:{model}"}
    chats = [r for r in fake_llm.requests[first:] if r.task != "embeddings"]
    assert chats and {r.body["model"] for r in chats} == {model}
    key = values.get("RAGMETRICS_JUDGE_API_KEY") or values.get("OPENAI_API_KEY")
    if key is not None:
        assert {r.headers.get("authorization") for r in chats} == {f"Bearer {key}"}
    embeddings = [r for r in fake_llm.requests[first:] if r.task == "embeddings"]
    if "RAGMETRICS_EMBEDDING_MODEL" in values:
        assert embeddings and {r.body["model"] for r in embeddings} == {values["RAGMETRICS_EMBEDDING_MODEL"]}
    else:
        assert not embeddings  # no embeddings model: the lexical fallback, no call


def test_the_provider_settings_were_found() -> None:
    where = [where for where, _ in PROVIDER_SETTINGS]
    assert sum(w.startswith("docs/llm_judge.md") for w in where) >= 4
    assert sum(w.startswith("README.md") for w in where) >= 4
