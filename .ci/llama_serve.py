"""llama.cpp's own HTTP server (embedded by the xllamacpp wheel) on one port.

Started by .ci/llama-server.sh inside its venv; not meant to be run by hand.
Every setting comes from the command line so the shell script stays the one
place that decides them. The process serves until it gets SIGTERM or SIGINT.
"""

import argparse
import signal
import sys
import threading

import xllamacpp as xlc


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model", required=True)
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--ctx", type=int, default=16384)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--parallel", type=int, default=1)
    ap.add_argument("--alias", default="")
    # The sampling seed of requests that carry none (jury sends none): with
    # temperature 0 the answer is the greedy one; the seed pins the rest.
    ap.add_argument("--seed", type=int, default=42)
    # `--jinja` is llama-server's switch for the model's chat template, which
    # is what makes `tools` work at all; the capability test needs it off.
    ap.add_argument("--no-jinja", action="store_true")
    a = ap.parse_args()

    p = xlc.CommonParams()
    p.model.path = a.model
    if a.alias:
        p.model_alias = a.alias
    p.hostnames = [a.host]
    p.port = a.port
    p.n_ctx = a.ctx
    p.n_parallel = a.parallel
    p.use_jinja = not a.no_jinja
    sampling = getattr(p, "sampling", None)
    if sampling is not None and hasattr(sampling, "seed"):
        sampling.seed = a.seed
    else:
        print("llama_serve: this xllamacpp has no sampling.seed; the seed is not set", flush=True)
    p.cpuparams.n_threads = a.threads
    p.cpuparams_batch.n_threads = a.threads
    # Same defaults as the llama-server binary: /props answers, no web UI.
    p.endpoint_props = True
    p.ui = False

    server = xlc.Server(p)
    print(
        f"llama_serve: listening on {server.listening_address} "
        f"(jinja={'off' if a.no_jinja else 'on'}, ctx={a.ctx}, threads={a.threads}, seed={a.seed})",
        flush=True,
    )

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.wait(1.0):
        pass
    # Dropping the server object shuts llama.cpp's HTTP loop down.
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
