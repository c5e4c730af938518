"""``seqcore bots``: an administrator at the server makes, lists and deletes a project's bot
accounts with the installed program, and the bot's token works over GraphQL until the bot is
deleted."""

from tests.functional.test_admin_cli import graphql_works, seqcore, site, template, token

__all__ = ["site", "template"]  # the fixtures this module borrows


def test_bots_create_list_and_delete(site):
    ini, testapp, secret = site
    bearer = token(testapp, secret, "Bob")
    project = testapp.post_json("/api/projects", {"name": "Bot project"},
                                headers={"Authorization": f"Bearer {bearer}"}).json
    pid = project["resource"]["identifier"]
    email, value = seqcore(ini, "bots", "create", "--project", pid, "--level", "UPLOADER",
                           "--token-name", "sequencer", "--expires", "30").stdout.split()
    assert email.endswith("@bots.seqcore.invalid") and value.startswith("sqc_")
    assert graphql_works(testapp, email, value)
    (row,) = [line.split("\t") for line in
              seqcore(ini, "bots", "list", "--project", pid).stdout.splitlines()]
    assert row[2:] == [email, "UPLOADER"]
    seqcore(ini, "bots", "delete", "--project", pid, row[0])
    assert not graphql_works(testapp, email, value)
    assert seqcore(ini, "bots", "list", "--project", pid).stdout == ""


def test_bots_refuses_bad_requests_and_changes_nothing(site):
    ini, testapp, secret = site
    bearer = token(testapp, secret, "Bob")
    pid = testapp.post_json("/api/projects", {"name": "Bot project"},
                            headers={"Authorization": f"Bearer {bearer}"}
                            ).json["resource"]["identifier"]
    for args, words in (
            (("--level", "ROOT"), "accessLevel"),
            (("--level", "GUEST", "--token-name", " "), "tokenName"),
            (("--level", "0"), "accessLevel")):
        refused = seqcore(ini, "bots", "create", "--project", pid, *args, ok=False)
        assert refused.returncode == 2 and words in refused.stderr
    refused = seqcore(ini, "bots", "create", "--level", "GUEST", ok=False)
    assert refused.returncode == 2 and "--project ID or --group ID" in refused.stderr
    refused = seqcore(ini, "bots", "delete", "--project", pid, "7", ok=False)
    assert refused.returncode == 2 and "no such bot" in refused.stderr
    assert seqcore(ini, "bots", "list", "--project", pid).stdout == ""
