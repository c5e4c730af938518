"""A group's own attachments: ``attachFilesToGroup`` for its maintainers and owners (IRIDA
Next's ``unauthorized`` error for the others), ``Group.attachments`` readable as the group is
(members of the group or of a group above it, groups it is shared with), and gone with the
group."""

import pytest
from sqlalchemy import delete, func, select

from seqcore.models.attachment import Attachment
from seqcore.models.group import AccessLevel, Group
from seqcore.testing.uploads import direct_upload, fastq
from tests.graphql.conftest import gid

ATTACH = """mutation($files: [String!]!, $groupId: ID, $groupPuid: ID) {
  attachFilesToGroup(input: {files: $files, groupId: $groupId, groupPuid: $groupPuid}) {
    group { id } status errors { path message } } }"""
ATTACHMENTS = """query($path: ID!) { group(fullPath: $path) {
  attachments { totalCount nodes { filename metadata } } } }"""
NODE = "query($id: ID!) { node(id: $id) { ... on Attachment { filename } } }"


@pytest.fixture
def tree(factories):
    """``lab`` (guest, maintainer, owner alice) > ``lab/outbreaks`` (its own guest ``subonly``);
    ``partners`` (eve) is shared ``lab`` at guest; ``outsider`` is in neither."""
    alice = factories.user(username="alice")
    users = {name: factories.user(username=name)
             for name in ("guest", "maint", "subonly", "eve", "outsider")}
    lab = factories.group(alice, name="Lab", path="lab",
                          members=[(users["guest"], AccessLevel.GUEST),
                                   (users["maint"], AccessLevel.MAINTAINER)])
    sub = factories.group(alice, name="Outbreaks", path="outbreaks", parent=lab,
                          members=[(users["subonly"], AccessLevel.GUEST)])
    partners = factories.group(users["eve"], name="Partners", path="partners")
    factories.share(partners, AccessLevel.GUEST, group=lab)
    return dict(alice=alice, **users, lab=lab, sub=sub)


def test_a_maintainer_attaches_by_id_and_an_owner_by_puid(graphql, testapp, tree, db):
    client = graphql.as_user(tree["maint"])
    blob = direct_upload(testapp, client, "protocol.txt", b"steps\n")
    body = client(ATTACH, {"files": [blob], "groupId": gid("Group", tree["lab"].id)})
    assert body["data"]["attachFilesToGroup"] == {
        "group": {"id": gid("Group", tree["lab"].id)}, "status": {blob: "success"},
        "errors": []}
    owner = graphql.as_user(tree["alice"])
    reads = direct_upload(testapp, owner, "reads.fastq", fastq(seed=7))
    body = owner(ATTACH, {"files": [reads], "groupPuid": tree["sub"].puid})
    assert body["data"]["attachFilesToGroup"]["status"] == {reads: "success"}
    listed = owner(ATTACHMENTS, {"path": "lab"})["data"]["group"]["attachments"]
    assert listed == {"totalCount": 1, "nodes": [
        {"filename": "protocol.txt", "metadata": {"format": "text", "compression": "none"}}]}
    # A group's FASTQ stays a plain file: only a sample's become sequencing objects.
    assert db.scalar(select(Attachment.object_id).where(
        Attachment.group_id == tree["sub"].id)) is None


def test_a_guest_gets_irida_nexts_unauthorized_error(graphql, testapp, tree, db):
    client = graphql.as_user(tree["guest"])
    blob = direct_upload(testapp, client, "protocol.txt", b"steps\n")
    body = client(ATTACH, {"files": [blob], "groupId": gid("Group", tree["lab"].id)})
    assert body["data"] == {"attachFilesToGroup": None}
    assert body["errors"][0]["message"] == (
        "You are not authorized to create attachments for group Lab on this server.")
    assert body["errors"][0]["extensions"]["code"] == "unauthorized"
    assert body["errors"][0]["path"] == ["attachFilesToGroup"]
    assert db.scalar(select(func.count()).select_from(Attachment)) == 0


def test_a_group_the_caller_cannot_read_is_not_found(graphql, testapp, tree, db):
    client = graphql.as_user(tree["outsider"])
    blob = direct_upload(testapp, client, "protocol.txt", b"steps\n")
    body = client(ATTACH, {"files": [blob], "groupPuid": tree["lab"].puid})
    assert body["data"]["attachFilesToGroup"] == {
        "group": None, "status": None,
        "errors": [{"path": ["group"], "message": "not found by provided ID or PUID"}]}
    neither = client(ATTACH, {"files": [blob]})
    assert neither["errors"][0]["message"] == "Give exactly one of groupId and groupPuid."
    assert db.scalar(select(func.count()).select_from(Attachment)) == 0


@pytest.mark.parametrize(("who", "lab", "sub"), [
    ("guest", True, True),      # a member of lab reads lab and, inherited, its subgroup
    ("subonly", False, True),   # a member of the subgroup alone does not read lab
    ("eve", True, True),        # lab is shared with eve's group
    ("outsider", False, False),
])
def test_group_attachments_are_readable_as_the_group_is(graphql, factories, tree, who, lab,
                                                         sub):
    on_lab = factories.attachment(group=tree["lab"], file_name="lab.txt")
    on_sub = factories.attachment(group=tree["sub"], file_name="sub.txt")
    client = graphql.as_user(tree[who])
    for attachment, visible, path in ((on_lab, lab, "lab"), (on_sub, sub, "lab/outbreaks")):
        node = client(NODE, {"id": gid("Attachment", attachment.id)})["data"]["node"]
        assert node == ({"filename": attachment.file.file_name} if visible else None)
        group = client(ATTACHMENTS, {"path": path})["data"]["group"]
        assert (group is not None) == visible
        if visible:
            assert [n["filename"] for n in group["attachments"]["nodes"]] == [
                attachment.file.file_name]


def test_a_group_takes_its_attachments_with_it(factories, tree, db):
    """seqcore has no group deletion; the owner column cascades, as the migration says."""
    factories.attachment(group=tree["sub"], file_name="sub.txt")
    kept = factories.attachment(group=tree["lab"], file_name="lab.txt")
    db.execute(delete(Group).where(Group.id == tree["sub"].id))
    db.commit()
    assert list(db.scalars(select(Attachment.id))) == [kept.id]
