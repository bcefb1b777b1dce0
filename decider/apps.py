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
