"""Every permission the core checks, named ``resource:action``.

Views and ACLs use these members, never string literals, so a typo is an AttributeError at
import time rather than a silently denied (or granted) request.
"""

import enum


class Permission(enum.StrEnum):
    API_READ = "api:read"
    """Read the API root and version: any authenticated caller."""
    PLUGINS_READ = "plugins:read"
    """List loaded plugins and versions: administrators."""
    REMOTE_API_MANAGE = "remoteapi:manage"
    """Register, read, change and delete remote APIs (other installs users connect to):
    administrators."""
    USER_LIST = "user:list"
    """List all accounts: ROLE_USER and above (not sequencer accounts)."""
    USER_READ = "user:read"
    """Read one account: ROLE_USER and above, and the account itself."""
    USER_CREATE = "user:create"
    """Create accounts: administrators; managers may create ROLE_USER accounts."""
    USER_UPDATE = "user:update"
    """Change an account: administrators and the account itself (not its role)."""
    USER_DELETE = "user:delete"
    """Delete an account that owns nothing: administrators."""
    USER_PROJECTS = "user:projects"
    """List the projects an account can read: the account itself and administrators."""
    PROJECT_CREATE = "project:create"
    """Create projects: ROLE_USER and above (not sequencer accounts)."""
    PROJECT_READ = "project:read"
    """Read a project and what it holds: members, sequencer accounts, administrators."""
    PROJECT_WRITE = "project:write"
    """Change or delete a project and its membership: owners and administrators."""
    GROUP_CREATE = "group:create"
    """Create top-level groups: ROLE_USER and above (not sequencer accounts)."""
    GROUP_READ = "group:read"
    """Read a group, its members and shares: members at any access level of the group or a
    group above it, members of groups it (or a group above it) is shared with,
    administrators."""
    GROUP_WRITE = "group:write"
    """Create subgroups and projects in a group, change its members and shares: maintainers
    and owners of the group or a group above it (or through a share at that level),
    administrators."""
    SAMPLE_CREATE = "sample:create"
    """Create samples in a project: owners, maintainers through groups, uploaders (a group
    member or a project bot at exactly ``UPLOADER``), sequencer accounts, administrators."""
    SAMPLE_READ = "sample:read"
    """Read a sample and its metadata: members of any project holding it, sequencer accounts,
    administrators."""
    SAMPLE_WRITE = "sample:write"
    """Change a sample, its metadata and files: owners of a project that owns it (and
    maintainers through groups), uploaders of such a project, sequencer accounts,
    administrators."""
    SAMPLE_OWN = "sample:own"
    """Hand ownership of a sample on (share it with ``?ownership=true``, transfer it to
    another project): owners of a project that owns it and administrators. Sequencer
    accounts write every sample to upload into it, but own none, so they cannot."""
    RUN_CREATE = "run:create"
    """Create sequencing runs: administrators and sequencer accounts (the uploader)."""
    RUN_READ = "run:read"
    """Read sequencing runs: administrators."""
    RUN_UPDATE = "run:update"
    """Change a run's status and run sheet: administrators, and the sequencer account that
    created it."""
    RUN_DELETE = "run:delete"
    """Delete a run with its sequencing objects and the samples left empty: administrators."""
    SUBMISSION_READ = "submission:read"
    """Read an analysis submission and its outputs: its submitter, members of projects it is
    shared with, administrators."""
    SUBMISSION_DELETE = "submission:delete"
    """Delete an analysis submission with its outputs: its submitter and administrators."""
    NCBI_SUBMIT = "ncbi:submit"
    """Submit a project's samples to NCBI (SRA and BioSample): project owners and
    administrators. Submissions are read by whoever reads the project."""
    EXPORT_CREATE = "export:create"
    """Export a project's data (a bundle of samples, files, line list and analysis outputs):
    its members and owners, administrators (not sequencer accounts), as IRIDA Next's
    ``export_data?`` asks for analysts and up."""
    EXPORT_READ = "export:read"
    """Read and download an export: the account that asked for it while it still reads the
    project as a member, and administrators."""
    EXPORT_DELETE = "export:delete"
    """Delete an export: as :attr:`EXPORT_READ`."""
    ANALYSIS_LAUNCH = "analysis:launch"
    """Launch analyses (on samples the caller can read): any account."""
