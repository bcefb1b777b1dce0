from django.http import HttpRequest


def preferences(request: HttpRequest) -> dict:
    from decider.views import CURRENCIES, currency_of

    return {"currency": currency_of(request), "currencies": CURRENCIES}
