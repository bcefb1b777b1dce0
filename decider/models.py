from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import connections, models, router
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from decider import caching
from decider.engine import gpus, scoring, tokens, validation
from decider.engine.figures import Figure, figures_select
from decider.engine.markets import DEFAULT_MARKET, MARKETS, market_of
from decider.engine.providers import PRICED as PROVIDER_PRICED
from decider.engine.providers import Provider as EngineProvider
from decider.engine.scoring import SCORE_MAX, SCORE_MIN, Result, result_from_dict
from decider.engine.vocabulary import MODEL_CLASSES
from decider.engine.vocabulary import PROVIDER_KINDS as provider_kinds

SCORE_VALIDATORS = [MinValueValidator(SCORE_MIN), MaxValueValidator(SCORE_MAX)]
NAME_MAX_LENGTH = 120  # an assessment's name


class RuleSet(models.Model):
    version = models.PositiveIntegerField(_("version"), unique=True)
    name = models.CharField(_("name"), max_length=200)
    notes = models.TextField(_("notes"), blank=True)
    is_published = models.BooleanField(_("published"), default=False)
    created_at = models.DateTimeField(_("created"), default=timezone.now)
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    # When a cost lead is decisive (engine/verdict.py; the bands of scoring.RuleBook).
    decisive_gap_pct = models.FloatField(
        _("decisive cost gap (%)"),
        default=scoring.DECISIVE_GAP_PCT,
        validators=[MinValueValidator(1), MaxValueValidator(100)],
        help_text=_(
            "The cheapest allowed option decides on cost when it is ahead of the runner-up by "
            "at least this share of the runner-up's present value…"
        ),
    )
    decisive_probability_pct = models.FloatField(
        _("in at least this share of the draws (%)"),
        default=scoring.DECISIVE_PROBABILITY_PCT,
        validators=[MinValueValidator(50), MaxValueValidator(100)],
        help_text=_(
            "…in at least this share of the odds' draws. Answers marked as overriding cost "
            "still keep a dearer option."
        ),
    )

    history = HistoricalRecords(verbose_name=_("historical rule set"))

    class Meta:
        ordering = ["-version"]
        verbose_name = _("rule set")
        verbose_name_plural = _("rule sets")
        # A right of its own (issue 35): whoever may edit a draft may not make it current.
        permissions = [("publish_ruleset", _("Can publish a rule set"))]

    def __str__(self) -> str:
        return f"v{self.version} {self.name}"

    @classmethod
    def current(cls) -> RuleSet | None:
        """The newest published rule set (kept until a rule is written: decider/caching.py)."""
        return caching.basis_cached(("ruleset",), cls._current)

    @classmethod
    def _current(cls) -> RuleSet | None:
        return cls.objects.filter(is_published=True).order_by("-version").first()

    @classmethod
    def next_version(cls) -> int:
        latest = cls.objects.order_by("-version").values_list("version", flat=True).first()
        return (latest or 0) + 1


class Criterion(models.Model):
    ruleset = models.ForeignKey(
        RuleSet, on_delete=models.CASCADE, related_name="criteria", verbose_name=_("rule set")
    )
    key = models.SlugField(_("key"), max_length=60)
    # Choices come from the questionnaire in the admin form: a new question needs no migration.
    question = models.CharField(_("answer it reads"), max_length=60)
    label_en = models.CharField(_("label (English)"), max_length=200)
    label_zh = models.CharField(_("label (Chinese)"), max_length=200)
    weight = models.FloatField(_("weight"), default=1.0, validators=[MinValueValidator(0)])
    overrides_cost = models.BooleanField(
        _("may override a decisive cost gap"),
        default=False,
        help_text=_(
            "When its answer favours another option, a decisive cost gap does not decide: "
            "this answer carries the dearer option, and the summary says what it costs."
        ),
    )
    order = models.PositiveIntegerField(_("order"), default=0)

    history = HistoricalRecords(verbose_name=_("historical criterion"))

    class Meta:
        ordering = ["ruleset", "order", "id"]
        constraints = [
            models.UniqueConstraint(fields=["ruleset", "key"], name="criterion_key_per_ruleset")
        ]
        verbose_name = _("criterion")
        verbose_name_plural = _("criteria")

    def __str__(self) -> str:
        return self.label_en


class Option(models.Model):
    """An answer value (choices, yes/no) or a numeric band [lower, upper)."""

    criterion = models.ForeignKey(
        Criterion, on_delete=models.CASCADE, related_name="options", verbose_name=_("criterion")
    )
    value = models.CharField(_("answer value"), max_length=60, blank=True)
    lower = models.FloatField(_("from (inclusive)"), null=True, blank=True)
    upper = models.FloatField(_("to (exclusive)"), null=True, blank=True)
    label_en = models.CharField(_("label (English)"), max_length=200)
    label_zh = models.CharField(_("label (Chinese)"), max_length=200)
    score_onprem = models.SmallIntegerField(_("on-prem score"), validators=SCORE_VALIDATORS)
    score_cloud = models.SmallIntegerField(_("cloud score"), validators=SCORE_VALIDATORS)
    score_hybrid = models.SmallIntegerField(_("hybrid score"), validators=SCORE_VALIDATORS)
    score_api = models.SmallIntegerField(
        _("per-token score"),
        default=0,
        validators=SCORE_VALIDATORS,
        help_text=_(
            "For a hosted model paid per token; weighed only for a service sized from what "
            "it serves."
        ),
    )
    reason_en = models.TextField(_("reason (English)"))
    reason_zh = models.TextField(_("reason (Chinese)"))

    history = HistoricalRecords(verbose_name=_("historical answer option"))

    class Meta:
        # NULL (an open lower end) sorts first on every database, so exports match.
        ordering = ["criterion", models.F("lower").asc(nulls_first=True), "id"]
        verbose_name = _("answer option")
        verbose_name_plural = _("answer options")

    def __str__(self) -> str:
        return self.label_en


class Constraint(models.Model):
    ruleset = models.ForeignKey(
        RuleSet, on_delete=models.CASCADE, related_name="constraints", verbose_name=_("rule set")
    )
    key = models.SlugField(_("key"), max_length=60)
    question = models.CharField(_("answer it reads"), max_length=60)
    value = models.CharField(_("when the answer is"), max_length=60)
    outcome = models.CharField(_("outcome"), max_length=10)
    excludes = models.BooleanField(
        _("removes the outcome"),
        default=True,
        help_text=_("Off: the outcome stays possible and shows the reason as a warning."),
    )
    reason_en = models.TextField(_("reason (English)"))
    reason_zh = models.TextField(_("reason (Chinese)"))

    history = HistoricalRecords(verbose_name=_("historical constraint"))

    class Meta:
        verbose_name = _("constraint")
        verbose_name_plural = _("constraints")

    def __str__(self) -> str:
        return self.key


PRICE_COLUMNS = ("name", "gpu_model", "value", "source", "source_zh", "as_of")
PriceRows = tuple[tuple[Any, ...], ...]


def figures_of(rows: PriceRows, gpu_model: str) -> dict[str, Figure]:
    """The figures of `Assumption.price_rows`: model rows win over generic ones."""
    return dict(_figures_of(rows, gpu_model))


@functools.lru_cache(maxsize=128)
def _figures_of(rows: PriceRows, gpu_model: str) -> dict[str, Figure]:
    # Built once per distinct set of rows: Figures are frozen, and callers get a copy.
    return figures_select(
        rows=(dict(zip(PRICE_COLUMNS, row, strict=True)) for row in rows), gpu_model=gpu_model
    )


class SourcedValue(models.Model):
    """A figure's value for one GPU model or all, with its source in both languages and the
    date it was checked: a price set's figure (Assumption) or a provider's price."""

    gpu_model = models.CharField(
        _("GPU model"),
        max_length=20,
        blank=True,
        help_text=_("Empty: applies to every GPU model unless a model-specific row exists."),
    )
    value = models.FloatField(_("value"), validators=[MinValueValidator(0)])
    source = models.TextField(_("source (English)"))
    source_zh = models.TextField(_("source (Chinese)"), blank=True)
    as_of = models.DateField(_("checked on"))

    class Meta:
        abstract = True


class Assumption(SourcedValue):
    """A cost figure's value in one market's price set, with its source and the date it was
    checked. Money is in the market's currency (`decider.engine.markets`).

    What the figure means (label, unit, bounds) is in `decider.engine.figures`.
    """

    market = models.CharField(
        _("market"),
        max_length=10,
        choices=[(key, market.label.en) for key, market in MARKETS.items()],
        default=DEFAULT_MARKET,
        help_text=_("Whose price set this figure belongs to; money is in its currency."),
    )
    name = models.CharField(_("name"), max_length=60)

    history = HistoricalRecords(verbose_name=_("historical cost assumption"))

    class Meta:
        ordering = ["market", "name", "gpu_model"]
        constraints = [
            models.UniqueConstraint(
                fields=["market", "name", "gpu_model"], name="assumption_per_market_and_model"
            )
        ]
        verbose_name = _("cost assumption")
        verbose_name_plural = _("cost assumptions")

    def __str__(self) -> str:
        return f"{self.name} ({self.market}, {self.gpu_model or 'all'})"

    @classmethod
    def price_rows(cls, gpu_model: str, market: str = DEFAULT_MARKET) -> PriceRows:
        """The rows of one market's figures for one GPU model, as stored: what a page that
        shows them is kept by (decider/caching.py), and what `for_gpu_model` reads.

        Read from the database every time: prices change in place (the admin, `manage.py`,
        SQL), with no version to key a cache by.
        """
        # The ORM's SQL, built once: building it and converting three dozen rows cost
        # half a millisecond a page, five times the query (tests/test_caching.py compares).
        sql, params = cls._price_rows_sql()
        with connections[cls.objects.db].cursor() as cursor:
            cursor.execute(sql, [{"market": market, "model": gpu_model}.get(p, p) for p in params])
            return tuple(
                (name, model, float(value), source, source_zh, str(as_of))
                for name, model, value, source, source_zh, as_of in cursor.fetchall()
            )

    @classmethod
    @functools.cache
    def _price_rows_sql(cls) -> tuple[str, tuple[Any, ...]]:
        """The query of price_rows, with "market" and "model" where its values go."""
        rows = cls.objects.filter(market="market", gpu_model__in=["", "model"])
        return rows.values_list(*PRICE_COLUMNS).query.sql_with_params()

    @classmethod
    def speed_rows(cls) -> tuple[tuple[str, str, float], ...]:
        """(gpu_model, name, value) of the speed figures against an H100, in the figures'
        order: what the GPU model choices show (forms.gpu_model_choices)."""
        sql, params = cls._speed_rows_sql()  # built once, as the price rows' query
        with connections[cls.objects.db].cursor() as cursor:
            cursor.execute(sql, params)
            return tuple((model, name, float(value)) for model, name, value in cursor.fetchall())

    @classmethod
    @functools.cache
    def _speed_rows_sql(cls) -> tuple[str, tuple[Any, ...]]:
        speeds = cls.objects.filter(name__in=["perf_train_vs_h100", "perf_infer_vs_h100"])
        return speeds.values_list("gpu_model", "name", "value").query.sql_with_params()

    @classmethod
    def for_gpu_model(cls, gpu_model: str, market: str = DEFAULT_MARKET) -> dict[str, Figure]:
        """Current figures of one market for one GPU model: model rows win over generic ones."""
        return figures_of(cls.price_rows(gpu_model, market), gpu_model)

    @classmethod
    def for_answers(cls, answers: Mapping[str, Any]) -> dict[str, Figure]:
        return figures_of(cls.rows_for_answers(answers), answers["gpu_model"])

    @classmethod
    def rows_for_answers(cls, answers: Mapping[str, Any]) -> PriceRows:
        return cls.price_rows(answers.get("gpu_model") or gpus.DEFAULT, market_of(answers).key)


class Provider(models.Model):
    """A cloud provider the cloud may be priced at, when the answers ask for one
    (decider/engine/providers.py); its list prices are ProviderPrice rows."""

    key = models.SlugField(
        _("key"),
        max_length=40,
        unique=True,
        help_text=_("What the answers name it by (`providers`: allow, exclude)."),
    )
    name = models.CharField(_("name (English)"), max_length=80)
    name_zh = models.CharField(_("name (Chinese)"), max_length=80, blank=True)
    kind = models.CharField(
        _("kind"),
        max_length=20,
        choices=[(key, text.en) for key, text in provider_kinds.items()],
    )
    market = models.CharField(
        _("market"),
        max_length=10,
        choices=[(key, market.label.en) for key, market in MARKETS.items()],
        default=DEFAULT_MARKET,
        help_text=_("Whose price set its prices belong to; money is in its currency."),
    )
    price_page = models.URLField(_("price page"), blank=True)

    history = HistoricalRecords(verbose_name=_("historical provider"))

    class Meta:
        ordering = ["market", "kind", "key"]
        verbose_name = _("cloud provider")
        verbose_name_plural = _("cloud providers")

    def __str__(self) -> str:
        return self.name

    @classmethod
    def keys(cls) -> list[str]:
        return list(cls.objects.values_list("key", flat=True))

    @classmethod
    def listed(cls, market: str) -> list[EngineProvider]:
        """The market's providers with their prices, as the engine reads them."""
        found = cls.objects.filter(market=market).prefetch_related("prices")
        return [
            EngineProvider(
                key=p.key,
                name=p.name,
                name_zh=p.name_zh,
                kind=p.kind,
                market=p.market,
                prices={
                    (row.name, row.gpu_model): Figure(
                        row.name, float(row.value), row.source, str(row.as_of), row.source_zh
                    )
                    for row in p.prices.all()
                },
            )
            for p in found
        ]


class ProviderPrice(SourcedValue):
    """One price a provider publishes, with its source and the date it was checked; in the
    provider's market's currency. Saved assessments keep the prices they were scored with."""

    provider = models.ForeignKey(
        Provider, on_delete=models.CASCADE, related_name="prices", verbose_name=_("provider")
    )
    name = models.CharField(
        _("figure"), max_length=60, choices=[(name, name) for name in PROVIDER_PRICED]
    )

    history = HistoricalRecords(verbose_name=_("historical provider price"))

    class Meta:
        ordering = ["provider", "name", "gpu_model"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "name", "gpu_model"], name="provider_price_per_model"
            )
        ]
        verbose_name = _("provider price")
        verbose_name_plural = _("provider prices")

    def __str__(self) -> str:
        return f"{self.provider.key}: {self.name} ({self.gpu_model or 'all'})"


class TokenPrice(models.Model):
    """A hosted model's list price per million tokens (issue 36), dated and sourced, in the
    provider's currency. Applies to the next assessment scored; a saved one keeps the price it
    was scored with (its result pins it), and the history records each change."""

    provider = models.CharField(_("provider"), max_length=80)
    model = models.CharField(_("model"), max_length=160, help_text=_("As the provider names it."))
    model_class = models.CharField(
        _("model class"),
        max_length=20,
        choices=[(key, text.en) for key, text in MODEL_CLASSES.items()],
    )
    market = models.CharField(
        _("market"),
        max_length=10,
        choices=[(key, market.label.en) for key, market in MARKETS.items()],
        default=DEFAULT_MARKET,
        help_text=_("Whose users may buy at this price: the global market, or mainland China."),
    )
    jurisdiction = models.CharField(
        _("jurisdiction"),
        max_length=10,
        choices=[("intl", _("outside mainland China")), ("cn", _("mainland China"))],
        help_text=_(
            "Where the provider is based; a jurisdiction concern keeps to the market's own."
        ),
    )
    price_in_per_m = models.FloatField(
        _("price per million input tokens"), validators=[MinValueValidator(0)]
    )
    price_out_per_m = models.FloatField(
        _("price per million output tokens"), validators=[MinValueValidator(0)]
    )
    currency = models.CharField(
        _("currency"), max_length=3, choices=[("USD", "USD"), ("CNY", "CNY")], default="USD"
    )
    as_of = models.CharField(
        _("checked on"), max_length=10, help_text=_("The month or day the price was read: 2026-10.")
    )
    source = models.TextField(_("source"), help_text=_("Where the price was read, as found."))

    history = HistoricalRecords(verbose_name=_("historical token price"))

    class Meta:
        ordering = ["market", "model_class", "provider", "model"]
        constraints = [
            models.UniqueConstraint(
                fields=["provider", "model", "market"], name="token_price_per_model"
            )
        ]
        verbose_name = _("token price")
        verbose_name_plural = _("token prices")

    def __str__(self) -> str:
        return f"{self.provider}: {self.model} ({self.market})"

    def engine_price(self) -> tokens.TokenPrice:
        return tokens.TokenPrice(
            provider=self.provider,
            market=self.market,
            model=self.model,
            model_class=self.model_class,
            price_in_per_m=float(self.price_in_per_m),
            price_out_per_m=float(self.price_out_per_m),
            currency=self.currency,
            as_of=self.as_of,
            source=self.source,
            jurisdiction=self.jurisdiction,
        )

    @classmethod
    def listed(cls) -> tuple[tokens.TokenPrice, ...]:
        """Every price, as the engine reads them; a price of zero (a rate-limited free tier)
        is no price to serve production on and is left out (tokens.price_book)."""
        rows = cls.objects.exclude(price_in_per_m=0, price_out_per_m=0)
        return tuple(row.engine_price() for row in rows)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def new_token() -> str:
    """192 random bits, URL-safe (32 characters)."""
    return secrets.token_urlsafe(24)


SEAL_PREFIX = "v2$"
_NONCE_BYTES = 16


def _pad(edit_token: str, nonce: bytes, length: int) -> bytes:
    return hmac.new(edit_token.encode(), b"decider-view-link" + nonce, hashlib.sha256).digest()[
        :length
    ]


def _xor(data: bytes, pad: bytes) -> bytes:
    return bytes(a ^ b for a, b in zip(data, pad, strict=True))


def view_token_seal(view_token: str, *, edit_token: str) -> str:
    """The view token encrypted with a key only edit-link holders have.

    Edit-link holders must be able to see (and copy) the view link again, but
    the database keeps no working link. Each seal draws a fresh random nonce,
    and the pad is HMAC-SHA256(edit token, nonce): no two seals share a pad,
    so sealed values kept from earlier view links reveal nothing about each
    other. The unsealed token is checked against its stored hash.
    """
    raw = view_token.encode()
    nonce = secrets.token_bytes(_NONCE_BYTES)
    sealed = nonce + _xor(raw, _pad(edit_token, nonce, len(raw)))
    return SEAL_PREFIX + base64.urlsafe_b64encode(sealed).decode().rstrip("=")


def view_token_unseal(sealed: str, *, edit_token: str) -> str:
    if not sealed.startswith(SEAL_PREFIX):
        # Sealed before nonces (hex, one fixed pad per edit token): still readable.
        raw = bytes.fromhex(sealed)
        return _xor(raw, _pad(edit_token, b"", len(raw))).decode()
    data = sealed.removeprefix(SEAL_PREFIX)
    data = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
    nonce, raw = data[:_NONCE_BYTES], data[_NONCE_BYTES:]
    return _xor(raw, _pad(edit_token, nonce, len(raw))).decode()


SESSION_SEAL_PREFIX = "s1$"


def session_seal(token: str) -> str:
    """A link token as a browser's session keeps it (issue 49): encrypted with a key only
    the server has (from SECRET_KEY), so the signed cookie, readable in base64, lists no
    working link. A fresh nonce per seal; the pad is HMAC-SHA256 blocks of the key."""
    raw = token.encode()
    nonce = secrets.token_bytes(_NONCE_BYTES)
    sealed = nonce + _xor(raw, _session_pad(nonce, len(raw)))
    return SESSION_SEAL_PREFIX + base64.urlsafe_b64encode(sealed).decode().rstrip("=")


def session_unseal(sealed: str) -> str | None:
    """The token `session_seal` sealed; a plain token kept before sealing is read as it is;
    None for anything else (a cookie signed with another key cannot get here)."""
    if not sealed.startswith(SESSION_SEAL_PREFIX):
        return sealed
    data = sealed.removeprefix(SESSION_SEAL_PREFIX)
    try:
        data_bytes = base64.urlsafe_b64decode(data + "=" * (-len(data) % 4))
        nonce, raw = data_bytes[:_NONCE_BYTES], data_bytes[_NONCE_BYTES:]
        return _xor(raw, _session_pad(nonce, len(raw))).decode()
    except (ValueError, UnicodeDecodeError):
        return None


def _session_pad(nonce: bytes, length: int) -> bytes:
    key = hmac.new(settings.SECRET_KEY.encode(), b"decider-session-links", hashlib.sha256)
    blocks = b""
    counter = 0
    while len(blocks) < length:
        block = key.copy()
        block.update(nonce + counter.to_bytes(4, "big"))
        blocks += block.digest()
        counter += 1
    return blocks[:length]


# What one link change reads and writes back, all together or not at all.
LINK_FIELDS = ("edit_hash", "view_hash", "view_sealed")


class LinksChanged(Exception):
    """Another request changed an assessment's links between reading and writing them."""


class AssessmentQuerySet(models.QuerySet["Assessment"]):
    def by_token(
        self, token: str, *, kind: str, defer: tuple[str, ...] = (), ruleset: bool = True
    ) -> Assessment | None:
        """The assessment whose edit (or view) link is `token`, or None; `defer`: columns
        left in the database until read; `ruleset`: its rule set read along (every scored
        page names the version it was scored with), else read if asked for."""
        # An exact lookup of the hash: timing can only tell hashes apart, never tokens.
        if (
            defer
            and not ruleset
            and not self.query.where
            and self.db == router.db_for_read(Assessment)
        ):
            return _by_hash(token_hash(token), kind, defer)  # every page a link opens
        field = {"edit": "edit_hash", "view": "view_hash"}[kind]
        found = self.defer(*defer).order_by()  # unique: no sort
        if ruleset:
            found = found.select_related("ruleset")
        return next(iter(found.filter(**{field: token_hash(token)})[:1]), None)


def _by_hash(digest: str, kind: str, defer: tuple[str, ...]) -> Assessment | None:
    """by_token's query with the ORM's SQL and converters, built once per kind and deferred
    columns: compiling the query cost more than running it (0.5 ms of a page's 1.5 ms)."""
    alias = router.db_for_read(Assessment)
    sql, names, columns = _by_hash_query(alias, kind, defer)
    connection = connections[alias]
    with connection.cursor() as cursor:
        cursor.execute(sql, [digest])
        row = cursor.fetchone()
    if row is None:
        return None
    values = list(row)
    for i, column in enumerate(columns):
        for convert in connection.ops.get_db_converters(column) + column.get_db_converters(
            connection
        ):
            values[i] = convert(values[i], column, connection)
    return Assessment.from_db(alias, names, values)


@functools.cache
def _by_hash_query(alias: str, kind: str, defer: tuple[str, ...]) -> tuple[str, list[str], list]:
    """The SQL of one assessment by its link hash ("%s"), its columns' names and fields."""
    field = {"edit": "edit_hash", "view": "view_hash"}[kind]
    query = Assessment.objects.using(alias).defer(*defer).order_by()
    compiler = query.filter(**{field: "digest"})[:1].query.get_compiler(alias)
    sql, params = compiler.as_sql()
    assert params == ("digest",), params
    columns = [column for column, _sql, _alias in compiler.select]
    return sql, [column.target.attname for column in columns], columns


class Assessment(models.Model):
    """One questionnaire: answers saved at every step, and the scored result.

    Links carry random tokens; only their SHA-256 is stored, so a database
    leak gives no working link.
    """

    edit_hash = models.CharField(max_length=64, unique=True)
    # Null when the view link has been revoked and not replaced.
    view_hash = models.CharField(max_length=64, unique=True, null=True, blank=True)
    view_sealed = models.CharField(max_length=100, blank=True)
    name = models.CharField(_("name"), max_length=NAME_MAX_LENGTH, blank=True)
    answers = models.JSONField(_("answers"), default=dict, blank=True)
    result = models.JSONField(_("result"), null=True, blank=True)
    ruleset = models.ForeignKey(
        RuleSet, on_delete=models.PROTECT, null=True, blank=True, related_name="assessments"
    )
    revision = models.PositiveIntegerField(default=0)
    # The scored result: `result` holds the snapshot (scores, reasons, figures;
    # tens of kB), the small columns beside it hold the facts lists and the
    # impact preview read for every row. Each fact lives in one of them only.
    recommendation = models.CharField(_("recommendation"), max_length=10, blank=True)
    derived = models.JSONField(default=dict, blank=True)  # answers the app derived
    scored_revision = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)
    scored_at = models.DateTimeField(null=True, blank=True)
    # When one of its links was last opened, written at most once a day (OPENED_EVERY):
    # what retention reads (`manage.py prune`), so an assessment in use is never removed.
    opened_at = models.DateTimeField(null=True, blank=True)
    OPENED_EVERY = timedelta(days=1)

    # Everything a scored result consists of: saved together, copied together.
    SCORED_FIELDS = (
        "ruleset",
        "result",
        "recommendation",
        "derived",
        "scored_revision",
        "scored_at",
    )

    objects = AssessmentQuerySet.as_manager()

    class Meta:
        ordering = ["-updated_at"]
        # What the admin list and "My assessments" sort by.
        indexes = [
            models.Index(fields=["-updated_at"], name="assessment_updated"),
            models.Index(fields=["opened_at"], name="assessment_opened"),
        ]
        verbose_name = _("assessment")
        verbose_name_plural = _("assessments")

    def __str__(self) -> str:
        return self.name or f"#{self.pk}"

    @classmethod
    def create_with_links(cls, **fields: Any) -> tuple[Assessment, str, str]:
        edit_token, view_token = new_token(), new_token()
        if "answers" in fields:  # stored as every path stores them: blanks absent
            fields["answers"] = validation.answers_settled(fields["answers"])
        assessment = cls.objects.create(
            edit_hash=token_hash(edit_token),
            view_hash=token_hash(view_token),
            view_sealed=view_token_seal(view_token, edit_token=edit_token),
            **fields,
        )
        return assessment, edit_token, view_token

    def mark_opened(self) -> None:
        """One of its links was opened: recorded for retention, once a day at most (an
        UPDATE of that column alone: neither `updated_at` nor a kept page moves)."""
        now = timezone.now()
        if self.opened_at is not None and now - self.opened_at < self.OPENED_EVERY:
            return
        Assessment.objects.filter(pk=self.pk).update(opened_at=now)
        self.opened_at = now

    def view_link_replace(self, *, edit_token: str) -> str:
        """A new view token, saved; the old view link stops working. LinksChanged if lost."""
        view_token = new_token()
        self._links_write(
            view_hash=token_hash(view_token),
            view_sealed=view_token_seal(view_token, edit_token=edit_token),
        )
        return view_token

    def view_link_revoke(self) -> None:
        """Saved at once; LinksChanged if another request changed the links first."""
        self._links_write(view_hash=None, view_sealed="")

    def edit_link_replace(self, *, edit_token: str) -> str:
        """A new edit token, saved (the view link is kept, sealed again with the new one)."""
        view_token = self.view_token(edit_token=edit_token)
        new_edit = new_token()
        self._links_write(
            edit_hash=token_hash(new_edit),
            view_sealed=view_token_seal(view_token, edit_token=new_edit) if view_token else "",
        )
        return new_edit

    def _links_write(self, **links: Any) -> None:
        """One compare-and-set write: only if the row still has the links this copy read.

        Each link change reads the links and writes them back. Without the check, a
        "new edit link" that read the row before a revoke committed would write the
        revoked view link back (the audit saw it in 29 of 57 trials). The filtered
        UPDATE is atomic in PostgreSQL (the WHERE is re-checked on the locked row)
        and in SQLite (one writer at a time).
        """
        now = timezone.now()
        read = {field: getattr(self, field) for field in LINK_FIELDS}
        written = type(self).objects.filter(pk=self.pk, **read).update(**links, updated_at=now)
        if not written:
            raise LinksChanged(self.pk)
        for field, value in links.items():
            setattr(self, field, value)
        self.updated_at = now

    def view_token(self, *, edit_token: str) -> str | None:
        """The current view link's token, recovered with the edit token."""
        if not self.view_hash or not self.view_sealed:
            return None
        token = view_token_unseal(self.view_sealed, edit_token=edit_token)
        return token if hmac.compare_digest(token_hash(token), self.view_hash) else None

    def scoring_result(self) -> Result | None:
        if not self.result:
            return None
        return result_from_dict(
            {**self.result["scoring"], "recommendation": self.recommendation or None}
        )

    def needs_scoring(self) -> bool:
        """True when the answers changed since the result was saved."""
        if self.scored_revision != self.revision:
            return True
        if "result" in self.get_deferred_fields():
            return self.scored_at is None  # a result is saved with its time (SCORED_FIELDS)
        return not self.result


class ReportPdf(models.Model):
    """A rendered PDF report, cached per assessment version, language, currency and paper."""

    assessment = models.ForeignKey(Assessment, on_delete=models.CASCADE, related_name="pdfs")
    key = models.CharField(max_length=64, unique=True)
    pdf = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("PDF report")
        verbose_name_plural = _("PDF reports")

    def __str__(self) -> str:
        return f"PDF of {self.assessment} ({self.created_at:%Y-%m-%d %H:%M})"


class Publication(models.Model):
    """Who made a rule set the current one, when, and the impact preview they saw.

    `published_by` is the admin who published; a `manage.py` command publishes as the
    operator and names itself in `operator`. `impact` is the preview on the page the
    publisher confirmed (None when none was shown: an import published at once, a command).
    """

    ruleset = models.OneToOneField(RuleSet, on_delete=models.CASCADE, related_name="publication")
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("published by"),
    )
    operator = models.CharField(_("command"), max_length=100, blank=True)
    published_at = models.DateTimeField(_("published at"), default=timezone.now)
    previous_version = models.PositiveIntegerField(_("version it replaced"), null=True, blank=True)
    impact = models.JSONField(_("impact preview seen"), null=True, blank=True)

    class Meta:
        verbose_name = _("publication")
        verbose_name_plural = _("publications")

    def __str__(self) -> str:
        return f"{self.ruleset} published by {self.published_by or self.operator or '?'}"


class ImpactPreview(models.Model):
    """What publishing a draft rule set would change, computed once by a worker and kept.

    `digest` names the draft as it was when the preview was asked for: an edit to the
    draft makes a new preview, looking again makes none.
    """

    QUEUED, DONE, FAILED = "queued", "done", "failed"

    ruleset = models.OneToOneField(RuleSet, on_delete=models.CASCADE, related_name="impact_preview")
    digest = models.CharField(max_length=64)
    state = models.CharField(
        max_length=10,
        choices=[(QUEUED, _("being computed")), (DONE, _("done")), (FAILED, _("failed"))],
        default=QUEUED,
    )
    impact = models.JSONField(null=True, blank=True)
    error = models.TextField(blank=True)
    queued_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("impact preview")
        verbose_name_plural = _("impact previews")

    def __str__(self) -> str:
        return f"impact preview of {self.ruleset} ({self.state})"


class FigureChange(models.Model):
    """A change to a live figure (a price set's figure, a provider, a provider's price, a
    per-token price), made current only by someone with the right to publish (issue 49).

    Live figures apply to the next assessment scored, as a published rule set does, so they
    change as rule sets do: an edit in the admin by someone without the publish right (or,
    under a second pair of eyes, by anyone) waits here, the live row untouched, until a
    publisher other than its author makes it current (decider/figure_changes.py). `values`:
    the fields it sets (every field of a row it adds); `before`: the row's fields when it was
    proposed, so that a change made stale by another is refused rather than applied over it.
    """

    WAITING, PUBLISHED, DISCARDED = "waiting", "published", "discarded"
    ADD, CHANGE, DELETE = "add", "change", "delete"
    MODELS = ("assumption", "provider", "providerprice", "tokenprice")

    model = models.CharField(_("what"), max_length=20, choices=[(m, m) for m in MODELS])
    object_id = models.PositiveIntegerField(_("row"), null=True, blank=True)
    action = models.CharField(
        _("action"),
        max_length=10,
        choices=[(ADD, _("add")), (CHANGE, _("change")), (DELETE, _("delete"))],
    )
    values = models.JSONField(_("new values"), default=dict, blank=True)
    before = models.JSONField(_("values before"), default=dict, blank=True)
    summary = models.CharField(_("change"), max_length=300, blank=True)
    state = models.CharField(
        _("state"),
        max_length=10,
        default=WAITING,
        choices=[
            (WAITING, _("waiting for a publisher")),
            (PUBLISHED, _("published")),
            (DISCARDED, _("discarded")),
        ],
    )
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        related_name="+",
        verbose_name=_("proposed by"),
    )
    proposed_at = models.DateTimeField(_("proposed at"), default=timezone.now)
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        verbose_name=_("published by"),
    )
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    # An import's draft (decider/price_import.py): the changes one run proposed.
    price_import = models.ForeignKey(
        "PriceImport",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="changes",
        verbose_name=_("proposed by the import"),
    )
    # A move larger than the import's threshold: approved one by one, never with the draft.
    large_move = models.BooleanField(_("large move"), default=False)

    class Meta:
        ordering = ["-proposed_at"]
        verbose_name = _("figure change")
        verbose_name_plural = _("figure changes")

    def __str__(self) -> str:
        return self.summary or f"{self.action} {self.model} {self.object_id or ''}".strip()


class PriceImport(models.Model):
    """One run of `manage.py refresh_prices` for one source (decider/price_import.py): what it
    read, what it refused and why, and the changes it proposed (its draft: FigureChanges that
    wait for a publisher). A run that failed says why, and changed nothing."""

    OK, FAILED = "ok", "failed"

    source = models.CharField(_("source"), max_length=20)
    provider = models.CharField(_("provider"), max_length=40, blank=True)
    url = models.TextField(_("read from"))
    started_at = models.DateTimeField(_("started"), default=timezone.now)
    observed_at = models.DateTimeField(_("prices observed at"))
    state = models.CharField(
        _("state"),
        max_length=10,
        default=OK,
        choices=[(OK, _("read")), (FAILED, _("failed: nothing changed"))],
    )
    error = models.TextField(_("why it failed"), blank=True)
    read = models.PositiveIntegerField(_("rows read"), default=0)
    report = models.JSONField(_("report"), default=dict, blank=True)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("price import")
        verbose_name_plural = _("price imports")

    def __str__(self) -> str:
        what = f"{self.source}:{self.provider}" if self.provider else self.source
        return f"{what} {self.started_at:%Y-%m-%d %H:%M} ({self.state})"


class PriceObservation(models.Model):
    """One price a source published, normalised (per GPU-hour, by tier) and kept apart from
    the live prices: history is kept, nothing is overwritten. The live ProviderPrice moves
    only through a published FigureChange."""

    price_import = models.ForeignKey(
        PriceImport, on_delete=models.CASCADE, related_name="observations"
    )
    source = models.CharField(_("source"), max_length=20)
    source_url = models.TextField(_("source address"))
    provider = models.CharField(_("provider"), max_length=40)
    sku = models.CharField(_("SKU"), max_length=120)
    region = models.CharField(_("region"), max_length=60, blank=True)
    gpu_model = models.CharField(_("GPU model"), max_length=20)
    gpu_count = models.PositiveSmallIntegerField(_("GPUs"))
    tier = models.CharField(_("tier"), max_length=20)
    price_per_gpu_hour = models.FloatField(_("price per GPU-hour"))
    currency = models.CharField(_("currency"), max_length=3)
    observed_at = models.DateTimeField(_("observed at"))
    raw = models.JSONField(_("row as read"))

    class Meta:
        ordering = ["-observed_at", "provider", "gpu_model", "tier", "region"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "provider", "sku", "region", "tier", "observed_at"],
                name="one_observation_per_row_and_time",
            )
        ]
        verbose_name = _("price observation")
        verbose_name_plural = _("price observations")

    def __str__(self) -> str:
        return f"{self.provider} {self.sku} {self.region} {self.tier}: {self.price_per_gpu_hour:g}"
