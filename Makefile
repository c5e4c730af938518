# Thin wrappers around ./dev, which does the real work (and works without make installed).
.PHONY: run test lint bench-api

run:
	./dev run

test:
	./dev test

lint:
	.venv/bin/ruff check seqcore tests bench plugins examples
	.venv/bin/lint-imports --no-cache

bench-api:
	.venv/bin/python bench/api.py
