"""Bodies of the token endpoint, the sign-in page and every form are limited before they are
read: oversize is 413."""

import socket

import pytest

from seqcore.testing.factories import DEFAULT_PASSWORD
from seqcore.testing.server import live_server

BIG = "x" * 4096


@pytest.fixture
def small(build_app, factories):
    factories.client(client_id="uploader", secret="s3cret")
    factories.user(username="alice")
    return build_app(**{"seqcore.max_form_bytes": 2048})


def test_token_endpoint_refuses_a_large_form(small):
    res = small.post("/api/oauth/token", {"grant_type": "password", "client_id": "uploader",
                                          "client_secret": "s3cret", "username": "alice",
                                          "password": DEFAULT_PASSWORD, "pad": BIG},
                     status=413)
    assert res.json == {"message": "The request body is larger than 2048 bytes."}
    small.post("/api/oauth/token", {"grant_type": "password", "client_id": "uploader",
                                    "client_secret": "s3cret", "username": "alice",
                                    "password": DEFAULT_PASSWORD}, status=200)


def test_sign_in_and_other_forms_refuse_large_bodies(small):
    page = small.get("/users/sign_in")
    page.form["username"] = "alice"
    page.form["password"] = DEFAULT_PASSWORD + BIG
    assert page.form.submit(status=413).status_int == 413
    small.get("/-/profile", status=302)  # not signed in
    for path in ("/users/sign_out", "/-/profile/personal_access_tokens",
                 "/api/oauth/authorize", "/api/oauth/revoke"):
        small.post(path, {"pad": BIG}, status=413)
    # Any content type outside /api, and form bodies inside it.
    small.post("/users/sign_in", BIG.encode(), content_type="text/plain", status=413)
    small.post("/api/projects", {"pad": BIG}, status=413)


def test_json_bodies_keep_their_own_limit(small, factories):
    headers = factories.headers(factories.user())
    small.post_json("/api/projects", {"name": "big project", "projectDescription": BIG},
                    headers=headers, status=201)


@pytest.mark.slow
def test_a_large_form_is_refused_without_reading_it(tmp_path):
    """Under the production server (gunicorn), a form announced as 64 MiB is answered 413
    from its headers, without the server reading (or the client sending) the body."""
    server = live_server(tmp_path)
    server.start("gunicorn", workers=1)
    try:
        for path in ("/users/sign_in", "/api/oauth/token"):
            with socket.create_connection(("127.0.0.1", server.port), timeout=15) as sock:
                sock.sendall(f"POST {path} HTTP/1.1\r\nHost: localhost\r\n"
                             "Content-Type: application/x-www-form-urlencoded\r\n"
                             f"Content-Length: {64 * 1024 * 1024}\r\n\r\n".encode())
                # Not a byte of the body is sent: an application that reads the body before
                # looking at its size waits here until the socket times out (the test fails).
                head = sock.recv(4096)
            assert head.startswith(b"HTTP/1.1 413"), head[:200]
    finally:
        server.stop()


@pytest.mark.slow
def test_a_large_form_is_refused_by_the_development_server(tmp_path):
    """waitress (``seqcore serve``) reads a body before the application runs; the 413 must
    still come out (a hop-by-hop header in it made waitress answer 500)."""
    server = live_server(tmp_path)
    server.start()
    try:
        size = 1024 * 1024
        with socket.create_connection(("127.0.0.1", server.port), timeout=30) as sock:
            sock.sendall(f"POST /users/sign_in HTTP/1.1\r\nHost: localhost\r\n"
                         "Content-Type: application/x-www-form-urlencoded\r\n"
                         f"Content-Length: {size}\r\n\r\n".encode() + b"x" * size)
            head = sock.recv(4096)
        assert head.startswith(b"HTTP/1.1 413"), head[:200]
    finally:
        server.stop()


def test_a_form_webob_cannot_read_is_a_400(testapp):
    """A file part with an empty file name and an unknown charset (found by tests/fuzz)."""
    body = (b'--B0undary\r\nContent-Disposition: form-data; name="file"; filename=""\r\n'
            b"Content-Type: text/plain; charset=bogus\r\n\r\n>contig0\nACGT\n\r\n"
            b"--B0undary--\r\n")
    res = testapp.post("/users/sign_in", body, status=400, headers={
        "Content-Type": "multipart/form-data; boundary=B0undary"})
    assert "could not be parsed" in res.text
