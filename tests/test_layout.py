"""The shape of the code: no import circle, and a pure engine.

Imports inside functions count too: a lazy import only hides a circle from the interpreter,
not from the reader who follows it.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("decider", "config")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            parts = path.relative_to(ROOT).with_suffix("").parts
            found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imported(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """The project's modules `module` imports, anywhere in it."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    names: list[str] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            names += [base, *(f"{base}.{alias.name}" for alias in node.names)]
    found = set()
    for name in names:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        if name and name != module:
            found.add(name)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    return {module: _imported(module, path, modules) for module, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            group = []
            while (member := stack.pop()) != module:
                group.append(member)
            if group:
                found.append(sorted([*group, module]))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def test_no_module_of_the_project_imports_itself_round_a_circle():
    assert circles(import_graph()) == []


def test_python_formats_money_where_the_templates_do_not_through_a_template_tag():
    """decider/formats.py formats money and months for both; a module reaching into the
    template tags for them would tie page logic to the template layer."""
    graph = import_graph()
    reaching = {
        module
        for module, imported in graph.items()
        if not module.startswith("decider.templatetags")
        and any(name.startswith("decider.templatetags") for name in imported)
    }
    assert reaching == set()


def _functions():
    for path in _modules().values():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield path.relative_to(ROOT), node


def test_no_function_is_longer_than_a_screen():
    long = [
        f"{path}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for path, node in _functions()
        if node.end_lineno - node.lineno + 1 > 60
    ]
    assert long == []


def test_one_test_of_whether_a_page_reads_chinese():
    """engine.text.is_chinese; a hand-written copy forgets that a language may be None."""
    written = [
        str(path.relative_to(ROOT))
        for path in _modules().values()
        if 'startswith("zh")' in path.read_text(encoding="utf-8")
    ]
    assert written == ["decider/engine/text.py"]


def test_the_circle_finder_finds_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]


@pytest.mark.slow
def test_the_engine_imports_without_django_celery_or_pandas():
    """The rule engine and cost model are plain Python: scripts and benchmarks load them
    without the web framework or the job queue; pandas waits for the first cost table."""
    code = (
        "import sys, decider.engine.evaluation, decider.engine.stages, decider.engine.odds;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'django', 'celery', 'kombu', 'pandas'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"


# The readers of a decision: they show it and name things, and price nothing.
READERS = ("report", "summary", "decision", "per_token", "charts")
# What they may take from the engine: the typed decision, and the engine's vocabulary (the
# questions, the outcomes, the markets, the texts, the figures' and the ranges' registries,
# the scored result and its rules).
VOCABULARY = {
    "decided",
    "i18n",
    "markets",
    "outcomes",
    "questionnaire",
    "figures",
    "ranges",
    "scoring",
    "text",
    "vocabulary",
}


def test_the_readers_take_the_decision_and_the_vocabulary_from_the_engine():
    """Issue 50: the readers reached `costs`, `tokens`, `providers`, `odds`, `verdict` and
    `sensitivity`, each free to price or weigh an option its own way beside the plan. They
    now read one `Decision` (engine/decided.py), whose analyses are worked out once."""
    graph = import_graph()
    reached = {
        reader: sorted(
            name.removeprefix("decider.engine.")
            for name in graph[f"decider.{reader}"]
            if name.startswith("decider.engine.")
            and name.removeprefix("decider.engine.") not in VOCABULARY
        )
        for reader in READERS
    }
    assert reached == {reader: [] for reader in READERS}


def test_the_questionnaire_knows_questions_and_reaches_no_model():
    """The questionnaire is vocabulary: it reached fleet, providers, sizing, workloads, odds
    and stages to check the optional blocks. Those checks live in engine/validation.py."""
    reached = {
        name.removeprefix("decider.engine.")
        for name in import_graph()["decider.engine.questionnaire"]
        if name.startswith("decider.engine.")
    }
    assert reached <= {"demand", "figures", "gpus", "i18n", "markets", "outcomes", "text"}
