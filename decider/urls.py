from django.contrib import admin
from django.urls import include, path

from decider import views

urlpatterns = [
    path("", views.home, name="decider-home"),
    path("a/<str:token>/step/<slug:slug>/", views.step, name="decider-step"),
    path("a/<str:token>/", views.result, name="decider-result"),
    path("currency/", views.set_currency, name="decider-currency"),
    path("healthz", views.healthz, name="decider-healthz"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("admin/", admin.site.urls),
]
