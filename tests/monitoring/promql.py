"""What the shipped PromQL (alert rules, dashboard) refers to, and what the OTel Prometheus exporter exposes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from prometheus_client.parser import text_string_to_metric_families

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "monitoring"
RULES = EXAMPLES / "prometheus" / "ragmetrics-alerts.yml"
RULES_TEST = EXAMPLES / "prometheus" / "ragmetrics-alerts.test.yml"
DASHBOARD = EXAMPLES / "grafana" / "ragmetrics-dashboard.json"

_SELECTOR = re.compile(r"(?P<metric>[A-Za-z_:][A-Za-z0-9_:]*)?\s*\{(?P<matchers>[^}]*)\}")
_MATCHER = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)")
_GROUPING = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
_METRIC = re.compile(r"(?<![A-Za-z0-9_:$])(ragmetrics_[A-Za-z0-9_]+)\b")
_LEGEND = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")
_LABEL_VALUES = re.compile(r"label_values\(\s*([A-Za-z_:][A-Za-z0-9_:]*)\s*,\s*([A-Za-z_][A-Za-z0-9_]*)\s*\)")


@dataclass
class Query:
    expr: str
    where: str
    legend: str = ""
    selectors: list[tuple[str | None, set[str]]] = field(default_factory=list)
    grouping: set[str] = field(default_factory=set)
    metrics: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        # Strings inside matchers may hold anything (regexes, template variables): read matchers first.
        for match in _SELECTOR.finditer(self.expr):
            self.selectors.append((match.group("metric"), set(_MATCHER.findall(match.group("matchers")))))
        stripped = _SELECTOR.sub(lambda m: f" {m.group('metric') or ''} ", self.expr)
        for match in _GROUPING.finditer(stripped):
            self.grouping |= {label.strip() for label in match.group(1).split(",") if label.strip()}
        stripped = _GROUPING.sub(" ", stripped)
        self.metrics = set(_METRIC.findall(stripped))
        self.metrics |= {metric for metric, _ in self.selectors if metric and metric.startswith("ragmetrics_")}


def rule_queries() -> Iterator[Query]:
    rules = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    for group in rules["groups"]:
        for rule in group["rules"]:
            yield Query(rule["expr"], f"rule {rule.get('alert') or rule.get('record')}")
            for text in (rule.get("annotations") or {}).values():
                for expr in re.findall(r"(sum by \([^)]*\) \(rate\([^)]*\)\))", text):
                    yield Query(expr, f"annotation of {rule.get('alert')}")


def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    return loaded


def dashboard_queries() -> Iterator[Query]:
    for panel in dashboard()["panels"]:
        for target in panel["targets"]:
            yield Query(target["expr"], f"panel {panel['title']!r}", legend=target.get("legendFormat", ""))


def dashboard_variables() -> Iterator[tuple[str, str, str]]:
    """``(variable, metric, label)`` of each ``label_values`` variable."""
    for variable in dashboard()["templating"]["list"]:
        query = variable["query"]["query"] if isinstance(variable["query"], dict) else variable["query"]
        match = _LABEL_VALUES.fullmatch(query.strip())
        assert match is not None, f"variable {variable['name']}: unexpected query {query!r}"
        yield variable["name"], match.group(1), match.group(2)


def legend_labels(legend: str) -> set[str]:
    return set(_LEGEND.findall(legend))


def exposed(text: str) -> dict[str, set[str]]:
    """Sample name (``…_bucket``, ``…_total``, …) → its label names, from a Prometheus text exposition."""
    names: dict[str, set[str]] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            names.setdefault(sample.name, set()).update(sample.labels)
    return names


def instantiate(expr: str, **variables: str) -> str:
    """The query as Grafana would send it, with its template variables filled in."""
    defaults = {"__rate_interval": "1m", "__range": "1h", "__interval": "15s"}
    for name, value in {**defaults, **variables}.items():
        expr = expr.replace(f"${name}", value)
    assert "$" not in expr, f"unfilled variable in {expr!r}"
    return expr
