"""A depreciation period is 0 (never replaced) or at least a year, in whole months (issue 49).

Before, anything from 0 to 20 years was accepted, and a tiny period ran the refresh loop
millions of times a scoring: the assessment that held one never opened again. A saved
override outside the new bounds is set to the nearest period inside them (at least a year,
rounded to the month), and the assessment's revision moves on so its result is scored
again on its next view, with the same pinned rules and prices. A price set's own figure
is mended the same way.
"""

from django.db import migrations

MIN_YEARS, MAX_YEARS = 1.0, 20.0


def mended_years(years):
    """The period inside the bounds nearest `years`, or None when it is inside already."""
    if isinstance(years, bool) or not isinstance(years, int | float) or years == 0:
        return None  # 0: never replaced, as before
    months = round(years * 12) if years == years and abs(years) != float("inf") else 12
    mended = min(max(months / 12, MIN_YEARS), MAX_YEARS)
    return None if mended == years else mended


def mend(apps, schema_editor):
    alias = schema_editor.connection.alias
    Assessment = apps.get_model("decider", "Assessment")
    assessments = Assessment.objects.using(alias)
    for row in assessments.only("pk", "answers", "revision").iterator(chunk_size=500):
        figures = row.answers.get("costs") if isinstance(row.answers, dict) else None
        if not isinstance(figures, dict) or "depreciation_years" not in figures:
            continue
        years = mended_years(figures["depreciation_years"])
        if years is not None:
            answers = {**row.answers, "costs": {**figures, "depreciation_years": years}}
            assessments.filter(pk=row.pk).update(answers=answers, revision=row.revision + 1)
    Assumption = apps.get_model("decider", "Assumption")
    for figure in Assumption.objects.using(alias).filter(name="depreciation_years"):
        years = mended_years(figure.value)
        if years is not None:
            Assumption.objects.using(alias).filter(pk=figure.pk).update(value=years)


class Migration(migrations.Migration):
    dependencies = [("decider", "0019_answers_without_blanks")]

    operations = [migrations.RunPython(mend, migrations.RunPython.noop)]
