from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The players' web pages (API.md "Players' pages"): the top layer, over the selectors of
    the other apps; only the project's URLs import it."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "pages"
