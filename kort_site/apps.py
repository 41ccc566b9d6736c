from django.apps import AppConfig


class KortSiteConfig(AppConfig):
    name = "kort_site"
    verbose_name = "KORT Ladder site"

    def ready(self):
        from kort_site import checks  # noqa: F401  (registers the deploy checks)
