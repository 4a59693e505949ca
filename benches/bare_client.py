#!/usr/bin/env python3
"""The bare client batch_throughput compares jury with: plain asyncio streams,
keep-alive HTTP/1.1, CONCURRENCY requests in flight, each answer read to its
last chunk (its `[DONE]`), nothing parsed or stored: the least work a client
can do per request.

    python3 bare_client.py BASE_URL CONCURRENCY BODIES.jsonl
    python3 bare_client.py URL#N,URL#N,... CONCURRENCY BODIES.jsonl

BODIES.jsonl holds one request body per line (the bench replays the bodies
jury sent, so the server answers the same work). Several servers, each
`URL#N`: N connections to each, all taking the next body from one queue
(as jury's `--base-url URL#N` does); CONCURRENCY is then their sum.
"""
import asyncio
import sys
from urllib.parse import urlsplit


async def read_chunked(reader):
    out = bytearray()
    while True:
        size = int((await reader.readline()).split(b";")[0], 16)
        if size == 0:
            await reader.readline()
            return bytes(out)
        out += await reader.readexactly(size + 2)
        del out[-2:]


async def worker(host, port, path, bodies):
    reader, writer = await asyncio.open_connection(host, port)
    while bodies:
        body = bodies.pop()
        head = (
            f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            f"Content-Type: application/json\r\nAccept: text/event-stream\r\n"
            f"Content-Length: {len(body)}\r\n\r\n"
        ).encode()
        writer.write(head + body)
        status = await reader.readline()
        assert b" 200 " in status, status
        length, chunked = None, False
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n", b""):
                break
            name, _, value = line.decode().partition(":")
            name = name.strip().lower()
            if name == "content-length":
                length = int(value)
            elif name == "transfer-encoding" and "chunked" in value.lower():
                chunked = True
        data = await read_chunked(reader) if chunked else await reader.readexactly(length or 0)
        assert data.rstrip().endswith(b"[DONE]"), data[-200:]
    writer.close()


async def main():
    base, concurrency, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(path, "rb") as f:
        bodies = [line.rstrip(b"\n") for line in f if line.strip()]
    bodies.reverse()
    workers = []
    for part in base.split(","):
        base_url, _, n = part.partition("#")
        url = urlsplit(base_url)
        target = url.path.rstrip("/") + "/chat/completions"
        n = int(n) if n else concurrency
        workers += [worker(url.hostname, url.port, target, bodies) for _ in range(n)]
    await asyncio.gather(*workers)


asyncio.run(main())
