from django.apps import AppConfig
from django.db.models.signals import post_migrate


class SeasonsConfig(AppConfig):
    name = "seasons"
    verbose_name = "KORT seasons"

    def ready(self):
        post_migrate.connect(_season_one, sender=self)


def _season_one(sender, using, **kwargs):
    """After ``migrate`` (and after a ``flush``, which empties the table), the ladder has its
    first season: KORT_RULES §10, "season 1 starts with the service". A database with history
    got it from the migration ``matches.0012``, starting at its earliest match."""
    from django.db import connections

    from seasons.models import Season
    from seasons.services import season_one_open

    with connections[using].cursor() as cursor:
        tables = connections[using].introspection.table_names(cursor)
    if Season._meta.db_table in tables:
        season_one_open(using=using)
