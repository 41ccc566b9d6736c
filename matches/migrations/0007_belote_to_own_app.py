"""Bazar Belote score sheets move to the ``belote`` app (its ``0001_initial`` takes them over).

State only: the tables and their rows stay. The content types of the two models are relabelled,
so their permissions (and the groups and users holding them) and the admin's history follow the
models instead of going stale.
"""

from django.db import migrations

BELOTE_MODELS = ['beloteprotocol', 'belotedeal']


def relabel_content_types(from_app, to_app):
    def relabel(apps, schema_editor):
        ContentType = apps.get_model('contenttypes', 'ContentType')
        ContentType.objects.using(schema_editor.connection.alias).filter(
            app_label=from_app, model__in=BELOTE_MODELS
        ).update(app_label=to_app)

    return relabel


class Migration(migrations.Migration):

    dependencies = [
        ('contenttypes', '0002_remove_content_type_name'),
        ('matches', '0006_bavan_vote_opening_play'),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            state_operations=[
                migrations.DeleteModel(name='BeloteDeal'),
                migrations.DeleteModel(name='BeloteProtocol'),
            ],
        ),
        migrations.RunPython(
            relabel_content_types('matches', 'belote'), relabel_content_types('belote', 'matches')
        ),
    ]
