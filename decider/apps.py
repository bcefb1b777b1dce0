from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class DeciderConfig(AppConfig):
    name = "decider"
    verbose_name = _("Decider")
    default_auto_field = "django.db.models.BigAutoField"
