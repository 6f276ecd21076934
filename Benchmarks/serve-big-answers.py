#!/usr/bin/env python3
"""Break 2 of issue 60, for figures before and after: a benchmark, not a test (the test that
must pass is ServeBigAnswersTests). Loopback only, bounded in count and time.

    Benchmarks/serve-big-answers.py IDEABOX [RECORDS] [serve arguments...]

Starts IDEABOX serve on SQLite with accounts mallory and alice. Mallory stores RECORDS
(default 300) records of 900 KB in a zone of its own, then reads them back as the attack did: one records/query of
resultsLimit 200, then three at once; one records/changes page of 300, then three at once;
one records/lookup of 200 names, then three at once. Meanwhile alice creates a small record
every 50 ms. For each step it prints what mallory was answered (records, or the error), how
long the slowest read took, the server's peak resident memory during the step (VmRSS sampled
every 10 ms) and alice's p50/p95/max (timeouts at 10 s).
"""
import sys, threading, time
from serve_probe import Serve

binary = sys.argv[1]
records = int(sys.argv[2]) if len(sys.argv) > 2 else 300
extra = sys.argv[3:]
served = Serve(binary)
mallory, alice = served.add("mallory"), served.add("alice")
served.start(*extra)
post, resident = served.post, served.resident_mib

def create(name, fields, token, timeout=300, zone="_defaultZone"):
    body = {"zoneID": {"zoneName": zone},
            "operations": [{"operationType": "forceReplace", "record": {"recordName": name, "recordType": "Photo", "fields": fields}}]}
    return post("records/modify", body, token, timeout)

answer, _ = post("zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Big"}}}]}, mallory)
assert "zones" in answer, answer
large = "x" * 900_000
for index in range(records):
    answer, _ = create(f"large{index:03d}", {"body": {"value": large}}, mallory, zone="Big")
    assert "records" in answer and "serverErrorCode" not in answer["records"][0], answer
print(f"{records} records of 900 KB stored; RSS {resident()} MiB")

waits, stop = [], threading.Event()
def alice_writes():
    index = 0
    while not stop.is_set():
        answer, took = create(f"small{index}", {"title": {"value": f"idea {index}"}}, alice, timeout=10)
        waits.append(took if "records" in answer else None)
        index += 1
        time.sleep(0.05)
writer = threading.Thread(target=alice_writes)
writer.start()

def said(answer):
    if "records" in answer:
        more = " moreComing" if answer.get("moreComing") else ""
        marker = " +continuationMarker" if answer.get("continuationMarker") else ""
        return f"{len(answer['records'])} records{more}{marker}"
    return str(answer.get("serverErrorCode") or answer.get("error") or answer)[:80]

def step(name, path, body, at_once):
    time.sleep(1.0)
    start_waits, peak, sampling = len(waits), [resident()], threading.Event()
    def sample():
        while not sampling.is_set():
            peak[0] = max(peak[0], resident())
            time.sleep(0.01)
    sampler = threading.Thread(target=sample)
    sampler.start()
    results = [None] * at_once
    def read(index):
        results[index] = post(path, body, mallory)
    readers = [threading.Thread(target=read, args=(index,)) for index in range(at_once)]
    for reader in readers: reader.start()
    for reader in readers: reader.join()
    time.sleep(0.3)
    sampling.set()
    sampler.join()
    mine = waits[start_waits:]
    done = sorted(w for w in mine if w is not None)
    pick = lambda q: done[min(len(done) - 1, int(q * len(done)))] * 1000 if done else float("nan")
    slowest = max(took for _, took in results)
    answers = ", ".join(sorted(set(said(answer) for answer, _ in results)))
    print(f"{name}: {answers}; slowest {slowest:.2f} s; peak RSS {peak[0]} MiB; alice {len(mine)} creates, "
          f"p50 {pick(0.5):.0f} ms, p95 {pick(0.95):.0f} ms, max {(done[-1] * 1000 if done else float('nan')):.0f} ms, "
          f"{len(mine) - len(done)} timed out")

zone = {"zoneName": "Big"}
query = {"zoneID": zone, "resultsLimit": 200, "query": {"recordType": "Photo"}}
changes = {"zoneID": zone, "resultsLimit": records}
lookup = {"zoneID": zone, "records": [{"recordName": f"large{index:03d}"} for index in range(min(200, records))]}
for at_once in (1, 3):
    step(f"records/query resultsLimit 200 x{at_once}", "records/query", query, at_once)
for at_once in (1, 3):
    step(f"records/changes page of {records} x{at_once}", "records/changes", changes, at_once)
for at_once in (1, 3):
    step(f"records/lookup of {len(lookup['records'])} names x{at_once}", "records/lookup", lookup, at_once)
stop.set()
writer.join()
served.stop()
