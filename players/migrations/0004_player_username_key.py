# Usernames in any script (API.md "Players"): each player stores the case-folded form of their
# username (players.usernames.username_key), which 0005 makes unique in place of the
# lower-cased index: lower() misses Unicode's case pairs (STRASSE and straße) and SQLite's
# lower() knows ASCII only. Existing names that fold to one stop the migration with their ids.

import unicodedata

from django.db import migrations, models


def username_key(name):
    # players.usernames.username_key as of this migration.
    return unicodedata.normalize('NFKC', unicodedata.normalize('NFKC', name).casefold())


def fill_username_keys(apps, schema_editor):
    players = apps.get_model('players', 'Player').objects.db_manager(schema_editor.connection.alias)
    holders = {}
    for player in players.only('id', 'username').order_by('id').iterator():
        key = username_key(player.username)
        holders.setdefault(key, []).append(player.pk)
        players.filter(pk=player.pk).update(username_key=key)
    clashes = {key: ids for key, ids in holders.items() if len(ids) > 1}
    if clashes:
        listed = '; '.join(f'{key!r}: players {ids}' for key, ids in sorted(clashes.items()))
        raise RuntimeError(
            'usernames that are one name ignoring case (Unicode case folding) must be renamed '
            f'in the admin before this migration: {listed}'
        )


class Migration(migrations.Migration):

    dependencies = [
        ('players', '0003_player_board_season'),
    ]

    operations = [
        migrations.RemoveConstraint(model_name='player', name='username_unique_ignoring_case'),
        migrations.AddField(
            model_name='player',
            name='username_key',
            field=models.CharField(editable=False, max_length=120, null=True),
        ),
        migrations.RunPython(fill_username_keys, migrations.RunPython.noop),
    ]
