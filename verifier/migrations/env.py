"""Alembic environment: runs on the connection verifier.database hands over (no alembic.ini)."""

from alembic import context

from verifier.models import METADATA

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=METADATA, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
