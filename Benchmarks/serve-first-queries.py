#!/usr/bin/env python3
"""Break 4 of issue 60, for figures before and after (BENCHMARKS.md): a benchmark, not a test
(the tests that must pass are ServeFirstQueryTests, QueryableFillsTests and
QueryConformanceTests' issue-60 case). Loopback only, bounded in count and time.

    Benchmarks/serve-first-queries.py --binary IDEABOX [--postgres URL] [--records N]
        [--queries 8,16] [serve arguments...]

Starts IDEABOX serve on SQLite (or, with --postgres, on a new database made on that server and
dropped at the end) with accounts mallory and alice. Mallory stores N small records (default
100,000), then for each count in --queries sends that many identical first queries at once,
each sorting by a field no query named before (a new one each round). Meanwhile alice lists
her zones, a request every 50 ms, each on a connection of its own (timeout 10 s). Mallory sends the query again every
half second until it is answered its records (the field is queryable: the fill is done).
Prints mallory's answers and times, when the fill was done, and alice's p50/p95/max and
timeouts while it ran.
"""
import argparse, os, subprocess, threading, time, urllib.parse
from serve_probe import Serve

parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
parser.add_argument("--binary", required=True)
parser.add_argument("--postgres")
parser.add_argument("--records", type=int, default=100_000)
parser.add_argument("--queries", default="8,16")
options, extra = parser.parse_known_args()
counts = [int(count) for count in options.queries.split(",")]
FIELDS = ["rank", "size", "score", "weight"]
assert len(counts) <= len(FIELDS), f"at most {len(FIELDS)} rounds"
database = None
store = None
if options.postgres:
    database = f"ideabox_first_queries_{os.getpid()}"
    subprocess.run(["psql", options.postgres, "-qc", f"CREATE DATABASE {database}"], check=True)
    url = urllib.parse.urlsplit(options.postgres)
    store = urllib.parse.urlunsplit(url._replace(path="/" + database))
served = Serve(options.binary, store)
mallory, alice = served.add("mallory"), served.add("alice")
served.start(*extra)
post = served.post

def said(answer):
    if answer.get("status") == 200:
        return "200"
    return f"{answer.get('status', '-')} {answer.get('serverErrorCode') or answer.get('error')}"

# Mallory's records, 200 a request from four threads.
started = time.time()
def seed(first):
    for start in range(first * 200, options.records, 800):
        operations = [{"operationType": "forceReplace", "record": {
            "recordName": f"r{index}", "recordType": "Item",
            "fields": {"title": {"value": f"item {index}"}} | {field: {"value": index % (997 + n)} for n, field in enumerate(FIELDS)}}}
            for index in range(start, min(options.records, start + 200))]
        answer, _ = post("records/modify", {"zoneID": {"zoneName": "_defaultZone"}, "operations": operations}, mallory)
        assert answer.get("status") == 200 and all("serverErrorCode" not in r for r in answer["records"]), str(answer)[:300]
seeders = [threading.Thread(target=seed, args=(n,)) for n in range(4)]
for thread in seeders: thread.start()
for thread in seeders: thread.join()
print(f"{options.binary} on {'PostgreSQL' if database else 'SQLite'}: {options.records} records stored in {time.time() - started:.0f} s")

def pick(done, q):
    return done[min(len(done) - 1, int(q * len(done)))] * 1000

for field, count in zip(FIELDS, counts):
    waits, stop, sent = [], threading.Event(), []
    def alice_lists():
        answer, took = post("zones/list", {}, alice, timeout=10)
        waits.append(took if answer.get("status") == 200 else None)
    def alice_sends():
        # One request every 50 ms, each on a thread of its own, however long the others
        # take: one held request does not hide those she would have sent meanwhile.
        while not stop.is_set():
            thread = threading.Thread(target=alice_lists)
            thread.start()
            sent.append(thread)
            time.sleep(0.05)
        for thread in sent: thread.join()
    lister = threading.Thread(target=alice_sends)
    lister.start()
    time.sleep(0.3)
    query = {"zoneID": {"zoneName": "_defaultZone"}, "resultsLimit": 10, "query": {"recordType": "Item", "sortBy": [{"fieldName": field}]}}
    answers = [None] * count
    def ask(slot):
        answers[slot] = post("records/query", query, mallory)
    attack = time.time()
    askers = [threading.Thread(target=ask, args=(n,)) for n in range(count)]
    for thread in askers: thread.start()
    for thread in askers: thread.join()
    answered = time.time() - attack
    while not any(answer.get("status") == 200 for answer, _ in answers):
        time.sleep(0.5)
        answers.append(post("records/query", query, mallory))
    filled = time.time() - attack
    stop.set()
    lister.join()
    first = answers[:count]
    times = sorted(took for _, took in first)
    tally = {}
    for answer, _ in first: tally[said(answer)] = tally.get(said(answer), 0) + 1
    done = sorted(w for w in waits if w is not None)
    print(f"{count} first queries on {field}: answered {tally} in {times[0]:.2f}–{times[-1]:.2f} s "
          f"(median {times[len(times) // 2]:.2f} s; all within {answered:.1f} s); sent again {len(answers) - count} times, "
          f"queryable after {filled:.1f} s")
    if done:
        print(f"  alice: {len(waits)} zones/list, p50 {pick(done, 0.5):.0f} ms, p95 {pick(done, 0.95):.0f} ms, "
              f"max {done[-1] * 1000:.0f} ms, {len(waits) - len(done)} timed out (10 s)")
    else:
        print(f"  alice: {len(waits)} zones/list, all timed out (10 s)")
served.stop()
if database:
    subprocess.run(["psql", options.postgres, "-qc", f"DROP DATABASE {database}"], check=True)
