"""JSON in and out: create an assessment from an answers document; describe the API.

The answers document is the one `manage.py decide` reads, checked by the same
`answers_validate`, so the messages are the same. Reading goes through the
capability links (`/v/<token>.json`, `/a/<token>.json`), so there is no
listing and no account: the API creates, the links give access.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.urls import reverse
from django.utils.translation import get_language, gettext
from django.views import defaults
from django.views.decorators.csrf import csrf_exempt

from decider import limits, services
from decider.engine import (
    fleet,
    odds,
    providers,
    questionnaire,
    ranges,
    sizing,
    stages,
    validation,
    workloads,
)
from decider.engine.figures import FIGURE_NAMES, FIGURES
from decider.engine.markets import CURRENCIES
from decider.engine.outcomes import OUTCOMES
from decider.engine.vocabulary import PROVIDER_KINDS
from decider.forms import name_clean
from decider.models import NAME_MAX_LENGTH, Assessment
from decider.views import shared_page

MAX_BODY_BYTES = questionnaire.MAX_DOCUMENT_BYTES
# Bare NaN or Infinity is not JSON: refuse to print it rather than send invalid JSON.
JSON_PARAMS = {"ensure_ascii": False, "allow_nan": False}


def _errors(errors: dict[str, str], status: int = 400) -> JsonResponse:
    return JsonResponse({"errors": errors}, status=status, json_dumps_params=JSON_PARAMS)


def json_methods(
    *methods: str,
) -> Callable[[Callable[..., HttpResponse]], Callable[..., HttpResponse]]:
    """Like `require_http_methods`, but a wrong method is told so in JSON, with `Allow`."""

    def decorator(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
        @wraps(view)
        def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            if request.method not in methods:
                response = _errors({"_": f"use {' or '.join(methods)}"}, 405)
                response["Allow"] = ", ".join(methods)
                return response
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def server_error(request: HttpRequest) -> HttpResponse:
    """The 500 handler (config/urls.py): an error the API did not expect answers in JSON, as
    its other errors do; the pages get 500.html. Django has logged it by then (and Sentry
    has it), and the middleware has had its turn (a lost database, a request too slow)."""
    if request.path.startswith("/api/") or request.path.endswith(".json"):
        message = gettext(
            "Something went wrong on the server. It has been logged; try again, or tell the "
            "operators if it happens again."
        )
        return JsonResponse({"error": message}, status=500, json_dumps_params=JSON_PARAMS)
    return defaults.server_error(request)


# No cookie grants anything here, so there is nothing for CSRF to protect:
# a forged cross-site POST could only create an assessment its sender cannot read.
@csrf_exempt
@json_methods("POST")
@limits.creates
def assessments(request: HttpRequest) -> HttpResponse:
    if request.content_type != "application/json":
        return _errors({"_": "send the answers as JSON (Content-Type: application/json)"}, 415)
    text, refused = _body_text(request)
    if refused is not None:
        return refused
    raw, problem = questionnaire.json_parse(text)
    if problem:
        return _errors({"_": problem})
    raw, name, refused = _named_answers(raw)
    if refused is not None:
        return refused
    raw, sized, errors = sizing.answers_sized(raw)
    if errors:
        return _errors(errors)
    answers, errors = validation.answers_validate(raw, providers=services.provider_keys(raw))
    if errors:
        return _errors(errors)
    try:
        services.current_ruleset()
    except services.NoRuleSet as error:
        return _errors({"_": str(error)}, 503)
    try:
        # Nothing is kept unless it scores: the document is made from the scored draft, and
        # the row and its result are written together only then (one INSERT, with no lock
        # held while the odds and the plan are drawn).
        draft, evaluation = services.assessment_scored_draft(answers=answers, name=name)
        document = services.assessment_document(
            draft,
            language=get_language() or "en",
            currency="USD",
            costs_shown=evaluation.costs,
            odds_shown=evaluation.odds,  # drawn while scoring, when the lead may be decisive
        )
        if sized is not None:
            document["sizing"] = sized  # what the work gave (its answers are saved)
        json.dumps(document, allow_nan=False)  # finite, or nothing is saved
    except ValueError as error:  # the cost model's own range checks, which validation missed
        return _errors(
            {"_": gettext("these answers cannot be costed: %(error)s") % {"error": error}}
        )
    _assessment, edit_token, view_token = services.assessment_draft_save(
        draft, odds_usd=evaluation.odds, costs_usd=evaluation.costs
    )
    return _created(request, document, edit_token=edit_token, view_token=view_token)


def _body_text(request: HttpRequest) -> tuple[str, JsonResponse | None]:
    """The request body as text, or the response that refuses it (too large, not UTF-8)."""
    too_big = _errors(
        {
            "_": gettext("the request body is larger than %(size)s KB")
            % {"size": MAX_BODY_BYTES // 1024}
        },
        413,
    )
    try:
        if int(request.META.get("CONTENT_LENGTH") or 0) > MAX_BODY_BYTES:
            return "", too_big
    except ValueError:
        pass  # a malformed length: the body read below tells
    try:
        body = request.body
    except RequestDataTooBig:
        return "", too_big
    if len(body) > MAX_BODY_BYTES:
        return "", too_big
    try:
        return body.decode("utf-8"), None
    except UnicodeDecodeError as error:
        return "", _errors({"_": f"not valid JSON ({error})"})


def _named_answers(raw: Any) -> tuple[Any, str, JsonResponse | None]:
    """The answers and the name of a document that names them ({"name": ..., "answers":
    {...}}), or of bare answers (no name); or the response that refuses the name."""
    if not (isinstance(raw, dict) and "answers" in raw):
        return raw, "", None
    name = raw.get("name", "")
    if not isinstance(name, str) or len(name) > NAME_MAX_LENGTH:
        return raw, "", _errors({"name": f"must be text of at most {NAME_MAX_LENGTH} characters"})
    return raw["answers"], name_clean(name), None


def _created(
    request: HttpRequest, document: dict[str, Any], *, edit_token: str, view_token: str
) -> JsonResponse:
    """201 Created: the document with the new assessment's links, at its view link."""
    document |= {
        "edit_url": request.build_absolute_uri(reverse("decider-result", args=[edit_token])),
        "view_url": request.build_absolute_uri(reverse("decider-view", args=[view_token])),
        "view_json_url": request.build_absolute_uri(
            reverse("decider-view-json", args=[view_token])
        ),
    }
    response = JsonResponse(document, status=201, json_dumps_params=JSON_PARAMS)
    response["Location"] = document["view_json_url"]
    response["Cache-Control"] = "no-store"
    return response


@shared_page
@json_methods("GET")
def assessment_json(request: HttpRequest, token: str, kind: str) -> HttpResponse:
    """An assessment through its edit or view link: answers and the full result."""
    assessment = Assessment.objects.by_token(token, kind=kind)
    if assessment is None:
        return _errors({"_": "no assessment at this link (wrong or revoked)"}, 404)
    assessment.mark_opened()
    if questionnaire.first_incomplete_step(assessment.answers) is not None:
        return _errors({"answers": "The questionnaire is not finished."}, 409)
    currency = request.GET.get("currency")
    try:
        if assessment.needs_scoring():
            services.assessment_score(assessment)
        document = services.assessment_document(
            assessment,
            language=get_language() or "en",
            currency=currency if currency in CURRENCIES else "USD",
        )
        return JsonResponse(document, json_dumps_params=JSON_PARAMS)
    except ValueError as error:  # answers saved before today's bounds, that cannot be costed
        return _errors(
            {"answers": gettext("these answers cannot be costed: %(error)s") % {"error": error}},
            409,
        )


@json_methods("GET")
def openapi(request: HttpRequest) -> HttpResponse:
    return JsonResponse(openapi_document(), json_dumps_params={"ensure_ascii": False, "indent": 2})


def _answer_schema(question: questionnaire.Question) -> dict[str, Any]:
    schema: dict[str, Any] = {"description": question.label}
    if question.kind == "choice":
        schema |= {"type": "string", "enum": [value for value, _label in question.choices]}
    elif question.kind == "bool":
        schema["type"] = "boolean"
    else:
        schema["type"] = "integer" if question.kind == "int" else "number"
        if question.min is not None:
            schema["minimum"] = question.min
        if question.max is not None:
            schema["maximum"] = question.max
    return schema


def openapi_document() -> dict[str, Any]:
    """OpenAPI 3.1, built from the questionnaire and the figures, so it cannot drift from the
    validation."""
    read = _read_operation()
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Decider API",
            "version": "1",
            "description": "Create GPU compute assessments from answers documents and read "
            "them back through their links. Reasons come in the language of Accept-Language "
            "(en or zh-Hans).",
        },
        "paths": {
            "/api/assessments": {"post": _create_operation()},
            "/v/{token}.json": {"get": read},
            "/a/{token}.json": {"get": read},
        },
        "components": {"schemas": _schemas()},
    }


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _json(schema: dict[str, Any]) -> dict[str, Any]:
    return {"application/json": {"schema": schema}}


def _figure_schema(name: str) -> dict[str, Any]:
    spec = FIGURES[name]
    schema: dict[str, Any] = {"type": "number", "description": spec.label.en, "minimum": spec.min}
    if spec.max is not None:
        schema["maximum"] = spec.max
    if spec.whole:
        schema["multipleOf"] = 1
    return schema


def _answers_document_schema() -> dict[str, Any]:
    levels, replaced = questionnaire.DEMAND_LEVELS, questionnaire.LEVELS_REPLACE
    always = [
        key
        for key, question in questionnaire.QUESTIONS.items()
        if not question.optional and key not in replaced
    ]
    return {
        "type": "object",
        "required": always,
        # The demand: an average (utilization and shape), or the two levels (base and
        # time at the peak), which are given together or not at all.
        "anyOf": [{"required": list(replaced)}, {"required": list(levels)}, {"required": ["work"]}],
        "dependentRequired": {key: [other for other in levels if other != key] for key in levels},
        "additionalProperties": False,
        "properties": {key: _answer_schema(q) for key, q in questionnaire.QUESTIONS.items()}
        | {
            "costs": {
                "type": "object",
                "description": "Cost figures set for this assessment, by assumption name.",
                "propertyNames": {"enum": sorted(FIGURE_NAMES)},
                "properties": {name: _figure_schema(name) for name in FIGURE_NAMES},
                "additionalProperties": {"type": "number", "minimum": 0},
            },
            "work": _work_schema(),
            "uncertainty": _uncertainty_schema(),
            "growth_years": _growth_years_schema(),
            "owned": _owned_schema(),
            "providers": _providers_schema(),
            "workloads": _workloads_schema(),
            "owned_as_of": {
                "type": "string",
                "pattern": r"^\d{4}-(0[1-9]|1[0-2])$",
                "description": "The month the owned GPUs' ages count to (default: this month, "
                "then saved with the answers).",
            },
        },
    }


def _workloads_schema() -> dict[str, Any]:
    """Several workloads decided together (engine/workloads.py)."""
    questions = questionnaire.QUESTIONS
    item = {key: _answer_schema(questions[key]) for key in workloads.DEFAULTED}
    item |= {key: _answer_schema(questions[key]) for key in (*workloads.DEMAND_KEYS, "growth_pct")}
    return {
        "type": "array",
        "description": "Several workloads decided together: each with its own demand (as the "
        "answers give it, or a `work` block to size it from), kind and data residency (at "
        "least the company's). Their pooled demand stands in for the answers' own demand "
        "keys, which are then left out; the plan says where each runs and what pooling "
        "saves against deciding them apart.",
        "minItems": 2,
        "maxItems": workloads.MAX_WORKLOADS,
        "items": {
            "type": "object",
            "required": ["gpus"],
            "additionalProperties": False,
            "properties": {
                "name": {"type": "string", "maxLength": workloads.NAME_MAX},
                **item,
                "work": _work_schema(),
                "separate": {
                    "type": "boolean",
                    "description": "Latency-bound serving in another region: a cluster of "
                    "its own, decided alone, not in the pool.",
                },
            },
        },
    }


def _providers_schema() -> dict[str, Any]:
    """Whom the cloud may be rented from (engine/providers.py)."""
    named = {
        "type": "array",
        "maxItems": providers.MAX_NAMED,
        "items": {"type": "string", "description": "a provider kind or a provider's key"},
    }
    return {
        "type": "object",
        "description": "Price the cloud at the cheapest listed provider these allow, at its "
        f"list prices, and name the runner-up (kinds: {', '.join(PROVIDER_KINDS)}; the "
        "providers' keys are in the admin and docs/PROVIDERS.md). `{}` allows every "
        "provider; without it the cloud is priced at the market's figures.",
        "additionalProperties": False,
        "properties": {"allow": named, "exclude": named},
    }


def _growth_years_schema() -> dict[str, Any]:
    """The optional base and peak GPUs year by year (engine/stages.py)."""
    return {
        "type": "array",
        "description": "The base and peak GPUs of each year, for the staged plan (year "
        "1, 2, …; the last year holds). Without it `growth_pct` compounds today's.",
        "minItems": 1,
        "maxItems": stages.MAX_YEARS,
        "items": {
            "type": "object",
            "required": ["base_gpus", "peak_gpus"],
            "additionalProperties": False,
            "properties": {
                "base_gpus": {"type": "number", "minimum": 0},
                "peak_gpus": {"type": "number", "minimum": 1, "maximum": 100000},
            },
        },
    }


def _owned_schema() -> dict[str, Any]:
    """The optional GPUs owned already (engine/fleet.py)."""
    return {
        "type": "array",
        "description": "GPUs already owned. Those of the assessment's gpu_model are "
        "not bought again nor bridged; the options that own fewer sell the rest today. "
        "Entries of another model are kept but not priced.",
        "maxItems": fleet.MAX_ENTRIES,
        "items": {
            "type": "object",
            "required": ["gpu_model", "gpus", "bought"],
            "additionalProperties": False,
            "properties": {
                "gpu_model": {"enum": [key for key, _label in questionnaire.GPU_MODELS]},
                "gpus": {"type": "integer", "minimum": 1, "maximum": fleet.MAX_GPUS},
                "bought": {"type": "string", "pattern": r"^\d{4}-(0[1-9]|1[0-2])$"},
            },
        },
    }


def _uncertainty_schema() -> dict[str, Any]:
    """The optional ranges the odds are drawn from (engine/odds.py), per uncertain input."""
    least, most = odds.RANGE_LIMITS
    return {
        "type": "object",
        "description": "Ranges the odds draw from: today's figure times a multiplier from "
        "low to high, half the draws below 1 and half above, each half triangular with its "
        "peak at 1 (1 is the median and the mode). An input left out keeps its default "
        "(the result's `odds.ranges` shows them, with their sources).",
        "additionalProperties": False,
        "properties": {
            name: {
                "type": "object",
                "description": spread.label,
                "additionalProperties": False,
                "properties": {
                    "low": {
                        "type": "number",
                        "minimum": least,
                        "maximum": 1,
                        "default": spread.low,
                    },
                    "high": {
                        "type": "number",
                        "minimum": 1,
                        "maximum": most,
                        "default": spread.high,
                    },
                },
            }
            for name, spread in ranges.SPREADS.items()
        },
    }


def _work_schema() -> dict[str, Any]:
    """The optional "work" block: the demand sized from a training plan and a service."""

    def part(name: str, inputs: dict[str, tuple[float, float]]) -> dict[str, Any]:
        return {
            "type": "object",
            "additionalProperties": False,
            "required": [key for key in inputs if key not in sizing.OPTIONAL_INPUTS],
            "properties": {
                **{
                    key: {"type": "number", "minimum": low, "maximum": high}
                    for key, (low, high) in inputs.items()
                },
                **{
                    key: {"type": "string", "enum": list(allowed), "default": allowed[0]}
                    for (p, key), allowed in sizing.CHOICE_INPUTS.items()
                    if p == name
                },
            },
        }

    return {
        "type": "object",
        "description": "Size the demand from the work (not saved: the gpus, base_gpus and "
        "peak_share_pct it gives are, unless given beside it). The response adds `sizing`.",
        "additionalProperties": False,
        "anyOf": [{"required": ["training"]}, {"required": ["inference"]}],
        "properties": {
            "training": part("training", sizing.TRAINING_INPUTS),
            "inference": {
                **part("inference", sizing.INFERENCE_INPUTS),
                "anyOf": [{"required": ["tokens_per_day_m"]}, {"required": list(sizing.APART)}],
            },
        },
    }


def _schemas() -> dict[str, Any]:
    return {
        "Answers": _answers_document_schema(),
        "Result": _result_schema(),
        "Assessment": _assessment_schema(),
        "Created": _created_schema(),
        "Error": _error_schema(),
    }


def _error_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "required": ["errors"],
        "properties": {
            "errors": {
                "type": "object",
                "description": "One message per answer key ('costs.<name>' for cost figures, "
                "'_' for the document as a whole).",
                "additionalProperties": {"type": "string"},
            }
        },
    }


COSTS_DESCRIPTION = (
    "The cost model (totals, present_value, breakdown, "
    "cumulative, ...): each option a plan priced month by month over the answers' "
    "future, as `plan` prices it, today's demand held or growing (`demand_grows`; "
    "as it grows there is no `hybrid_curve`); the cost per useful hour by "
    "utilization, `break_even_utilization_pct` and `sensitivity` price the same "
    "plans again; `estimated_prices`: the estimated price figures the cheapest "
    "cloud rests on; `utilization_check` {kind busy|idle, utilization_pct, "
    "threshold_pct, odds_low_pct, traces} when the utilization expected is "
    "rare among published fleets (null otherwise); `owned_per_used_gpu_hour`: on-prem's "
    "plan less its rent while the servers arrive, over the GPU-hours of work after they "
    "arrive, beside `owned_hour_tiers` [{key, per_hour, source, as_of}] (published). "
    "The verdict: `verdict`, `verdict_gap_pct` and "
    "`verdict_probability` (the share of the odds' draws in which the cheapest is "
    "cheapest); `verdict_basis` is `costs`, or `plan` when demand grows and the "
    "verdict weighs each outcome's plan over that future "
    "(`verdict_present_value`); `financing` {rate, term_months} when no capital "
    "is available up front."
)


def _result_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "description": "The same shape as `manage.py decide --format json`.",
        "properties": {
            "recommendation": {"type": ["string", "null"], "enum": [*OUTCOMES, None]},
            "scores": {"type": "object", "additionalProperties": {"type": "number"}},
            "excluded": {"type": "object", "additionalProperties": {"type": "string"}},
            "warnings": {"type": "object"},
            "margin": {"type": ["number", "null"]},
            "contributions": {"type": "array", "items": {"type": "object"}},
            "ruleset_version": {"type": "integer"},
            "costs": {
                "type": "object",
                "description": COSTS_DESCRIPTION,
            },
            "odds": {
                "type": "object",
                "description": "How sure the cheapest option is: the same plans priced in "
                "drawn worlds (`plan.odds` reads the same draws), `cheapest_probability` per "
                "outcome in play (per token included) over `draws` draws with `seed`, the "
                "`drivers` (rank "
                "correlation with the leader's lead), P10/P50/P90 `present_value` per outcome "
                "and cumulative `bands` per option at `bands.months`, and the `ranges` drawn "
                "from.",
                "required": ["draws", "seed", "cheapest_probability", "drivers", "bands"],
            },
            "plan": _plan_schema(),
            "decision": {
                "type": "object",
                "description": "Each outcome in play once, cheapest first, at the figures "
                "every section reads for it: `options[]` {outcome, option (the cost option "
                "or `api_hybrid` that prices it), recommended, present_value, total, capital, "
                "per_useful_gpu_hour, cheapest_probability, p10, p50, p90}; and "
                "`recommended_plan` {outcome, plan, present_value, stages[], "
                "first_owned_gpus, servers, power_kw, first_purchase_month}.",
                "required": ["options", "recommended_plan"],
            },
            "summary": {
                "type": "object",
                "description": "`extra_cost`: null when the headline is the cheapest allowed "
                "option; else {outcome, cheapest, amount, pct, currency, horizon_months, "
                "overridden, answers [{criterion, label, answer, points, overrides_cost}]}: "
                "what the headline costs over the cheapest in present value, and the answers "
                "that carry it. `constraint_cost`: null unless an option the constraints rule "
                "out is cheaper than every allowed one; else {outcome, instead, amount, pct, "
                "currency, horizon_months, constraint, reason}: what the constraint costs.",
            },
        },
    }


def _plan_schema() -> dict[str, Any]:
    """The result's plan in stages (engine/stages.py), buy-or-wait and the next generation."""
    return {
        "type": "object",
        "description": "The cheapest plan in stages for the answers' `growth_pct`, "
        "`growth_years`, `cloud_price_fall_pct` and `hardware_price_fall_pct` (the one "
        "future every section prices): `chosen_plan`, `chosen_present_value`, "
        "`stages` [{month, order_month, owned_gpus, added_gpus, "
        "base_gpus, peak_gpus, required_by_data, saves}], `present_value` {staged, "
        "commit_now, cloud_only (null when data may not leave)}, `commit_now_gpus`, "
        "`owned_already` (GPUs owned already that the plan keeps), "
        "`first_possible_month`, `timeline` {months, owned_gpus, base_gpus, "
        "peak_gpus}, `wait` {owned_gpus, cloud_fall_pct_per_year, "
        "hardware_fall_pct_per_year (the answers'), prices_from (answers|held), "
        "suggested {cloud_fall_pct_per_year, hardware_fall_pct_per_year} (the GPU "
        "model's published path, with source, as_of), options [{wait_months, "
        "present_value, cheaper_than_now_pct}], best_wait_months}: buy now or wait, "
        "`generation` (null when no next generation is modelled) {model, successor, "
        "successor_name, ships_month, speed, owned_gpus, successor_gpus, "
        "first_successor_month, options [{own, month, gpus, present_value, "
        "cheaper_than_current_pct}], best, worth [{year, running, cloud_equivalent}], "
        "outlived_month}: this generation or the next, `odds` {draws, growth, "
        "present_value {plan: {p10, p50, p90}}, beats, staged_cheaper_pct}: how sure "
        "the plan is, `future`. The plan recommended: `chosen_plan` (staged, cloud_only, "
        "commit_now or own_peak: it follows the headline when demand does not grow), "
        "`chosen` [{month, action (own, rent, or keep: GPUs owned already), gpu_model, "
        "gpus, reason}], "
        "`marginal` (the search's plan saved under 5 % against cloud only, or won in "
        "under half the draws: cloud only keeps the choices open), `alternatives` "
        "[{plan, present_value, beats_chosen_pct}], `financing` (null with capital up "
        "front) {rate, term_months, factor}.",
        "required": ["stages", "present_value", "timeline"],
    }


def _assessment_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "answers": _ref("Answers"),
            "result": _ref("Result"),
            "revision": {"type": "integer"},
            "scored_at": {"type": ["string", "null"], "format": "date-time"},
        },
    }


def _created_schema() -> dict[str, Any]:
    """An assessment as created: with its links, and what its `work` gave."""
    links = {
        name: {"type": "string", "format": "uri"}
        for name in ("edit_url", "view_url", "view_json_url")
    }
    sized = {"sizing": {"type": "object", "description": "What the answers' `work` gave."}}
    return {"allOf": [_ref("Assessment"), {"type": "object", "properties": links | sized}]}


def _create_operation() -> dict[str, Any]:
    named = {
        "type": "object",
        "required": ["answers"],
        "properties": {
            "name": {"type": "string", "maxLength": NAME_MAX_LENGTH},
            "answers": _ref("Answers"),
        },
    }
    return {
        "summary": "Create and score an assessment",
        "requestBody": {"required": True, "content": _json({"oneOf": [_ref("Answers"), named]})},
        "responses": {
            "201": {
                "description": "Created; keep the edit URL, share the view URL.",
                "content": _json(_ref("Created")),
            },
            "400": {"description": "Invalid answers", "content": _json(_ref("Error"))},
            "405": {"description": "Not POST", "content": _json(_ref("Error"))},
            "413": {
                "description": f"Body larger than {MAX_BODY_BYTES // 1024} KB",
                "content": _json(_ref("Error")),
            },
            "415": {"description": "Not JSON", "content": _json(_ref("Error"))},
        },
    }


def _read_operation() -> dict[str, Any]:
    token = {
        "name": "token",
        "in": "path",
        "required": True,
        "description": "The token of a view-only (or, under /a/, an edit) link.",
        "schema": {"type": "string"},
    }
    currency = {
        "name": "currency",
        "in": "query",
        "schema": {"type": "string", "enum": list(CURRENCIES), "default": "USD"},
    }
    error = {"content": _json(_ref("Error"))}
    return {
        "summary": "Read an assessment: its answers and its full result",
        "parameters": [token, currency],
        "responses": {
            "200": {"description": "The assessment", "content": _json(_ref("Assessment"))},
            "404": {"description": "No assessment at this link (wrong or revoked).", **error},
            "405": {"description": "Not GET", **error},
            "409": {"description": "The questionnaire is not finished.", **error},
        },
    }
