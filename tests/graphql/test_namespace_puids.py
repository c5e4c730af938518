"""What a typed IRIDA Next client relies on: every namespace has a PUID, and a project's
``parent`` and a sample's ``project`` are never null (IRIDA Next's ``Namespace.puid: ID!``,
``Project.parent: Namespace!``, ``Sample.project: Project!``)."""

from seqcore.models.puid import is_puid
from seqcore.models.sample import ProjectSample
from seqcore.models.user import User

NAMESPACE = """query($path: ID!) { namespace(fullPath: $path) { fullPath puid } }"""
PARENT = """query($p: ID!) { project(puid: $p) { fullPath fullName
  parent { id name path fullPath fullName description puid } } }"""


def test_an_accounts_namespace_has_its_own_puid(graphql, factories, db):
    alice = factories.user(username="alice")
    bob = factories.user(username="bob")
    project = factories.project(owner=alice, name="Typing")
    seen = graphql.as_user(alice)(NAMESPACE, {"path": "alice"})["data"]["namespace"]
    stored = db.get(User, alice.id).namespace_puid
    assert seen == {"fullPath": "alice", "puid": stored}
    assert is_puid(stored, "USR")
    # The same through the project, and stable from one request to the next.
    parent = graphql(PARENT, {"p": project.puid})["data"]["project"]["parent"]
    assert parent["puid"] == stored
    assert graphql(NAMESPACE, {"path": "alice"})["data"]["namespace"]["puid"] == stored
    # Each account's is its own.
    assert db.get(User, bob.id).namespace_puid not in (None, stored)


def test_a_project_shared_out_of_a_hidden_group_still_has_a_parent(graphql, factories):
    """A member of a project whose group it cannot read sees the parent's path (its
    ``fullPath`` already says it) and PUID, and nothing the group would keep to itself."""
    owner = factories.user(username="owner")
    reader = factories.user(username="reader")
    lab = factories.group(owner, name="Secret Lab", path="lab", description="confidential")
    project = factories.project(owner=owner, name="Shared", path="shared", group=lab,
                                members=[(reader, "PROJECT_USER")])
    body = graphql.as_user(reader)(PARENT, {"p": project.puid})
    assert "errors" not in body, body
    seen = body["data"]["project"]
    assert seen["fullPath"] == "lab/shared"
    assert seen["parent"]["fullPath"] == "lab" and seen["parent"]["puid"] == lab.puid
    assert seen["parent"]["name"] == "lab" and seen["parent"]["description"] is None
    assert "Secret Lab" not in str(seen)
    # The group itself stays hidden.
    assert graphql(NAMESPACE, {"path": "lab"})["data"]["namespace"] is None
    # A member of the group reads its real name.
    member = graphql.as_user(owner)(PARENT, {"p": project.puid})["data"]["project"]
    assert member["parent"]["name"] == "Secret Lab"
    assert member["parent"]["description"] == "confidential"
    assert member["fullName"] == "Secret Lab / Shared"
    assert seen["fullName"] == "lab / Shared"


def test_parent_and_project_are_non_null_in_the_schema(graphql, factories):
    owner = factories.user()
    client = graphql.as_user(owner)
    kinds = {}
    for type_name in ("Project", "Sample"):
        body = client('query($t: String!) { __type(name: $t) { fields { name type { kind } } } }',
                      {"t": type_name})
        kinds.update({(type_name, f["name"]): f["type"]["kind"]
                      for f in body["data"]["__type"]["fields"]})
    assert kinds[("Project", "parent")] == "NON_NULL"
    assert kinds[("Sample", "project")] == "NON_NULL"


def test_a_shared_sample_names_the_project_the_caller_may_read(graphql, factories, db):
    """A sample shared into a reader's project, from one the reader cannot read, names the
    reader's project; its owner still sees the owning one."""
    owner, reader = factories.user(), factories.user()
    home = factories.project(owner=owner, name="Home")
    sample = factories.sample(home, name="S-1")
    theirs = factories.project(owner=reader, name="Theirs")
    db.add(ProjectSample(project_id=theirs.id, sample_id=sample.id, sample_name=sample.name,
                         owner=False))
    db.commit()
    query = "query($s: ID!) { sample(puid: $s) { project { name } } }"
    assert graphql.as_user(reader)(query, {"s": sample.puid})["data"]["sample"] == {
        "project": {"name": "Theirs"}}
    assert graphql.as_user(owner)(query, {"s": sample.puid})["data"]["sample"] == {
        "project": {"name": "Home"}}
