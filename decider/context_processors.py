from django.http import HttpRequest


def preferences(request: HttpRequest) -> dict:
    from decider.engine.markets import CURRENCIES
    from decider.views import currency_of

    return {"currency": currency_of(request), "currencies": CURRENCIES}
