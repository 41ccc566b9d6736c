# The Player model now lives in the players app: it leaves this app's state, once every
# foreign key points at its new place; its table and rows stay.

from django.db import migrations


class Migration(migrations.Migration):

    dependencies = [
        ('matches', '0008_seat_player_in_players_app'),
        ('ranking', '0003_cupchange_player_in_players_app'),
        ('stats', '0002_playerstats_player_in_players_app'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[migrations.DeleteModel(name='Player')],
            database_operations=[],
        ),
    ]
