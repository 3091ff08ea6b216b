"""Initial schema: acts, aliases, articles, provisions, cases, coverage, audit log.

Revision ID: 0001
Revises:
"""

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "acts",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("law_id", sa.String(16), nullable=False, unique=True),
        sa.Column("mst", sa.Integer()),
        sa.Column("name", sa.String(200), nullable=False, index=True),
        sa.Column("abbreviation", sa.String(100)),
        sa.Column("kind", sa.String(40)),
        sa.Column("promulgated_on", sa.Date()),
        sa.Column("effective_on", sa.Date()),
        sa.Column("status", sa.String(20)),
        sa.Column("source", sa.String(40), nullable=False),
    )
    op.create_table(
        "act_aliases",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("alias", sa.String(200), nullable=False, index=True),
        sa.Column("act_id", sa.Integer(), sa.ForeignKey("acts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("official", sa.Boolean(), nullable=False),
        sa.UniqueConstraint("alias", "act_id"),
    )
    op.create_table(
        "articles",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("act_id", sa.Integer(), sa.ForeignKey("acts.id", ondelete="CASCADE"), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("branch", sa.Integer(), nullable=False),
        sa.Column("title", sa.String(300)),
        sa.Column("status", sa.String(10), nullable=False),
        sa.Column("moved_to", sa.String(40)),
        sa.Column("effective_on", sa.Date()),
        sa.Column("amended_on", sa.Date()),
        sa.UniqueConstraint("act_id", "number", "branch"),
    )
    op.create_table(
        "provisions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("act_id", sa.Integer(), nullable=False),
        sa.Column("article", sa.Integer(), nullable=False),
        sa.Column("article_branch", sa.Integer(), nullable=False),
        sa.Column("paragraph", sa.Integer(), nullable=False),
        sa.Column("item", sa.Integer(), nullable=False),
        sa.Column("item_branch", sa.Integer(), nullable=False),
        sa.Column("subitem", sa.String(4), nullable=False),
        sa.UniqueConstraint("act_id", "article", "article_branch", "paragraph", "item", "item_branch", "subitem"),
        sa.ForeignKeyConstraint(["act_id", "article", "article_branch"],
                                ["articles.act_id", "articles.number", "articles.branch"], ondelete="CASCADE"),
    )
    op.create_table(
        "cases",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("court", sa.String(60), nullable=False),
        sa.Column("decided_on", sa.Date(), nullable=False),
        sa.Column("case_year", sa.Integer(), nullable=False),
        sa.Column("case_code", sa.String(8), nullable=False),
        sa.Column("case_serial", sa.Integer(), nullable=False),
        sa.Column("case_seat", sa.String(8), nullable=False),
        sa.Column("delivery", sa.String(4), nullable=False),
        sa.Column("disposition", sa.String(4), nullable=False),
        sa.Column("panel", sa.String(10)),
        sa.Column("title", sa.String(500)),
        sa.Column("source", sa.String(40), nullable=False),
        sa.Column("source_id", sa.String(40)),
        sa.UniqueConstraint("court", "case_year", "case_code", "case_serial", "case_seat"),
    )
    op.create_index("ix_cases_number", "cases", ["case_year", "case_code", "case_serial"])
    op.create_table(
        "coverage",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("kind", sa.String(10), nullable=False),
        sa.Column("court", sa.String(60), nullable=False),
        sa.Column("starts_on", sa.Date()),
        sa.Column("ends_on", sa.Date()),
        sa.UniqueConstraint("kind", "court"),
    )
    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False, index=True),
        sa.Column("citation", sa.String(1000), nullable=False),
        sa.Column("status", sa.String(12), nullable=False, index=True),
        sa.Column("canonical", sa.String(1000)),
        sa.Column("source_ref", sa.String(200)),
        sa.Column("reason", sa.String(1000), nullable=False),
    )


def downgrade() -> None:
    for table in ("audit_log", "coverage", "cases", "provisions", "articles", "act_aliases", "acts"):
        op.drop_table(table)
