#!/usr/bin/env python3
"""The hostile round's churning polls (issue 60, break 5), for figures before and after
(BENCHMARKS.md): a benchmark, not a test (the tests that must pass are
ServeFairShareTests.pollsSentAgainAtOnceArePaced and LongPollTests.aChurningDeviceIsPaced).
Loopback only, bounded in count and time.

    Benchmarks/serve-churning-polls.py IDEABOX [--polls 4000] [--tokens 16] [--seconds 60]

Starts IDEABOX serve (SQLite) with accounts mallory and alice. Mallory gives herself
--tokens tokens, subscribes and makes a webcourier URL for each, then holds --polls
connections, each sending its token's poll (?timeout=60) and, the moment it is answered
(whatever the answer), the next one on a new connection, for --seconds. Meanwhile alice
saves a small record every 100 ms (10 s timeout). Prints mallory's answers by status, alice's
p50/p95/max and timeouts, and the server's resident memory at the start and its peak.
"""
import argparse, resource, selectors, socket, threading, time
from serve_probe import Serve

parser = argparse.ArgumentParser()
parser.add_argument("binary")
parser.add_argument("--polls", type=int, default=4000)
parser.add_argument("--tokens", type=int, default=16)
parser.add_argument("--seconds", type=float, default=60)
options = parser.parse_args()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))

served = Serve(options.binary)
alice = served.add("alice")
mallory = [served.add("mallory")]
mallory += [served.command("account", "token", "add", "mallory", "--label", f"t{index}") for index in range(1, options.tokens)]
served.start()
port, rss = served.port, served.resident_mib

def post(path, body, token, timeout=90):
    answer, _ = served.post(path, body, token, timeout)
    if answer.get("status") != 200:
        raise RuntimeError(f"{path}: {answer}")
    return answer

requests = []
for token in mallory:
    post("subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionType": "zone", "subscriptionID": "s", "zoneID": {"zoneName": "_defaultZone"}}}]}, token)
    url = post("tokens/create", {"apnsEnvironment": "production"}, token)["webcourierURL"]
    requests.append(f"GET {url[url.index('/webcourier'):]}?timeout=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    "Connection: close\r\n\r\n".encode())

stop = threading.Event()
answers, peak = {}, [rss()]
start_rss = peak[0]

def churn():
    chooser = selectors.DefaultSelector()
    def open_one(index):
        connection = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        connection.setblocking(False)
        try:
            connection.connect(("127.0.0.1", port))
        except BlockingIOError:
            pass
        chooser.register(connection, selectors.EVENT_WRITE, [index, b""])
    for index in range(options.polls):
        open_one(index)
    while not stop.is_set():
        for key, events in chooser.select(timeout=0.2):
            connection, (index, received) = key.fileobj, key.data
            if events & selectors.EVENT_WRITE:
                try:
                    connection.send(requests[index % len(requests)])
                    chooser.modify(connection, selectors.EVENT_READ, [index, b""])
                except OSError:
                    chooser.unregister(connection)
                    connection.close()
                    answers["refused"] = answers.get("refused", 0) + 1
                    open_one(index)
                continue
            try:
                chunk = connection.recv(65536)
            except OSError:
                chunk = b""
            if chunk:
                key.data[1] = received + chunk
                continue
            status = received[9:12].decode(errors="replace") if received else "closed"
            answers[status] = answers.get(status, 0) + 1
            chooser.unregister(connection)
            connection.close()
            open_one(index)
    for key in list(chooser.get_map().values()):
        key.fileobj.close()

def watch():
    while not stop.is_set():
        peak[0] = max(peak[0], rss())
        time.sleep(0.25)

threads = [threading.Thread(target=churn), threading.Thread(target=watch)]
for thread in threads:
    thread.start()
took, timeouts, started = [], 0, time.time()
while time.time() - started < options.seconds:
    began = time.time()
    try:
        post("records/modify", {"operations": [{"operationType": "create", "record": {
            "recordType": "Note", "fields": {"title": {"value": "alice"}}}}]}, alice, timeout=10)
        took.append(time.time() - began)
    except Exception:
        timeouts += 1
    time.sleep(max(0, 0.1 - (time.time() - began)))
stop.set()
for thread in threads:
    thread.join()
took.sort()
def at(share):
    return took[min(len(took) - 1, int(len(took) * share))] if took else float("nan")
print(f"{options.polls} polls of {options.tokens} tokens, {options.seconds:.0f} s: mallory's answers {dict(sorted(answers.items()))}")
print(f"alice: {len(took)} saves, p50 {at(0.5) * 1000:.0f} ms, p95 {at(0.95) * 1000:.0f} ms, "
      f"max {took[-1] * 1000 if took else float('nan'):.0f} ms, {timeouts} timed out")
print(f"serve RSS: {start_rss} MiB at the start, peak {peak[0]} MiB")
served.stop()
