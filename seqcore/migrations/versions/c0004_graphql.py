"""GraphQL: project namespaces and paths, personal access tokens, failed sign-ins.

Existing projects are placed in the personal namespace of their first owner (or
``seqcore`` when they have none) under a path derived from their name.

Revision ID: c0004
Revises: c0003
Create Date: 2026-11-22 11:05:00.000000
"""

import sqlalchemy as sa
from alembic import op

revision = "c0004"
down_revision = "c0003"
branch_labels = None
depends_on = None


def _backfill() -> None:
    from seqcore.projects.namespaces import MAX_PATH, namespace_for, slugify

    conn = op.get_bind()
    owners = {}
    for project_id, username in conn.execute(
        sa.text(
            'SELECT m.project_id, u.username FROM project_member m JOIN "user" u '
            "ON u.id = m.user_id WHERE m.role = 'PROJECT_OWNER' ORDER BY m.id DESC"
        )
    ):
        owners[project_id] = username  # the earliest owner is written last
    taken: set[tuple[str, str]] = set()
    for project_id, name in conn.execute(sa.text("SELECT id, name FROM project ORDER BY id")):
        namespace = namespace_for(owners[project_id]) if project_id in owners else "seqcore"
        base = slugify(name)
        path, n = base, 2
        while (namespace, path) in taken:
            path, n = f"{base[: MAX_PATH - 8]}-{n}", n + 1
        taken.add((namespace, path))
        conn.execute(
            sa.text("UPDATE project SET namespace = :ns, path = :path WHERE id = :id"),
            {"ns": namespace, "path": path, "id": project_id},
        )


def upgrade() -> None:
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.add_column(sa.Column("namespace", sa.String(length=255), nullable=True))
        batch_op.add_column(sa.Column("path", sa.String(length=255), nullable=True))
    _backfill()
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.alter_column("namespace", existing_type=sa.String(length=255), nullable=False)
        batch_op.alter_column("path", existing_type=sa.String(length=255), nullable=False)
        batch_op.create_unique_constraint("uq_project_namespace_path", ["namespace", "path"])

    op.create_table(
        "personal_access_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("user_id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=255), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("scopes", sa.String(length=255), nullable=False),
        sa.Column("expires_at", sa.DateTime(), nullable=True),
        sa.Column("last_used_at", sa.DateTime(), nullable=True),
        sa.Column("revoked", sa.Boolean(), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["user_id"],
            ["user.id"],
            name=op.f("fk_personal_access_token_user_id_user"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_personal_access_token")),
        sa.UniqueConstraint("token_hash", name=op.f("uq_personal_access_token_token_hash")),
    )
    with op.batch_alter_table("personal_access_token", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_personal_access_token_user_id"), ["user_id"], unique=False
        )

    op.create_table(
        "sign_in_failure",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("username", sa.String(length=255), nullable=False),
        sa.Column("address", sa.String(length=64), nullable=False),
        sa.Column("created", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sign_in_failure")),
    )
    with op.batch_alter_table("sign_in_failure", schema=None) as batch_op:
        batch_op.create_index("ix_sign_in_failure_username", ["username"], unique=False)
        batch_op.create_index("ix_sign_in_failure_address", ["address"], unique=False)
        batch_op.create_index(batch_op.f("ix_sign_in_failure_created"), ["created"], unique=False)


def downgrade() -> None:
    op.drop_table("sign_in_failure")
    op.drop_table("personal_access_token")
    with op.batch_alter_table("project", schema=None) as batch_op:
        batch_op.drop_constraint("uq_project_namespace_path", type_="unique")
        batch_op.drop_column("path")
        batch_op.drop_column("namespace")
