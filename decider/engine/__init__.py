"""The pure core: the questionnaire, the rule engine, the cost model and what they share.

Nothing here imports Django (a test imports this package where Django cannot
be imported). Plain data in, plain data out: the ORM side lives in
`decider.services`, the HTTP side in views, API and forms. Text meant for
people is translated through `decider.engine.i18n`, which the Django app
connects to its own translations when it starts.
"""
