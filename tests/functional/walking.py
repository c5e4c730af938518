"""Walking the REST API through its links, as a client that knows only ``/api`` would."""

from urllib.parse import urlsplit


def walk(app, headers, start="/api", limit=2000):
    """Every ``/api`` resource reachable from ``start`` through links: path -> (status,
    body). Files are fetched too, in the media type they download as."""
    seen: dict[str, tuple[int, object]] = {}
    queue = [start]
    while queue and len(seen) < limit:
        path = queue.pop(0)
        if path in seen:
            continue
        res = app.get(path, headers=headers, expect_errors=True)
        body = res.json if res.content_type == "application/json" else res.body
        seen[path] = (res.status_int, body)
        if "/files/" in path and res.status_int == 200 and not path.endswith("/qc"):
            download = app.get(path, headers={**headers, "Accept": "application/fastq"},
                               expect_errors=True)
            seen[path + " (download)"] = (download.status_int, download.body)
        for href in hrefs(body):
            target = urlsplit(href)
            if target.path.startswith("/api") and target.path not in seen:
                queue.append(target.path + (f"?{target.query}" if target.query else ""))
    return seen


def hrefs(body):
    if isinstance(body, dict):
        for key, value in body.items():
            if key == "href" and isinstance(value, str):
                yield value
            else:
                yield from hrefs(value)
    elif isinstance(body, list):
        for value in body:
            yield from hrefs(value)
