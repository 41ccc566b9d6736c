# Season 1 (KORT_RULES §10) starts when the earliest stored match was created (now, on an empty
# database) and lasts one calendar month; every match already over was completed in it.

from django.db import migrations
from django.utils import timezone

from seasons.dates import one_month_after


def season_one(apps, schema_editor):
    alias = schema_editor.connection.alias
    season_model = apps.get_model('seasons', 'Season')
    match_model = apps.get_model('matches', 'Match')
    earliest = match_model.objects.using(alias).order_by('created_at').values_list('created_at', flat=True).first()
    start = earliest or timezone.now()
    season_model.objects.using(alias).get_or_create(
        number=1,
        defaults={'name': 'Season 1', 'starts_at': start, 'ends_at': one_month_after(start)},
    )
    match_model.objects.using(alias).exclude(status='in_progress').update(season=1)


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0011_match_season_and_void'),
        ('seasons', '0001_initial'),
    ]

    operations = [
        migrations.RunPython(season_one, migrations.RunPython.noop),
    ]
