from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import get_language
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect
from django_htmx.middleware import HtmxDetails

from decider import answers as questionnaire
from decider import report
from decider.forms import STEP_FORMS, BudgetForm, StartForm, StepForm
from decider.models import Assessment, Assumption
from decider.personas import PRESETS
from decider.services import assessment_score

CURRENCIES = ("USD", "CNY")
RECENT_LIMIT = 20


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _get_editable(token: str) -> Assessment:
    assessment = Assessment.objects.by_token(token, kind="edit")
    if assessment is None:
        raise Http404("No assessment at this link.")
    return assessment


def _remember(request: HttpRequest, edit_token: str) -> None:
    """Keep the link in this browser's (signed cookie) session for 'my assessments'."""
    recent = [t for t in request.session.get("assessments", []) if t != edit_token]
    request.session["assessments"] = [edit_token, *recent][:RECENT_LIMIT]


def currency_of(request: HttpRequest) -> str:
    chosen = request.session.get("currency")
    if chosen in CURRENCIES:
        return chosen
    return "CNY" if (get_language() or "").startswith("zh") else "USD"


@require_http_methods(["GET", "POST"])
def home(request: HttpRequest) -> HttpResponse:
    form = StartForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        preset = PRESETS.get(form.cleaned_data["preset"])
        answers = dict(preset["answers"]) if preset else {}
        assessment, edit_token, _view_token = Assessment.create_with_links(answers=answers)
        _remember(request, edit_token)
        return redirect("decider-step", token=edit_token, slug=questionnaire.STEPS[0].slug)
    return render(request, "decider/home.html", {"form": form, "presets": PRESETS})


def _step_form(step: questionnaire.Step, assessment: Assessment, data=None) -> StepForm:
    initial = {
        key: questionnaire.QUESTIONS[key].to_form_value(assessment.answers[key])
        for key in step.keys
        if key in assessment.answers
    }
    form_class = STEP_FORMS[step.slug]
    if form_class is BudgetForm:
        gpu_model = assessment.answers.get("gpu_model", "h100")
        return BudgetForm(
            data,
            initial=initial,
            assumptions=Assumption.for_gpu_model(gpu_model),
            overrides=assessment.answers.get("costs", {}),
        )
    return form_class(data, initial=initial)


def _save_step(assessment: Assessment, form: StepForm) -> None:
    """Record the step's valid answers. Invalid fields keep their previous answer."""
    form.is_valid()
    answers = {**assessment.answers, **form.answers()}
    if isinstance(form, BudgetForm) and not form.errors:
        if overrides := form.cost_overrides():
            answers["costs"] = overrides
        else:
            answers.pop("costs", None)
    if answers != assessment.answers:
        assessment.answers = answers
        assessment.result = None  # re-scored when the result is next shown
        assessment.revision += 1
        assessment.save()


@require_http_methods(["GET", "POST"])
def step(request: HtmxHttpRequest, token: str, slug: str) -> HttpResponse:
    assessment = _get_editable(token)
    current = questionnaire.STEP_BY_SLUG.get(slug)
    if current is None:
        raise Http404("No such step.")
    index = questionnaire.STEPS.index(current)

    if request.method == "POST":
        form = _step_form(current, assessment, data=request.POST)
        going_back = "back" in request.POST
        if going_back or form.is_valid():
            _save_step(assessment, form)
            if going_back:
                target = questionnaire.STEPS[max(index - 1, 0)]
            elif index + 1 < len(questionnaire.STEPS):
                target = questionnaire.STEPS[index + 1]
            else:
                target = None
            if target is None:
                url = reverse("decider-result", args=[token])
                return HttpResponseClientRedirect(url) if request.htmx else redirect(url)
            if not request.htmx:
                return redirect("decider-step", token=token, slug=target.slug)
            response = _render_step(request, assessment, target, _step_form(target, assessment))
            response["HX-Push-Url"] = reverse("decider-step", args=[token, target.slug])
            return response
    else:
        form = _step_form(current, assessment)
    return _render_step(request, assessment, current, form)


def _render_step(
    request: HtmxHttpRequest, assessment: Assessment, current: questionnaire.Step, form: StepForm
) -> HttpResponse:
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
    }
    template = "decider/step.html#swap" if request.htmx else "decider/step.html"
    return render(request, template, context)


@require_GET
def result(request: HttpRequest, token: str) -> HttpResponse:
    assessment = _get_editable(token)
    missing = questionnaire.first_incomplete_step(assessment.answers)
    if missing is not None:
        return redirect("decider-step", token=token, slug=missing.slug)
    if assessment.result is None:
        assessment_score(assessment)
    _remember(request, token)
    context = report.result_context(assessment, currency=currency_of(request))
    context["token"] = token
    return render(request, "decider/result.html", context)


@require_POST
def set_currency(request: HttpRequest) -> HttpResponse:
    currency = request.POST.get("currency")
    if currency in CURRENCIES:
        request.session["currency"] = currency
    next_url = request.POST.get("next", "/")
    if not url_has_allowed_host_and_scheme(next_url, {request.get_host()}):
        next_url = "/"
    return redirect(next_url)


@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    return HttpResponse("ok", content_type="text/plain")
