"""A real gRPC client (grpcio) applying a service config exported by `rebound export --format grpc`.

Starts a gRPC server on 127.0.0.1 (port chosen by the OS) whose one method, /SERVICE/Call,
answers UNAVAILABLE to the first FAILS attempts of each call (a call is named by its request
bytes) and OK after; then makes CALLS calls, one after the other, on a channel built with the
service config (`grpc.service_config`, `grpc.enable_retries` 1), and prints one JSON document:
{"calls": [{"attempts": N, "code": "OK", "gaps_s": [...]}, ...], "refused": {...}}.

`gaps_s` are the times between one attempt's arrival at the server and the next one's (the
backoff plus a round trip). `--broken` instead builds a channel with the config given (expected
to be invalid) and reports the status and message its first call gets.

Usage: retry_client.py CONFIG.json SERVICE [--calls N] [--fails N] [--broken]
No protoc: grpcio's generic handlers with bytes in and out.
"""

import argparse
import json
import sys
import threading
import time
from concurrent import futures

import grpc


def serve(service, fails):
    arrivals = {}
    lock = threading.Lock()

    def call(request, context):
        with lock:
            seen = arrivals.setdefault(request, [])
            seen.append(time.monotonic())
            n = len(seen)
        if n <= fails:
            context.abort(grpc.StatusCode.UNAVAILABLE, f"transient failure {n} of {fails}")
        return b"ok"

    handler = grpc.method_handlers_generic_handler(
        service, {"Call": grpc.unary_unary_rpc_method_handler(call)}
    )
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    server.add_generic_rpc_handlers((handler,))
    port = server.add_insecure_port("127.0.0.1:0")
    if port == 0:
        sys.exit("could not bind 127.0.0.1")
    server.start()
    return server, port, arrivals


def channel(port, config):
    options = [("grpc.service_config", config), ("grpc.enable_retries", 1)]
    return grpc.insecure_channel(f"127.0.0.1:{port}", options=options)


def run_calls(args, config):
    server, port, arrivals = serve(args.service, args.fails)
    calls = []
    with channel(port, config) as ch:
        stub = ch.unary_unary(f"/{args.service}/Call")
        for i in range(args.calls):
            key = f"call-{i}".encode()
            try:
                stub(key, timeout=30)
                code = "OK"
            except grpc.RpcError as e:
                code = e.code().name
            seen = arrivals.get(key, [])
            gaps = [b - a for a, b in zip(seen, seen[1:])]
            calls.append({"attempts": len(seen), "code": code, "gaps_s": gaps})
    server.stop(0)
    return {"calls": calls}


def run_broken(args, config):
    server, port, _ = serve(args.service, args.fails)
    with channel(port, config) as ch:
        stub = ch.unary_unary(f"/{args.service}/Call")
        try:
            stub(b"broken", timeout=10)
            result = {"code": "OK", "details": ""}
        except grpc.RpcError as e:
            result = {"code": e.code().name, "details": e.details() or ""}
    server.stop(0)
    return {"refused": result}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("config")
    p.add_argument("service")
    p.add_argument("--calls", type=int, default=5)
    p.add_argument("--fails", type=int, default=2)
    p.add_argument("--broken", action="store_true")
    args = p.parse_args()
    with open(args.config) as f:
        config = f.read()
    out = run_broken(args, config) if args.broken else run_calls(args, config)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
