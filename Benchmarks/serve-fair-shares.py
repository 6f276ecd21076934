#!/usr/bin/env python3
"""The hostile account of issue 37, for figures before and after (BENCHMARKS.md): a
benchmark, not a test (the tests that must pass are ServeFairShareTests). Its waits are
the attack's own pace (a byte every round) and the moments it measures (1 s and 5 s after
the attack). Loopback only, bounded in count and time.

    Benchmarks/serve-fair-shares.py IDEABOX MODE COUNT [serve arguments...]

Starts IDEABOX serve under prlimit --nofile=1024:1024 (mode reset-memory: no limit) with
accounts alice (the attacker) and bob, runs the attack, and prints what bob waited and
what the server held: open files, long polls held, resident memory.
MODE: hit-and-run (polls sent and closed: FIN), reset-memory (polls reset: RST), held-polls,
slow-bodies (Content-Length 100000, a byte every 5 s), slow-uploads (Content-Length 1000).
"""
import json, os, shutil, socket, struct, subprocess, sys, tempfile, threading, time, urllib.request

binary, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = sys.argv[4:]
CONTAINER = "iCloud.com.buildwithharry.IdeaBox"
folder = tempfile.mkdtemp(prefix="ideabox-probe-")
store = f"sqlite:{folder}/remote.sqlite"
env = dict(os.environ, HOME=folder, IDEABOX_HOME=folder)

def add(name):
    return subprocess.run([binary, "serve", "account", "add", name, "--store", store], env=env,
                          capture_output=True, text=True, check=True).stdout.strip()

alice, bob = add("alice"), add("bob")
limit = [] if mode == "reset-memory" else ["prlimit", "--nofile=1024:1024"]
server = subprocess.Popen(limit + [binary, "serve", "--listen", "127.0.0.1:0", "--store", store] + extra,
                          env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
# The port from serve's first line; its request lines are then read and dropped, so that
# a full pipe never holds the server up.
port = None
for line in server.stderr:
    if "listening on http://127.0.0.1:" in line:
        port = int(line.split("listening on http://127.0.0.1:")[1].split(" ")[0])
        break
threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
assert port, "serve did not start"

def post(path, body, token):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/database/1/{CONTAINER}/production/private/{path}",
                                     data=json.dumps(body).encode(), headers={"Authorization": "Bearer " + token})
    started = time.time()
    try:
        with urllib.request.urlopen(request, timeout=90) as answer:
            return json.loads(answer.read()), time.time() - started
    except urllib.error.HTTPError as error:
        return {"status": error.code}, time.time() - started

def held():
    files = len(os.listdir(f"/proc/{server.pid}/fd"))
    rss = int(open(f"/proc/{server.pid}/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=90) as answer:
        polls = [l.split()[1] for l in answer.read().decode().splitlines() if l.startswith("ideabox_long_polls_held ")]
    return f"files {files}, polls held {polls[0]}, RSS {rss} MiB"

post("subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
    "subscriptionType": "zone", "subscriptionID": "s", "zoneID": {"zoneName": "_defaultZone"}}}]}, alice)
courier = post("tokens/create", {"apnsEnvironment": "production"}, alice)[0]["webcourierURL"]
poll = f"GET {courier[courier.index('/webcourier'):]} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
body = (f"POST /database/1/{CONTAINER}/production/private/records/modify HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        f"Authorization: Bearer {alice}\r\nContent-Length: 100000\r\n\r\n{{").encode()

def upload():
    url = post("assets/upload", {"tokens": [{"recordType": "F", "fieldName": "f"}]}, alice)[0]["tokens"][0]["url"]
    return f"POST {url[url.index('/assets'):]} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\nx".encode()

print(f"{mode} × {count}: before: {held()}")
started, sockets = time.time(), []
for index in range(count):
    connection = socket.create_connection(("127.0.0.1", port))
    connection.sendall({"slow-bodies": body, "slow-uploads": upload() if mode == "slow-uploads" else b""}.get(mode, poll))
    if mode == "hit-and-run":
        connection.close()
    elif mode == "reset-memory":
        connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        connection.close()
    else:
        sockets.append(connection)
print(f"sent in {time.time() - started:.1f} s: {held()}")
for round in range(3):
    for connection in sockets:
        try:
            connection.send(b" ")
        except OSError:
            pass
    if mode == "slow-uploads":
        url = post("assets/upload", {"tokens": [{"recordType": "F", "fieldName": "f"}]}, bob)[0]["tokens"][0]["url"]
        request = urllib.request.Request(url, data=b"hello", method="POST")
        started = time.time()
        try:
            with urllib.request.urlopen(request, timeout=90) as answer:
                status = answer.status
        except urllib.error.HTTPError as error:
            status = error.code
        print(f"bob's upload: {status} in {time.time() - started:.3f} s")
    else:
        answer, took = post("zones/list", {}, bob)
        print(f"bob's zones/list: {'200' if 'zones' in answer else answer} in {took:.3f} s; {held()}")
    time.sleep(2)
for connection in sockets:
    connection.close()
time.sleep(1)
print(f"attack over, 1 s later: {held()}")
time.sleep(4)
print(f"5 s later: {held()}")
server.terminate()
server.wait()
shutil.rmtree(folder)
