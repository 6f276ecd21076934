#!/usr/bin/env python3
"""How soon a revoke ends what the revoked token has in progress (issue 60, break 1): a
benchmark, not a test (the tests that must pass are LongPollTests.revokedWhileHeld and
ServeFairShareTests.aRevokeEndsRequestsInProgress). Loopback only, bounded in count and time.

    Benchmarks/serve-revoke.py IDEABOX [--rounds 10]

Starts IDEABOX serve (SQLite). Each round makes a token of account mallory, holds a long poll
(?timeout=60&carry=records), a request body and an asset upload of that token, each half sent,
revokes the token (`serve account token revoke`), saves a record with another token at once,
and times how soon each of the three connections ends, and whether the poll's answer carried
the record. Prints p50 and max of each.
"""
import argparse, socket, time, urllib.parse
from serve_probe import CONTAINER, Serve

parser = argparse.ArgumentParser()
parser.add_argument("binary")
parser.add_argument("--rounds", type=int, default=10)
options = parser.parse_args()
served = Serve(options.binary)
writer = served.add("mallory")
served.start()
port, run = served.port, served.command

def post(path, body, token):
    answer, _ = served.post(path, body, token, 30)
    if answer.get("status") != 200:
        raise RuntimeError(f"{path}: {answer}")
    return answer

def held(request):
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall(request.encode())
    return connection

post("zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Ideas"}}}]}, writer)
since = post("changes/database", {}, writer)["syncToken"]
times = {"poll": [], "body": [], "upload": []}
carried = 0
for round in range(options.rounds):
    token = run("account", "token", "add", "mallory", "--label", f"r{round}")
    post("subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionType": "zone", "subscriptionID": f"s{round}", "zoneID": {"zoneName": "Ideas"}}}]}, token)
    courier = post("tokens/create", {"apnsEnvironment": "production"}, token)["webcourierURL"]
    since = post("changes/database", {}, writer)["syncToken"]
    upload = post("assets/upload", {"tokens": [{"recordType": "F", "fieldName": "f"}]}, token)["tokens"][0]["url"]
    connections = {
        "poll": held(f"GET {courier[courier.index('/webcourier'):]}?timeout=60&carry=records&since="
                     f"{urllib.parse.quote(since, safe='')} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
        "body": held(f"POST /database/1/{CONTAINER}/production/private/records/modify HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     f"Authorization: Bearer {token}\r\nContent-Length: 100000\r\n\r\n{{"),
        "upload": held(f"POST {upload[upload.index('/assets'):]} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100000\r\n\r\nx"),
    }
    time.sleep(0.5)
    run("account", "token", "revoke", "mallory", f"r{round}")
    revoked = time.time()
    post("records/modify", {"operations": [{"operationType": "create", "record": {
        "recordType": "Idea", "fields": {"title": {"value": f"secret {round}"}}}}], "zoneID": {"zoneName": "Ideas"}}, writer)
    for name, connection in connections.items():
        connection.settimeout(max(0.1, 70 - (time.time() - revoked)))
        answer = b""
        try:
            while chunk := connection.recv(65536):
                answer += chunk
        except OSError:
            pass
        times[name].append(time.time() - revoked)
        if name == "poll" and b"secret" in answer:
            carried += 1
        connection.close()
for name, values in times.items():
    values.sort()
    print(f"{name}: ended p50 {values[len(values) // 2] * 1000:.0f} ms, max {values[-1] * 1000:.0f} ms after the revoke")
print(f"polls whose answer carried the record saved after the revoke: {carried} of {options.rounds}")
served.stop()
