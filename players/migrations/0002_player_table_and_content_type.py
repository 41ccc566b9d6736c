# The moved Player model gets its own app's table name (players_player; constraints, indexes and
# rows stay), and its content type follows it, so the permissions and admin history that point
# at the content type stay attached.

from django.db import migrations


def content_type_mover(from_app, to_app):
    """A RunPython step moving the player content type from one app label to the other. A
    content type already made for the new label (by a migrate that stopped between the steps)
    gives way to the one holding the permissions."""

    def move(apps, schema_editor):
        content_types = apps.get_model('contenttypes', 'ContentType').objects.db_manager(
            schema_editor.connection.alias
        )
        old = content_types.filter(app_label=from_app, model='player')
        if old.exists():
            content_types.filter(app_label=to_app, model='player').delete()
            old.update(app_label=to_app)

    return move


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('players', '0001_initial'),
        ('ranking', '0004_player_moved_to_players_app'),
    ]

    operations = [
        migrations.AlterModelTable(name='player', table=None),
        migrations.RunPython(
            content_type_mover('ranking', 'players'), content_type_mover('players', 'ranking')
        ),
    ]
