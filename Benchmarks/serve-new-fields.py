#!/usr/bin/env python3
"""Break 3 of issue 60, for figures before and after (BENCHMARKS.md): a benchmark, not a test
(the tests that must pass are SchemaConformanceTests' issue-60 cases). Loopback only,
bounded in count and time.

    Benchmarks/serve-new-fields.py IDEABOX RECORDS FIELDS [SAVES] [serve arguments...]

Starts IDEABOX serve on SQLite with accounts mallory and alice. Mallory stores RECORDS records
of 900 KB, then sends SAVES (default 3) saves, one after the other, each naming FIELDS new
fields of the same record type; meanwhile alice creates a small record every 50 ms. Prints how
long each of mallory's saves took and what it was answered, alice's p50/p95/max and her
timeouts (10 s), and the server's peak resident memory (VmHWM).
"""
import json, sys, threading, time
from serve_probe import Serve

binary, records, fields = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
saves = int(sys.argv[4]) if len(sys.argv) > 4 else 3
extra = sys.argv[5:]
served = Serve(binary)
mallory, alice = served.add("mallory"), served.add("alice")
served.start(*extra)
post = served.post

def create(name, fields, token, timeout=300):
    body = {"zoneID": {"zoneName": "_defaultZone"},
            "operations": [{"operationType": "forceReplace", "record": {"recordName": name, "recordType": "Photo", "fields": fields}}]}
    return post("records/modify", body, token, timeout)

def peak():
    for line in open(f"/proc/{served.process.pid}/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) >> 10

large = "x" * 900_000
for index in range(records):
    answer, _ = create(f"large{index}", {"body": {"value": large}}, mallory)
    assert "records" in answer and "serverErrorCode" not in answer["records"][0], answer
print(f"{records} records of 900 KB stored; peak RSS {peak()} MiB")

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
time.sleep(0.5)
for save in range(saves):
    named = {f"s{save}f{index}": {"value": index} for index in range(fields)}
    answer, took = create(f"wide{save}", named, mallory)
    said = answer.get("reason") or answer.get("error") or ("saved" if "records" in answer else answer)
    size = len(json.dumps(named)) >> 10
    print(f"mallory's save {save + 1}: {fields} new fields ({size} KiB): {took:.2f} s, {str(said)[:110]}")
time.sleep(0.5)
stop.set()
writer.join()
done = sorted(w for w in waits if w is not None)
if done:
    pick = lambda q: done[min(len(done) - 1, int(q * len(done)))] * 1000
    print(f"alice: {len(waits)} creates, p50 {pick(0.5):.0f} ms, p95 {pick(0.95):.0f} ms, max {done[-1] * 1000:.0f} ms, "
          f"{len(waits) - len(done)} timed out (10 s); server peak RSS {peak()} MiB")
else:
    print(f"alice: {len(waits)} creates, all timed out; server peak RSS {peak()} MiB")
served.stop()
