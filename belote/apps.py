from django.apps import AppConfig


class BeloteConfig(AppConfig):
    name = "belote"
    verbose_name = "Bazar Belote"
