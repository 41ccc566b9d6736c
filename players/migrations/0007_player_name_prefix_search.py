# The leaderboard's search by prefix of a username or a display name, ignoring case in any
# script (API.md "Players' pages"): each player stores their display name case-folded as
# usernames are (players.usernames.username_key), filled here for the players already stored,
# and both folded names get an index PostgreSQL can answer a LIKE 'prefix%' from.

import unicodedata

import players.models
from django.conf import settings
from django.db import migrations, models

BATCH = 2000


def folded(name):
    # players.usernames.username_key as of this migration.
    return unicodedata.normalize('NFKC', unicodedata.normalize('NFKC', name).casefold())


def fill_display_name_keys(apps, schema_editor):
    Player = apps.get_model('players', 'Player')
    players = Player.objects.db_manager(schema_editor.connection.alias)
    batch = []
    for player in players.only('id', 'display_name').order_by('id').iterator(chunk_size=BATCH):
        player.display_name_key = folded(player.display_name)
        batch.append(player)
        if len(batch) == BATCH:
            players.bulk_update(batch, ['display_name_key'])
            batch = []
    if batch:
        players.bulk_update(batch, ['display_name_key'])


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0006_player_tokens'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='player',
            name='display_name_key',
            field=players.models.DisplayNameKeyField(default='', editable=False, help_text='The display name case-folded (as usernames are): what a search by display name compares.', max_length=320),
        ),
        migrations.RunPython(fill_display_name_keys, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name='player',
            index=models.Index(fields=['username_key'], name='username_key_prefix', opclasses=['varchar_pattern_ops']),
        ),
        migrations.AddIndex(
            model_name='player',
            index=models.Index(fields=['display_name_key'], name='display_name_key_prefix', opclasses=['varchar_pattern_ops']),
        ),
    ]
