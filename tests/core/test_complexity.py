"""No function or method of the library (``ragmetrics_core`` and the integrations) goes above a cyclomatic complexity
of 20 in radon's measure: past that, a function is a tangle of branches nobody changes safely; split it into named
steps. The embedded judge is held to its own bound (``tests/embedded/test_maintainability.py``)."""

from __future__ import annotations

from pathlib import Path

from radon.complexity import cc_visit
from radon.visitors import Function

ROOT = Path(__file__).resolve().parents[2]
MAX_COMPLEXITY = 20
OWN_BOUND = ROOT / "ragmetrics_core" / "judges" / "embedded"


def _library_files() -> list[Path]:
    files = [*(ROOT / "ragmetrics_core").rglob("*.py"), *(ROOT / "integrations").rglob("*.py")]
    return sorted(path for path in files if OWN_BOUND not in path.parents)


def _too_complex(source: str) -> list[tuple[str, int]]:
    """Each function, method and nested function over the bound. radon lists methods as functions of their own, and
    a class's figure sums its methods', so classes are not measured themselves; nested functions are counted apart
    from the function around them."""
    found = []
    pending = [(block.fullname, block) for block in cc_visit(source) if isinstance(block, Function)]
    while pending:
        name, block = pending.pop(0)
        if block.complexity > MAX_COMPLEXITY:
            found.append((name, block.complexity))
        pending += [(f"{name}.{inner.name}", inner) for inner in block.closures]
    return found


def test_no_function_of_the_library_is_above_the_bound() -> None:
    files = _library_files()
    assert len(files) > 80 and not any(OWN_BOUND in path.parents for path in files)
    over = [
        (str(path.relative_to(ROOT)), name, complexity)
        for path in files
        for name, complexity in _too_complex(path.read_text("utf-8"))
    ]
    assert not over, f"split these into named steps (complexity > {MAX_COMPLEXITY}): {over}"


def test_the_measure_finds_a_tangled_function_method_and_closure() -> None:
    branches = "".join(f"        if x == {n}:\n            return {n}\n" for n in range(25))
    source = (
        f"def tangled(x):\n{branches.replace('        ', '    ')}    return -1\n"
        f"class C:\n    def method(self, x):\n{branches}        return -1\n"
        f"def outer():\n    def inner(x):\n{branches}        return -1\n    return inner\n"
        "def plain(x):\n    return x\n"
    )
    names = [name for name, _ in _too_complex(source)]
    assert names == ["tangled", "C.method", "outer.inner"]
