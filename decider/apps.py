from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DeciderConfig(AppConfig):
    name = "decider"
    verbose_name = _("Decider")
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.utils.translation import gettext

        from decider.engine import i18n

        # The pure engine translates its messages with the language of the request.
        i18n.install(gettext)
        self._watch_the_basis()

    def _watch_the_basis(self) -> None:
        """Rule books are kept in the cache until a rule is written (decider/caching.py)."""
        from django.db.models.signals import post_delete, post_save

        from decider import caching

        for name in ("RuleSet", "Criterion", "Option", "Constraint"):
            model = self.get_model(name)
            post_save.connect(caching.basis_changed, sender=model, dispatch_uid=f"basis-{name}")
            post_delete.connect(caching.basis_changed, sender=model, dispatch_uid=f"basis-{name}-")
