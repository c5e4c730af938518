"""Links the legacy IRIDA uploader (0.7.1) follows that the contract does not list: it finds
where to post a pair in the links of the sample's ``sequenceFiles`` collection, as IRIDA
serves them (``tests/e2e/test_irida_uploader_071.py`` runs the real program)."""

from seqcore.models.user import SystemRole


def test_the_sequence_files_collection_links_the_kinds_collections(testapp, factories):
    admin = factories.user(role=SystemRole.ADMIN)
    sample = factories.sample(factories.project(owner=admin))
    headers = factories.headers(admin)
    res = testapp.get(f"/api/samples/{sample.id}/sequenceFiles", headers=headers)
    links = {link["rel"]: link["href"] for link in res.json["resource"]["links"]}
    base = f"http://localhost/api/samples/{sample.id}"
    assert res.json["resource"]["links"][0] == {"rel": "self", "href": f"{base}/sequenceFiles"}
    assert links["sample"] == base
    assert links["sample/sequenceFiles/pairs"] == f"{base}/pairs"
    assert links["sample/sequenceFiles/unpaired"] == f"{base}/unpaired"
    # What the links name answers: the (empty) collections of the kinds.
    for rel in ("sample/sequenceFiles/pairs", "sample/sequenceFiles/unpaired"):
        assert testapp.get(links[rel], headers=headers).json["resource"]["resources"] == []
