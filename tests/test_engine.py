"""The pure core imports nothing of Django and works on its own."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from decider.engine.evaluation import answers_evaluate
from tests.factories import make_answers, shipped_figures, shipped_rulebook

ROOT = Path(__file__).resolve().parent.parent

WITHOUT_DJANGO = """
import importlib, pkgutil, sys

class NoDjango:
    def find_spec(self, name, path=None, target=None):
        if name == "django" or name.startswith("django."):
            raise ImportError("django may not be imported here: " + name)

sys.meta_path.insert(0, NoDjango())

import decider.engine
for module in pkgutil.iter_modules(decider.engine.__path__):
    importlib.import_module("decider.engine." + module.name)

import json
from decider.engine.evaluation import answers_evaluate
from decider.engine.figures import figures_select
from decider.engine.validation import answers_validate
from decider.engine.ruledocs import rulebook_from_document

fixtures = sys.argv[1]
rulebook = rulebook_from_document(json.load(open(fixtures + "/ruleset.json")))
rows = json.load(open(fixtures + "/assumptions.json"))["assumptions"]
rows = [row for row in rows if row["market"] == "global"]  # one market's price set
answers, errors = answers_validate(json.loads(sys.argv[2]))
assert not errors, errors
evaluation = answers_evaluate(
    answers=answers, rulebook=rulebook, figures=figures_select(rows=rows, gpu_model="h100")
)
print(evaluation.result.recommendation, evaluation.costs["cheapest"])
print(sorted(name for name in sys.modules if name.split(".")[0] == "django"))
"""


@pytest.mark.slow
def test_the_engine_scores_and_costs_where_django_cannot_be_imported():
    answers = make_answers("research_lab")
    here = answers_evaluate(answers=answers, rulebook=shipped_rulebook(), figures=shipped_figures())
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_DJANGO, str(ROOT / "fixtures"), json.dumps(answers)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    recommendation, modules = done.stdout.splitlines()
    assert recommendation.split() == [here.result.recommendation, here.costs["cheapest"]]
    assert modules == "[]"
