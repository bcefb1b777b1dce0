"""Score an answers file with the current rule set: `manage.py decide FILE.json`."""

import json
from pathlib import Path

from django.core.management.base import BaseCommand
from django.utils import timezone, translation
from django.utils.translation import gettext

from decider import conversion
from decider.decision import decision_json, summary_json
from decider.engine import sizing, verdict
from decider.engine.decided import decision_of
from decider.engine.evaluation import answers_odds, answers_plan, bursts_owned, per_token_parts
from decider.engine.figures import FIGURES, figures_values
from decider.engine.markets import CURRENCIES, currency_rate
from decider.engine.outcomes import outcome_name
from decider.engine.questionnaire import (
    MAX_DOCUMENT_BYTES,
    json_parse,
    too_big_text,
)
from decider.engine.scoring import result_localized
from decider.engine.text import is_chinese
from decider.engine.validation import answers_validate
from decider.rulesets import ruleset_rulebook
from decider.services import COMPUTED_IN, NoRuleSet, evaluate_now, provider_keys


class Command(BaseCommand):
    help = "Score an answers file (JSON) with the current rule set and cost figures."

    def add_arguments(self, parser):
        parser.add_argument("file", help="answers file (JSON); '-' reads standard input")
        parser.add_argument("--format", choices=["json", "text"], default="text")
        parser.add_argument("--lang", choices=["en", "zh-hans"], default="en")
        parser.add_argument("--currency", choices=CURRENCIES, default="USD")
        parser.add_argument(
            "--seed", type=int, default=0, help="the odds' draws (the same seed, the same odds)"
        )

    def handle(self, *args, **options):
        with translation.override(options["lang"]):
            problems, output = self._run(options)
        if problems:
            for line in problems:
                self.stderr.write(line)
            raise SystemExit(2)
        self.stdout.write(output)

    def _run(self, options) -> tuple[list[str], str]:
        try:
            text = (
                self.stdin_text()
                if options["file"] == "-"
                else Path(options["file"]).read_text(encoding="utf-8")
            )
        except (OSError, UnicodeDecodeError) as error:
            return [f"{options['file']}: cannot read the file ({error})"], ""
        if len(text) > MAX_DOCUMENT_BYTES:
            return [f"{options['file']}: {too_big_text()}"], ""
        raw, problem = json_parse(text)
        if problem:
            return [f"{options['file']}: {problem}"], ""
        raw, sized, problems = sizing.answers_sized(raw)
        if problems:
            return [f"{key}: {message}" for key, message in problems.items()], ""
        answers, errors = answers_validate(raw, providers=provider_keys(raw))
        if errors:
            return [f"{key}: {message}" for key, message in errors.items()], ""
        try:
            # Computed once, in USD, and converted where it is shown (decider/conversion.py),
            # as a page in yuan reads the same computation.
            ruleset, evaluation = evaluate_now(
                answers, currency=COMPUTED_IN, odds_seed=options["seed"]
            )
            data = result_localized(evaluation.result, options["lang"])
            data["costs"] = evaluation.costs
            _sections(data, evaluation, answers, seed=options["seed"])
            _converted(data, evaluation, options["currency"])
            self._summarize(data, ruleset, evaluation, answers, language=options["lang"])
            if sized is not None:
                data["sizing"] = sized
            # Bare NaN or Infinity is not JSON; refusing it also refuses a "$nan" text total.
            document = json.dumps(data, ensure_ascii=False, indent=2, allow_nan=False)
        except NoRuleSet as error:
            return [str(error)], ""
        except ValueError as error:  # the cost model's own range checks
            return [gettext("these answers cannot be costed: %(error)s") % {"error": error}], ""
        if options["format"] == "json":
            return [], document
        return [], self._text(data)

    def _summarize(self, data, ruleset, evaluation, answers, *, language: str) -> None:
        """The money (verdict, extra and constraint cost), the decision (its options and
        plan) and its summary."""
        decided = decision_of(
            result=evaluation.result,
            answers=answers,
            derived=evaluation.derived,
            costs=data["costs"],
            odds=data["odds"],
            plan=data["plan"],
            rulebook=ruleset_rulebook(ruleset),
        )
        data["decision"] = decision_json(decided)
        data.update(
            verdict.result_money(
                evaluation.result,
                data["costs"],
                data["odds"],
                derived=evaluation.derived,
                language=language,
                plan=data["plan"],
            )
        )
        data["summary"] |= summary_json(decided, language=language, start=timezone.now().date())

    def stdin_text(self) -> str:
        import sys

        return sys.stdin.read()

    def _text(self, data) -> str:
        lines = [
            f"Recommendation: {outcome_name(data['recommendation'])} ({data['recommendation']})"
        ]
        for outcome, score in data["scores"].items():
            mark = (
                " (excluded: " + data["excluded"][outcome] + ")"
                if outcome in data["excluded"]
                else ""
            )
            lines.append(f"  {outcome:7} {score:5.1f}{mark}")
        lines.append(f"Margin over the runner-up: {data['margin']}")
        lines.append("Strongest reasons:")
        for c in data["contributions"][:6]:
            lines.append(f"  {c['points']:+6.1f} {c['outcome']:7} {c['criterion']}: {c['reason']}")
        totals = data["costs"]["totals"]
        currency = data["costs"]["currency"]
        lines.append(f"Totals over {data['costs']['horizon_months']} months ({currency}):")
        for key, value in totals.items():
            lines.append(f"  {key:16} {value:,.0f}")
        prices_in = data["costs"].get("prices_in", "USD")
        lines.append(f"Cost figures ({prices_in} price set):")
        language = translation.get_language() or "en"
        for name, figure in data["costs"]["assumptions"].items():
            chinese = figure.get("source_zh") if is_chinese(language) else None
            unit = FIGURES[name].unit_in(prices_in).get(language) if name in FIGURES else ""
            source = chinese or figure["source"]
            lines.append(f"  {name:24} {figure['value']:g} {unit} · {source} ({figure['as_of']})")
        lines.append(f"Rule set version: {data['ruleset_version']}")
        return "\n".join(lines)


def _sections(data: dict, evaluation, answers: dict, *, seed: int) -> None:
    """The odds (unless the scoring drew them, for the same result) and the plan, in USD."""
    given = {
        "answers": answers,
        "figures": evaluation.figures,
        "excluded": data["excluded"],
        "currency": COMPUTED_IN,
        "seed": seed,
        "fixed": per_token_parts(evaluation.costs, data["excluded"]),
    }
    data["odds"] = evaluation.odds if evaluation.odds is not None else answers_odds(**given)
    data["plan"] = answers_plan(
        **given, outcome=data["recommendation"], bursts_owned=bursts_owned(evaluation.costs)
    )


def _converted(data: dict, evaluation, currency: str) -> None:
    """The sections in `currency`, converted from the one computation (in USD)."""
    if currency == COMPUTED_IN:
        return
    rate = currency_rate(
        figures_values(evaluation.figures), prices_in=COMPUTED_IN, shown_in=currency
    )
    for section in ("costs", "odds", "plan"):
        data[section] = conversion.converted(section, data[section], rate=rate, currency=currency)
