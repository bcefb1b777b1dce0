from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.db import DatabaseError, connection
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import redirect, render
from django.template.response import SimpleTemplateResponse
from django.urls import reverse
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails
from django_ratelimit.core import is_ratelimited
from django_ratelimit.exceptions import Ratelimited

from decider import caching, limits, pdf, report, services, tasks
from decider import method as decider_method
from decider.engine import gpus, questionnaire, sizing, validation
from decider.engine.figures import Figure
from decider.engine.markets import CURRENCIES
from decider.engine.outcomes import outcome_name
from decider.engine.text import is_chinese
from decider.engine.workloads import MAX_WORKLOADS, POOLED_KEYS
from decider.forms import (
    STEP_FORMS,
    FiguresStepForm,
    NameForm,
    StartForm,
    StepForm,
    WorkForm,
    WorkloadFormSet,
    speed_rows,
)
from decider.models import (
    NAME_MAX_LENGTH,
    SESSION_SEAL_PREFIX,
    Assessment,
    Assumption,
    LinksChanged,
    RuleSet,
    figures_of,
    session_seal,
    session_unseal,
    token_hash,
)
from decider.personas import PRESETS
from decider.rulesets import ruleset_rulebook
from decider.whatif import WhatIfForm

log = logging.getLogger(__name__)

RECENT_LIMIT = 20
COMPARE_MAX = 4


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


# --- access -----------------------------------------------------------------


def _get_assessment(token: str, kind: str = "edit", *, defer: tuple[str, ...] = ()) -> Assessment:
    """The assessment behind an edit (/a/) or view-only (/v/) link; `defer`: columns left in
    the database until read."""
    return _lookup(token, kind, defer)


def _lookup(token: str, kind: str, defer: tuple[str, ...] = ()) -> Assessment:
    # The scored pages' own way in (scored_link), so that a test can stand in for the
    # others' without knowing what those pages defer. What is deferred is for drawing,
    # and so is the rule set: a page served kept needs neither.
    assessment = Assessment.objects.by_token(token, kind=kind, defer=defer, ruleset=not defer)
    if assessment is None:
        raise Http404("No assessment at this link.")
    assessment.mark_opened()
    return assessment


def scored_link(
    view: Callable[..., HttpResponse] | None = None, *, defer: tuple[str, ...] = ()
) -> Any:
    """The finished assessment behind the link (`kind` from the URL, edit by default), scored
    if its answers changed since; an unfinished one goes to its first unanswered step.

    `defer`: columns read only if the page is drawn (a kept page is not: caching.kept_page).
    """
    if view is None:
        return lambda view: scored_link(view, defer=defer)

    @wraps(view)
    def wrapper(request: HttpRequest, token: str, kind: str = "edit", **kwargs: Any):
        assessment = _lookup(token, kind, defer)
        missing = questionnaire.first_incomplete_step(assessment.answers)
        if missing is not None:
            if kind == "edit":
                return redirect("decider-step", token=token, slug=missing.slug)
            return render(request, "decider/unfinished.html", {"assessment": assessment})
        if assessment.needs_scoring():
            services.assessment_score(assessment)
        return view(request, assessment, token, kind, **kwargs)

    return wrapper


# The saved result and derived answers (tens of KB of JSON): read only to draw a page.
DRAWN_ONLY = ("result", "derived")


def shared_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Pages reached by a capability link: never cached, indexed or leaked as a referrer."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            response = view(request, *args, **kwargs)
        except Http404:
            # A wrong, revoked or replaced link: our own page, in DEBUG too (Django's
            # technical 404 would show the URL patterns to whoever holds a dead link).
            response = render(request, "404.html", status=404)
        response["Referrer-Policy"] = "no-referrer"
        response["Cache-Control"] = "no-store"
        response["X-Robots-Tag"] = "noindex, nofollow"
        return response

    return wrapper


# --- "my assessments": links this browser created or opened -------------------


def _remember(request: HttpRequest, token: str, *, kind: str = "edit") -> None:
    entries = _recent_entries(request)
    if entries[:1] == [(kind, token)]:
        return  # first already: the session cookie need not be signed and sent again
    kept = [(kind, token), *(e for e in entries if e != (kind, token))][:RECENT_LIMIT]
    _keep_recent(request, kept)


def _forget(request: HttpRequest, token: str, *, kind: str) -> None:
    _keep_recent(request, [e for e in _recent_entries(request) if e != (kind, token)])


def _recent_entries(request: HttpRequest) -> list[tuple[str, str]]:
    """This browser's links, newest first, as (kind, token): the session keeps each sealed
    (models.session_seal), so its cookie, readable in base64, names no working link."""
    entries = []
    for entry in request.session.get("recent", []):
        kind, _colon, sealed = str(entry).partition(":")
        token = session_unseal(sealed)
        if kind in ("edit", "view") and token:
            entries.append((kind, token))
    return entries


def _keep_recent(request: HttpRequest, entries: list[tuple[str, str]]) -> None:
    request.session["recent"] = [f"{kind}:{session_seal(token)}" for kind, token in entries]


def _recent(request: HttpRequest) -> list[dict[str, Any]]:
    """The assessments behind this browser's links; revoked links drop out."""
    entries = _recent_entries(request)
    if legacy := request.session.pop("assessments", None):  # edit tokens, before "recent"
        entries = [*entries, *(("edit", token) for token in legacy)][:RECENT_LIMIT]
        _keep_recent(request, entries)
    if any(
        not str(e).partition(":")[2].startswith(SESSION_SEAL_PREFIX)
        for e in request.session.get("recent", [])
    ):
        _keep_recent(request, entries)  # kept plain before issue 49: sealed from now on
    hashes = {kind: [token_hash(t) for k, t in entries if k == kind] for kind in ("edit", "view")}
    by_edit = _by_hash("edit_hash", hashes["edit"])
    by_view = _by_hash("view_hash", hashes["view"])
    found, seen = [], set()
    for kind, token in entries:
        assessment = (by_edit if kind == "edit" else by_view).get(token_hash(token))
        if assessment is None or assessment.pk in seen:
            continue
        seen.add(assessment.pk)
        found.append(
            {
                "assessment": assessment,
                "token": token,
                "kind": kind,
                "url": reverse(
                    "decider-result" if kind == "edit" else "decider-view", args=[token]
                ),
                # Comparisons go by view links: a compare URL passed on grants no edit rights.
                "compare_token": (
                    assessment.view_token(edit_token=token) if kind == "edit" else token
                ),
                "recommendation": outcome_name(assessment.recommendation),
            }
        )
    if len(found) < len(entries):
        _keep_recent(request, [(str(e["kind"]), str(e["token"])) for e in found])
    return found


RECENT_UNREAD = ("answers", "result", "derived")


def _by_hash(field: str, hashes: list[str]) -> dict[str, Assessment]:
    if not hashes:
        return {}  # no link of this kind: nothing to look up
    # The lists show names, dates and recommendations: the JSON columns (the result above
    # all, tens of kB each) are not read.
    found = Assessment.objects.filter(**{f"{field}__in": hashes}).defer(*RECENT_UNREAD)
    return {getattr(a, field): a for a in found}


def currency_of(request: HttpRequest) -> str:
    chosen = request.GET.get("currency") or request.session.get("currency")
    if chosen in CURRENCIES:
        return chosen
    return "CNY" if is_chinese(get_language()) else "USD"


# --- start and the wizard ---------------------------------------------------------


@shared_page
@require_http_methods(["GET", "POST"])
@limits.creates
def home(request: HttpRequest) -> HttpResponse:
    form = StartForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        preset = PRESETS.get(form.cleaned_data["preset"])
        answers = dict(preset["answers"]) if preset else {}
        name = str(preset["label"]) if preset else ""
        assessment, edit_token, _view = Assessment.create_with_links(answers=answers, name=name)
        _remember(request, edit_token)
        return redirect("decider-step", token=edit_token, slug=questionnaire.STEPS[0].slug)
    recent = _recent(request)[:5]
    # The start page shows the presets and this browser's assessments as they are now.
    shown = tuple((r["token"], r["kind"], r["assessment"].updated_at) for r in recent)
    return caching.kept_page(
        request,
        ("home", currency_of(request), shown),
        lambda extra: render(
            request,
            "decider/home.html",
            {"form": form, "presets": PRESETS, "recent": recent, **extra},
        ),
        links=[r[name] for r in recent for name in ("token", "compare_token")],
    )


@require_GET
def method(request: HttpRequest) -> HttpResponse:
    """What the source argues, section by section, and what each section drives here."""
    ruleset = RuleSet.current()
    rulebook = ruleset_rulebook(ruleset) if ruleset else None
    language = get_language() or "en"
    context = {
        "sections": decider_method.sections_for(rulebook, language),
        "source_title": decider_method.SOURCE_TITLE,
    }
    return render(request, "decider/method.html", context)


@shared_page
@require_GET
def mine(request: HttpRequest) -> HttpResponse:
    return render(request, "decider/mine.html", {"recent": _recent(request)})


def _step_form(step: questionnaire.Step, assessment: Assessment, data: Any = None) -> StepForm:
    """The step's form as saved now (to show), or bound to `data` (to save)."""
    form_class = STEP_FORMS[step.slug]
    drawn = {"saved": assessment.answers, "revision": assessment.revision}
    if issubclass(form_class, FiguresStepForm):
        # The figures the result is scored with: the pinned ones, as the cloud was priced.
        return form_class(data, figures=services.step_figures(assessment), **drawn)
    return form_class(data, **drawn)


def _save_step(step: questionnaire.Step, assessment: Assessment, form: StepForm) -> dict[str, Any]:
    """Record the step's valid answers (invalid fields keep their previous answer)."""
    form.is_valid()
    return services.assessment_step_save(
        assessment,
        step=step,
        mine=form.answers(),
        base=form.cleaned_data.get("base"),
        revision=form.cleaned_data.get("revision"),
    )


def _conflict_form(
    request: HttpRequest, step: questionnaire.Step, assessment: Assessment, conflicts: dict
) -> StepForm:
    """The step as saved now, with this person's values kept only where both changed."""
    saved = _step_form(step, assessment)
    data = {name: saved[name].value() for name in saved.fields}
    for name in saved.fields:
        if name in conflicts or (name.startswith("cost_") and "costs" in conflicts):
            data[name] = request.POST.get(name, "")
    form = _step_form(step, assessment, data=data)
    form.is_valid()
    _show_conflicts(form, conflicts)
    return form


def _show_conflicts(form: StepForm, conflicts: dict[str, Any]) -> None:
    form.add_error(
        None,
        _(
            "Someone else changed this assessment while you were editing. Your other answers "
            "are saved. The answers marked below were changed by both of you: yours are still "
            "in the fields; submit again to keep them, or change them."
        ),
    )
    for key, theirs in conflicts.items():
        if key == "costs":
            form.add_error(None, _("The cost figures were also changed by someone else."))
            continue
        question = questionnaire.QUESTIONS[key]
        shown = question.display(theirs) if theirs is not None else _("no answer")
        form.add_error(
            key,
            _("Someone else changed this to “%(theirs)s” while you were editing.")
            % {"theirs": shown},
        )


@shared_page
@require_http_methods(["GET", "POST"])
def step(request: HtmxHttpRequest, token: str, slug: str) -> HttpResponse:
    # A step draws and saves answers; the saved result (tens of KB) is read only by the
    # figures step, which shows the figures it was scored with.
    assessment = _get_assessment(token, defer=("result", "derived"))
    current = questionnaire.STEP_BY_SLUG.get(slug)
    if current is None:
        raise Http404("No such step.")
    index = questionnaire.STEPS.index(current)

    if request.method == "POST":
        if _switched(request):
            # The language or currency buttons submit this form: keep what was typed.
            request.session[_draft_key(token, slug)] = _typed(request, current, assessment)
            url = reverse("decider-step", args=[token, slug])
            response = HttpResponseClientRedirect(url) if request.htmx else redirect(url)
            return _switch_apply(request, response)
        form = _step_form(current, assessment, data=request.POST)
        going_back = "back" in request.POST
        if going_back or form.is_valid():
            try:
                conflicts = _save_step(current, assessment, form)
            except services.SaveContention:
                form.add_error(None, _("Others are saving this assessment right now; try again."))
                return _render_step(request, assessment, current, form)
            if conflicts:
                form = _conflict_form(request, current, assessment, conflicts)
            elif going_back and form.typed_errors():
                form = _held_back_form(request, current, assessment)
            else:
                finish = "finish" in request.POST
                return _after_step(request, token, assessment, index, going_back, finish)
    elif draft := request.session.pop(_draft_key(token, slug), None):
        form = _step_form(current, assessment, data=draft)
        form.is_valid()
        form.keep_typed_errors_only()
    else:
        return caching.kept_page(
            request,
            _step_kept_by(request, current, assessment),
            lambda extra: _render_step(
                request, assessment, current, _step_form(current, assessment), extra
            ),
            links=[token],
        )
    return _render_step(request, assessment, current, form)


@shared_page
@require_http_methods(["GET", "POST"])
def size_work(request: HttpRequest, token: str) -> HttpResponse:
    """Size the demand from the work (engine/sizing.py): the GPUs a training plan and an
    inference service need, with the arithmetic shown; "use" saves them on the utilization
    step, where they can be changed like any answer."""
    assessment = _get_assessment(token, defer=DRAWN_ONLY)
    form = WorkForm(request.POST if request.method == "POST" else None)
    model = gpus.gpu(assessment.answers.get("gpu_model"))
    gpu_model = model.key
    context: dict[str, Any] = {"token": token, "assessment": assessment, "form": form}
    context["chip"] = model.chip
    context["gpu_name"] = model.label
    if request.method == "POST" and form.is_valid():
        training, inference, _errors = sizing.workload_parse(form.work())
        sized = sizing.size(gpu_model=gpu_model, training=training, inference=inference)
        context["sized"] = report.sizing_shown(sized)
        too_many = questionnaire.QUESTIONS["gpus"].problem(sized.gpus)
        context["too_many"] = too_many
        if request.POST.get("action") == "use" and not too_many:
            step = questionnaire.STEP_BY_SLUG["utilization"]
            # The levels replace the average (they give it): a stale one would contradict.
            mine = {**sized.answers(), "utilization_pct": None}
            # What a service serves, for its per-token price (issue 36); none for training.
            mine["served"] = form.work().get("inference")
            services.assessment_step_save(
                assessment, step=step, mine=mine, base=None, revision=None
            )
            messages.success(
                request,
                _("Sized from the work: %(gpus)s GPUs at the peak, %(base)s around the clock.")
                % {"gpus": sized.gpus, "base": sized.base_gpus},
            )
            return redirect("decider-step", token=token, slug=step.slug)
    return render(request, "decider/size.html", context)


@shared_page
@require_http_methods(["GET", "POST"])
def workloads(request: HttpRequest, token: str) -> HttpResponse:
    """Several workloads decided together (engine/workloads.py): a row each; "use" saves
    them and their pooled demand on the utilization step, "add" gives another row (no
    JavaScript needed), "remove" goes back to one demand."""
    assessment = _get_assessment(token, defer=DRAWN_ONLY)
    step = questionnaire.STEP_BY_SLUG["utilization"]
    action = request.POST.get("action")
    if request.method == "POST" and action == "remove":
        services.assessment_step_save(
            assessment, step=step, mine={"workloads": None}, base=None, revision=None
        )
        messages.success(request, _("One demand again: change it on this step."))
        return redirect("decider-step", token=token, slug=step.slug)
    if request.method != "POST":
        formset = WorkloadFormSet(initial=_workload_rows(assessment.answers))
    elif action == "add":
        data = request.POST.copy()
        try:
            total = int(data.get("form-TOTAL_FORMS") or 0)
        except ValueError:
            pass  # not a count ("abc", "1e9"): the formset says its form data was changed
        else:
            data["form-TOTAL_FORMS"] = str(min(total + 1, MAX_WORKLOADS))
        formset = WorkloadFormSet(data)
    else:
        formset = WorkloadFormSet(request.POST)
        if formset.is_valid() and (saved := _workloads_save(assessment, step, formset)):
            messages.success(request, saved)
            return redirect("decider-step", token=token, slug=step.slug)
    context = {
        "token": token,
        "assessment": assessment,
        "formset": formset,
        "saved": bool(assessment.answers.get("workloads")),
        "can_add": formset.total_form_count() < MAX_WORKLOADS,
    }
    return render(request, "decider/workloads.html", context)


def _workload_rows(answers: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The saved workloads as the form's rows; levels given through the API shown as the
    average and shape they give."""
    latency = questionnaire.QUESTIONS["latency_critical"]
    rows = []
    for item in answers.get("workloads") or []:
        demand = questionnaire.demand_of(item)
        rows.append(
            {
                "name": item["name"],
                "workload": item.get("workload"),
                "residency": item.get("residency"),
                "gpus": item["gpus"],
                "utilization_pct": item.get("utilization_pct")
                or round(demand.utilization * 100, 1),
                "demand_shape": item.get("demand_shape") or demand.shape(),
                "separate": bool(item.get("separate")),
                "growth_pct": item.get("growth_pct"),
                "latency_critical": latency.to_form_value(item.get("latency_critical")),
            }
        )
    return rows


def _workloads_save(assessment: Assessment, step: questionnaire.Step, formset: Any) -> str | None:
    """The rows checked as the answers' `workloads` and, when they pass, saved with their
    pooled demand: the message to show; None with each problem put next to its field."""
    items = formset.workloads()
    raw = {
        key: value
        for key, value in assessment.answers.items()
        # What the workloads set last time goes: the company's kind and residency stay.
        if key
        not in (*questionnaire.WORKLOAD_DEMAND_KEYS, "workloads", "cloud_share_pct", "growth_years")
    }
    checked, errors = validation.answers_validate(
        {**raw, "workloads": items}, providers=services.provider_keys(raw)
    )
    problems = {key: problem for key, problem in errors.items() if key.startswith("workloads")}
    if problems:
        filled = [form for form in formset.forms if form.workload() is not None]
        for key, problem in problems.items():
            rest = key.partition(".")[2]
            number, _dot, field = rest.partition(".")
            form = filled[int(number)] if number.isdigit() and int(number) < len(filled) else None
            if form is None:
                formset._non_form_errors = formset.error_class([problem])
            else:
                form.add_error(field if field in form.fields else None, problem)
        return None
    pooled = {key: checked.get(key) for key in POOLED_KEYS}
    mine = {**pooled, "utilization_pct": None, "demand_shape": None}
    services.assessment_step_save(
        assessment,
        step=step,
        mine={**mine, "workloads": checked["workloads"]},
        base=None,
        revision=None,
    )
    return _("%(count)s workloads in one pool: %(gpus)s GPUs at the peak together.") % {
        "count": len(items),
        "gpus": checked["gpus"],
    }


def _step_kept_by(
    request: HttpRequest, step: questionnaire.Step, assessment: Assessment
) -> tuple[Any, ...]:
    """What a step page as saved shows besides its address and language (caching.kept_page):
    the answers, the currency, and the figures it offers or prefills."""
    parts: list[Any] = ["step", assessment.pk, assessment.revision, assessment.updated_at]
    parts.append(currency_of(request))
    if "gpu_model" in step.keys:
        parts.append(caching.digest(speed_rows()))
    if issubclass(STEP_FORMS[step.slug], FiguresStepForm):
        parts += [assessment.scored_at, Assumption.rows_for_answers(assessment.answers)]
    return tuple(parts)


def _held_back_form(
    request: HttpRequest, step: questionnaire.Step, assessment: Assessment
) -> StepForm:
    """Back with a typed value that is not valid: the valid ones are saved, the step stays,
    with what was typed still in its fields and the message why next to each."""
    drawn = _step_form(step, assessment)
    data = request.POST.copy()
    data["revision"], data["base"] = drawn["revision"].value(), drawn["base"].value()
    form = _step_form(step, assessment, data=data)
    form.is_valid()
    form.keep_typed_errors_only()
    form.add_error(None, _("Not saved yet: correct these answers, or clear them, to go back."))
    return form


def _draft_key(token: str, slug: str) -> str:
    return f"draft:{token_hash(token)[:16]}:{slug}"


def _typed(request: HttpRequest, step: questionnaire.Step, assessment: Assessment) -> dict:
    """The step's fields as they were typed, to show again after the page reloads."""
    names = _step_form(step, assessment).fields
    return {name: request.POST[name] for name in names if name in request.POST}


def _switched(request: HttpRequest) -> bool:
    """Whether the step form was sent by the language or currency switcher's buttons."""
    language, currency = request.POST.get("language"), request.POST.get("currency")
    return language in dict(settings.LANGUAGES) or currency in CURRENCIES


def _switch_apply(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """Remember the language (as Django's set_language does) or the currency chosen."""
    if (currency := request.POST.get("currency")) in CURRENCIES:
        request.session["currency"] = currency
    if (language := request.POST.get("language")) in dict(settings.LANGUAGES):
        response.set_cookie(
            settings.LANGUAGE_COOKIE_NAME,
            language,
            max_age=settings.LANGUAGE_COOKIE_AGE,
            path=settings.LANGUAGE_COOKIE_PATH,
            domain=settings.LANGUAGE_COOKIE_DOMAIN,
            secure=settings.LANGUAGE_COOKIE_SECURE,
            httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            samesite=settings.LANGUAGE_COOKIE_SAMESITE,
        )
    return response


def _after_step(
    request: HtmxHttpRequest,
    token: str,
    assessment: Assessment,
    index: int,
    going_back: bool,
    finish: bool = False,
) -> HttpResponse:
    missing = questionnaire.first_incomplete_step(assessment.answers)
    if going_back:
        target = questionnaire.STEPS[max(index - 1, 0)]
    elif finish and missing is not None:
        target = missing  # "Save and see the result" with a step still unanswered
    elif not finish and index + 1 < len(questionnaire.STEPS):
        target = questionnaire.STEPS[index + 1]
    else:
        url = reverse("decider-result", args=[token])
        return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
    if not request.htmx:
        return redirect("decider-step", token=token, slug=target.slug)
    response = _render_step(request, assessment, target, _step_form(target, assessment))
    response["HX-Push-Url"] = reverse("decider-step", args=[token, target.slug])
    return response


def _render_step(
    request: HtmxHttpRequest,
    assessment: Assessment,
    current: questionnaire.Step,
    form: StepForm,
    extra: dict[str, Any] | None = None,
) -> HttpResponse:
    assert request.resolver_match is not None
    token = request.resolver_match.kwargs["token"]
    context = {
        "assessment": assessment,
        "token": token,
        "step": current,
        "form": form,
        "progress": report.progress(assessment.answers, current),
        "step_number": questionnaire.STEPS.index(current) + 1,
        "is_first": current is questionnaire.STEPS[0],
        "is_last": current is questionnaire.STEPS[-1],
        "can_finish": questionnaire.first_incomplete_step(assessment.answers) is None,
        # The language and currency buttons submit the step form, so what was typed stays.
        "switch_form": "step-form",
        **(extra or {}),
    }
    template = "decider/step.html#swap" if request.htmx else "decider/step.html"
    return render(request, template, context)


# --- the result, for edit and view-only links -------------------------------------


def _links(request: HttpRequest, assessment: Assessment, edit_token: str) -> dict[str, Any]:
    view_token = assessment.view_token(edit_token=edit_token)
    return {
        "edit_url": request.build_absolute_uri(reverse("decider-result", args=[edit_token])),
        "view_url": request.build_absolute_uri(reverse("decider-view", args=[view_token]))
        if view_token
        else None,
    }


@shared_page
@require_GET
@scored_link(defer=DRAWN_ONLY)
def result(request: HttpRequest, assessment: Assessment, token: str, kind: str) -> HttpResponse:
    _remember(request, token, kind=kind)
    rows = Assumption.rows_for_answers(
        assessment.answers
    )  # read once: the key, the form, the notice
    key = caching.scored_key(assessment, currency_of(request))
    kept_by = None if key is None else ("result", key, caching.basis_generation(), rows)

    def draw(extra: dict[str, Any]) -> HttpResponse:
        prices = figures_of(rows, assessment.answers["gpu_model"])
        what_if = _what_if_form(assessment, prices=prices, currency=currency_of(request))
        return _result_page(
            request, assessment, token, kind, what_if=what_if, prices=prices, extra=extra
        )

    return caching.kept_page(request, kept_by, draw, links=_shown_links(assessment, token, kind))


def _shown_links(assessment: Assessment, token: str, kind: str) -> list[str]:
    """The link tokens a page of the assessment shows: its own, and the view link beside
    an edit link."""
    view_token = assessment.view_token(edit_token=token) if kind == "edit" else None
    return [token, *([view_token] if view_token else [])]


@shared_page
@require_GET
@scored_link
def what_if(request: HttpRequest, assessment: Assessment, token: str, kind: str) -> HttpResponse:
    """The result on changed answers, scored with the same rules and figures and not saved."""
    if not request.GET:
        return redirect(f"decider-{'result' if kind == 'edit' else 'view'}", token=token)
    form = _what_if_form(assessment, request.GET, currency=currency_of(request))
    shown = services.assessment_what_if(assessment, form.trial) if form.is_valid() else assessment
    return _result_page(request, shown, token, kind, what_if=form, saved=assessment)


@shared_page
@require_POST
@limits.creates
@scored_link
def save_scenario(
    request: HttpRequest, assessment: Assessment, token: str, kind: str
) -> HttpResponse:
    """Keep a what-if (or, with no changes, the assessment as it is) as a copy of one's own."""
    form = _what_if_form(assessment, request.POST, currency=currency_of(request))
    if not form.is_valid():
        return _result_page(request, assessment, token, kind, what_if=form, saved=assessment)
    name = _("Scenario of %(name)s") % {"name": assessment.name or _("assessment")}
    _copy, edit_token, _view = services.assessment_save_scenario(
        assessment, form.trial, name=name[:NAME_MAX_LENGTH]
    )
    _remember(request, edit_token)
    messages.success(
        request, _("Saved as a scenario with its own links. The original is unchanged.")
    )
    return redirect("decider-result", token=edit_token)


def _what_if_form(
    assessment: Assessment,
    data: Any = None,
    *,
    prices: dict[str, Figure] | None = None,
    currency: str | None = None,
) -> WhatIfForm:
    # The pinned figures before the assessment's own overrides (its answers carry those).
    pinned = services.priced_figures(assessment, current=prices)
    figures = pinned or services.scored_figures(assessment)
    return WhatIfForm(data, answers=assessment.answers, figures=figures, currency=currency)


def _result_page(
    request: HttpRequest,
    shown: Assessment,
    token: str,
    kind: str,
    *,
    what_if: WhatIfForm,
    saved: Assessment | None = None,
    prices: dict[str, Figure] | None = None,
    extra: dict[str, Any] | None = None,
) -> HttpResponse:
    """The result page of `shown`: the saved assessment, or a trial of it (`saved` given);
    `prices`: today's price set for its answers, when the caller has read it; `extra`: more
    context (caching.kept_page's)."""
    trial = saved is not None and shown is not saved
    context = report.result_context(shown, currency=currency_of(request))
    context |= {
        "token": token,
        "kind": kind,
        "can_edit": kind == "edit" and not trial,
        "newer": None if trial else services.newer_basis(shown, prices=prices),
        "what_if": what_if,
        # The form as first drawn is the saved answers and figures: kept with the result.
        "what_if_kept": None if what_if.is_bound else context["kept"],
        "trial": trial,
        "trial_changes": what_if.changed() if trial else [],
    }
    if kind == "edit" and not trial:
        context |= {
            "links": _links(request, shown, token),
            "name_form": NameForm(initial={"name": shown.name}),
        }
    return render(request, "decider/result.html", context | (extra or {}))


def in_language_asked(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """A report link sent on opens as it was sent: `?lang=` (a language the app speaks)
    wins over the reader's browser; `?currency=` does already (currency_of)."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        asked = request.GET.get("lang", "")
        if asked not in dict(settings.LANGUAGES):
            return view(request, *args, **kwargs)
        with translation.override(asked):
            request.LANGUAGE_CODE = asked
            response = view(request, *args, **kwargs)
            # A template response renders later: it must render in the language asked.
            if isinstance(response, SimpleTemplateResponse) and not response.is_rendered:
                response.render()
            return response

    return wrapper


@shared_page
@require_GET
@in_language_asked
@scored_link(defer=DRAWN_ONLY)
def printable(request: HttpRequest, assessment: Assessment, token: str, kind: str) -> HttpResponse:
    key = caching.scored_key(assessment, currency_of(request))
    paper = report.paper_of(request.GET.get("paper"))
    return caching.kept_page(
        request,
        None if key is None else ("report", key, paper),
        lambda extra: render(
            request,
            "decider/report.html",
            report.report_context(
                assessment,
                token=token,
                kind=kind,
                currency=currency_of(request),
                paper=paper,
            )
            | extra,
        ),
        links=_shown_links(assessment, token, kind),
    )


@shared_page
@require_GET
@in_language_asked
@scored_link(defer=DRAWN_ONLY)  # a worker prints the PDF and reads the result itself
def report_pdf(
    request: HtmxHttpRequest, assessment: Assessment, token: str, kind: str
) -> HttpResponse:
    """The PDF when it is stored, else "being prepared" while a worker prints it.

    A browser (it asks for HTML) gets a page that polls this URL (htmx; a refresh without
    JavaScript) and starts the download once the PDF is ready. Any other client (curl,
    scripts: `*/*` or `application/pdf`) gets 202 with Retry-After until it is. Without a
    job queue (`make run`) the PDF is printed inline and comes at once.
    """
    paper = request.GET.get("paper", "a4")
    # What the waiting and failure pages need; the report's own context only for a render.
    context: dict[str, Any] = {"token": token, "kind": kind, "poll_s": pdf.POLL_S}
    context["paper"] = report.paper_of(paper)

    def may_start() -> bool:  # renders started count against the client, polls do not
        return not is_ratelimited(
            request, group="pdf", key="ip", rate=limits.rate("pdf"), increment=True
        )

    try:
        page = pdf.Page(
            kind=kind,
            language=get_language() or "en",
            currency=currency_of(request),
            paper=context["paper"],
        )
        document = pdf.report_pdf(
            assessment, page=page, enqueue=tasks.render_pdf.delay, may_start=may_start
        )
    except pdf.PdfLimited as error:
        raise Ratelimited from error
    except pdf.PdfError:
        context["pdf_failed"] = True
        if request.htmx:  # swapped into the waiting page (htmx swaps no 5xx)
            return render(request, "decider/pdf_preparing.html#status", context)
        return render(request, "decider/pdf_failed.html", context, status=503)
    if request.htmx:
        context["ready"] = document is not None
        response = render(request, "decider/pdf_preparing.html#status", context)
    elif document is None:
        response = render(request, "decider/pdf_preparing.html", context, status=202)
        response["Retry-After"] = str(pdf.POLL_S)
    else:
        response = HttpResponse(document, content_type="application/pdf")
        response["Content-Disposition"] = pdf.content_disposition(assessment.name)
    patch_vary_headers(response, ["Accept", "HX-Request"])
    return response


# --- what an edit link may do -------------------------------------------------------


@shared_page
@require_POST
def rename(request: HttpRequest, token: str) -> HttpResponse:
    assessment = _get_assessment(token)
    form = NameForm(request.POST)
    if form.is_valid():
        assessment.name = form.cleaned_data["name"]
        assessment.save(update_fields=["name", "updated_at"])
        messages.success(request, _("Name saved."))
    else:
        messages.error(request, " ".join(str(error) for error in form.errors["name"]))
    return redirect(reverse("decider-result", args=[token]) + "#share")


@shared_page
@require_POST
@limits.creates
def copy(request: HttpRequest, token: str) -> HttpResponse:
    original = _get_assessment(token)
    name = _("Copy of %(name)s") % {"name": original.name or _("assessment")}
    duplicate, edit_token, _view = services.assessment_copy(original, name=name[:NAME_MAX_LENGTH])
    _remember(request, edit_token)
    messages.success(request, _("This is a copy with its own links. The original is unchanged."))
    return redirect("decider-result", token=edit_token)


@shared_page
@require_POST
def links(request: HttpRequest, token: str) -> HttpResponse:
    """Revoke or replace the view link, or replace the edit link itself.

    What makes a link stop working is done only with `confirm=1`: without it the
    answer is a page that asks (the button's `data-confirm` asks in the browser first).
    """
    assessment = _get_assessment(token)
    action = request.POST.get("action")
    breaks_a_link = action in ("revoke-view", "new-edit") or (
        action == "new-view" and assessment.view_hash
    )
    if breaks_a_link and request.POST.get("confirm") != "1":
        context = {"action": action, "token": token, "assessment": assessment}
        return render(request, "decider/links_confirm.html", context)
    if action not in ("new-view", "revoke-view", "new-edit"):
        messages.error(request, _("Unknown action."))
        return redirect("decider-result", token=token)
    try:
        # Each method writes at once, only if the links are still those read above.
        if action == "new-view":
            assessment.view_link_replace(edit_token=token)
            messages.success(
                request, _("A new view-only link is ready. The old one no longer works.")
            )
        elif action == "revoke-view":
            assessment.view_link_revoke()
            messages.success(request, _("The view-only link is revoked. Nobody can open it now."))
        else:
            old, token = token, assessment.edit_link_replace(edit_token=token)
            _forget(request, old, kind="edit")
            _remember(request, token)
            messages.success(
                request,
                _(
                    "A new edit link is ready; this page now uses it. The old edit link no longer works."
                ),
            )
    except LinksChanged:
        if Assessment.objects.by_token(token, kind="edit") is None:
            # The other change replaced this edit link: it no longer opens anything.
            _forget(request, token, kind="edit")
            messages.error(
                request,
                _(
                    "This edit link was replaced at the same moment in another window and no "
                    "longer works, so this change was not made. Use the new edit link."
                ),
            )
            return redirect("decider-mine")
        messages.error(
            request,
            _(
                "The links were changed at the same moment in another window, so this change "
                "was not made. Check the links below and try again."
            ),
        )
    return redirect(reverse("decider-result", args=[token]) + "#share")


@shared_page
@require_http_methods(["GET", "POST"])
@scored_link
def rescore(request: HttpRequest, assessment: Assessment, token: str, kind: str) -> HttpResponse:
    """Show the result under the current rules and figures next to the saved one; accept on POST."""
    if request.method == "POST":
        services.assessment_score(assessment, refresh=True)
        messages.success(request, _("Re-scored with the current rules and figures."))
        return redirect("decider-result", token=token)
    ruleset, evaluation, _figures = services.assessment_evaluate(
        assessment, refresh=True, odds_seed=services.odds_seed_of(assessment)
    )
    saved = assessment.scoring_result()
    assert saved is not None and assessment.result is not None  # scored by @scored_link
    context = {
        "token": token,
        "assessment": assessment,
        "score_pairs": report.outcome_pairs(saved, evaluation.result),
        "old_version": assessment.ruleset.version if assessment.ruleset else None,
        "new_version": ruleset.version,
        "old_recommendation": outcome_name(assessment.recommendation),
        "new_recommendation": outcome_name(evaluation.result.recommendation),
        "figure_changes": report.figure_changes(
            assessment.result["assumptions"], evaluation.figures
        ),
    }
    return render(request, "decider/rescore.html", context)


def _compare_view_token(token: str) -> str | None:
    """The view token standing for `token` on the compare page (None: an edit link, no view link)."""
    if Assessment.objects.by_token(token, kind="view") is not None:
        return token
    if (edited := Assessment.objects.by_token(token, kind="edit")) is not None:
        return edited.view_token(edit_token=token)
    return token  # unknown or revoked: the page leaves it out


@shared_page
@require_GET
def compare(request: HttpRequest) -> HttpResponse:
    """Two to four assessments side by side, by their view links.

    A compare URL is made to be passed on, so it never carries an edit token: one given
    (an old bookmark) is swapped for its view link by a redirect, or left out when that
    view link is revoked. Only view tokens ever select what the page shows.
    """
    # Tokens are at most 64 characters (TokenConverter); anything longer is no link.
    given = [t for t in request.GET.getlist("a") if 0 < len(t) <= 64]
    tokens = list(dict.fromkeys(given))[:COMPARE_MAX]
    as_view = [_compare_view_token(token) for token in tokens]
    if as_view != tokens:
        query = request.GET.copy()
        query.setlist("a", list(dict.fromkeys(t for t in as_view if t)))
        return redirect(f"{reverse('decider-compare')}?{query.urlencode()}")
    assessments: list[Assessment] = []
    for token in tokens:
        found = Assessment.objects.by_token(token, kind="view")
        if found is None or any(a.pk == found.pk for a in assessments):
            continue
        if questionnaire.first_incomplete_step(found.answers) is None:
            if found.needs_scoring():
                services.assessment_score(found)
            assessments.append(found)
    context = {"recent": _recent(request), "chosen": tokens}
    if len(assessments) >= 2:
        context |= report.compare_context(assessments, currency=currency_of(request))
    elif tokens:
        context["problem"] = _("Choose at least two finished assessments to compare.")
    return render(request, "decider/compare.html", context)


@require_POST
def set_currency(request: HttpRequest) -> HttpResponse:
    currency = request.POST.get("currency")
    if currency in CURRENCIES:
        request.session["currency"] = currency
    next_url = request.POST.get("next", "/")
    # A path on this site, and only that: never a view name (`redirect` would look one up).
    if not next_url.startswith("/") or not url_has_allowed_host_and_scheme(
        next_url, {request.get_host()}
    ):
        next_url = "/"
    return HttpResponseRedirect(next_url)


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """200 "ok" when the database, the cache and the job queue answer; 503 without the
    database (a load balancer stops sending traffic); 200 "degraded: ..." naming what does not
    answer when only Redis is away, as every page and save still works (PDFs wait).

    `decider.middleware.HealthCheckMiddleware` routes here before the Host header is checked.
    """
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except DatabaseError as error:
        log.warning("health check: database unavailable: %s", type(error).__name__)
        return _unhealthy("database unavailable")
    away = [
        what
        for what, answers in (
            ("cache", services.cache_answers),
            ("job queue", services.queue_answers),
        )
        if not answers()
    ]
    text = f"degraded: {' and '.join(away)} unavailable" if away else "ok"
    return HttpResponse(text, content_type="text/plain")


def _unhealthy(what: str) -> HttpResponse:
    response = HttpResponse(what, content_type="text/plain", status=503)
    response["Retry-After"] = "5"
    return response


def rate_limited(request: HttpRequest, exception: Ratelimited) -> HttpResponse:
    """429 for a client over a rate limit: JSON for the API, a page for people."""
    if request.path.startswith("/admin/"):
        name = "login"
    else:
        name = "pdf" if request.path.endswith(".pdf") else "create"
    wait = limits.retry_after(settings.DECIDER_RATES[name])
    message = _("Too many requests from your address. Try again in %(minutes)s minutes.") % {
        "minutes": max(1, round(wait / 60))
    }
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"error": message}, status=429)
    else:
        response = render(request, "429.html", {"message": message}, status=429)
    response["Retry-After"] = str(wait)
    return response
