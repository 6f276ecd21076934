#!/usr/bin/env python3
"""What a held long poll costs `serve` in memory (issue 40 part 2), split from what an idle
connection costs: a benchmark, not a test. Loopback only, bounded in count and time.

    Benchmarks/serve-poll-memory.py IDEABOX MODE COUNT [serve arguments...]

Starts IDEABOX serve over a new SQLite file (or $STORE, a postgres:// URL) with COUNT/20
accounts (the first poll of each makes its zone subscription), opens COUNT connections
from this one process and prints the server's memory before and after, per connection.
MODE: idle (connections that send nothing), fetches (each fetches its database's changes once,
then stays open and idle), polls (each holds a long poll: 60 s, then
asks again), fetch-polls (each first fetches its database's changes on the same connection, as
a device does between polls, then holds a poll), polls-trim (polls, then glibc's
malloc_trim(0) called in the server by gdb).
The environment passes to serve, so MALLOC_ARENA_MAX=2 in front of the command is seen
there; TRIM=1 calls malloc_trim(0) as polls-trim does, in any mode, and
again once the connections are closed; WRAP="heaptrack -o FILE" runs serve under that command; HOLD=SECONDS keeps the
connections that much longer, to look at the server. Raise the file limit first: ulimit -n 20000.
"""
import atexit, json, os, resource, selectors, shutil, socket, subprocess, sys, tempfile, threading, time, urllib.request

binary, mode, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
extra = sys.argv[4:]
CONTAINER = "iCloud.com.buildwithharry.IdeaBox"
PER_ACCOUNT = 20
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
folder = tempfile.mkdtemp(prefix="ideabox-poll-memory-")
store = os.environ.get("STORE") or f"sqlite:{folder}/remote.sqlite"
env = dict(os.environ, HOME=folder, IDEABOX_HOME=folder)
run_id = f"{os.getpid()}-{int(time.time())}"

def add(name):
    return subprocess.run([binary, "serve", "account", "add", name, "--store", store], env=env,
                          capture_output=True, text=True, check=True).stdout.strip()

accounts = [add(f"memory-{run_id}-{index}") for index in range(max(1, count // PER_ACCOUNT))] if mode != "idle" else []
server = subprocess.Popen(os.environ.get("WRAP", "").split() + [binary, "serve", "--listen", "127.0.0.1:0", "--store", store, "--idle-timeout", "3600",
                           "--max-polls-per-token", str(PER_ACCOUNT)] + extra,
                          env=env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
port = None
for line in server.stderr:
    if "listening on http://127.0.0.1:" in line:
        port = int(line.split("listening on http://127.0.0.1:")[1].split(" ")[0])
        break
threading.Thread(target=lambda: server.stderr.read(), daemon=True).start()
atexit.register(lambda: server.poll() is None and server.terminate())
assert port, "serve did not start"

def post(path, body, token):
    request = urllib.request.Request(f"http://127.0.0.1:{port}/database/1/{CONTAINER}/production/private/{path}",
                                     data=json.dumps(body).encode(), headers={"Authorization": "Bearer " + token})
    with urllib.request.urlopen(request, timeout=90) as answer:
        return json.loads(answer.read())

def memory():
    fields = {}
    for line in open(f"/proc/{server.pid}/smaps_rollup"):
        parts = line.split()
        if len(parts) == 3 and parts[2] == "kB":
            fields[parts[0].rstrip(":")] = int(parts[1])
    threads = len(os.listdir(f"/proc/{server.pid}/task"))
    files = len(os.listdir(f"/proc/{server.pid}/fd"))
    return fields["Rss"], fields["Anonymous"], threads, files

def show(label, now, base):
    rss, anonymous, threads, files = now
    per = (rss - base[0]) / max(1, count)
    print(f"{label}: RSS {rss / 1024:.1f} MiB (anonymous {anonymous / 1024:.1f}), {threads} threads, {files} files; "
          f"{per:.1f} KiB per connection over the start", flush=True)

tickets = []
for token in accounts:
    post("subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionType": "zone", "subscriptionID": "s", "zoneID": {"zoneName": "_defaultZone"}}}]}, token)
    url = post("tokens/create", {"apnsEnvironment": "production"}, token)["webcourierURL"]
    tickets.append(url[url.index("/webcourier"):])
time.sleep(1)
base = memory()
show("started", base, base)

selector = selectors.DefaultSelector()
sockets = []
started = time.time()
def fetch(connection, token):
    """`changes/database` on `connection`, kept open: read to its body's end."""
    body = b"{}"
    connection.sendall(f"POST /database/1/{CONTAINER}/production/private/changes/database HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       f"Authorization: Bearer {token}\r\nContent-Length: {len(body)}\r\n\r\n".encode() + body)
    answer = b""
    while b"\r\n\r\n" not in answer or len(answer.split(b"\r\n\r\n", 1)[1]) < int(
            answer.lower().split(b"content-length:")[1].split(b"\r\n")[0]):
        answer += connection.recv(65536)
    assert answer.startswith(b"HTTP/1.1 200"), answer[:200]

for index in range(count):
    connection = socket.create_connection(("127.0.0.1", port))
    if mode in ("fetch-polls", "fetches"):
        fetch(connection, accounts[index % len(accounts)])
    if mode not in ("idle", "fetches"):
        request = f"GET {tickets[index % len(tickets)]}?timeout=60 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
        connection.sendall(request)
        connection.setblocking(False)
        selector.register(connection, selectors.EVENT_READ, request)
    sockets.append(connection)

received = {}

def answer_polls(until):
    """Reads answers (a poll's time up, or a wake) and, once one is whole (its chunked body's
    end, or its Content-Length's last byte: a JSON object's brace), asks again at once, as a
    device does."""
    answered = 0
    while time.time() < until:
        for key, _ in selector.select(timeout=0.2):
            try:
                data = key.fileobj.recv(65536)
            except BlockingIOError:
                continue
            if not data:
                selector.unregister(key.fileobj)
                continue
            so_far = received.get(key.fileobj, b"") + data
            whole = so_far.endswith(b"\r\n0\r\n\r\n") or (b"content-length:" in so_far.lower() and so_far.endswith(b"}"))
            received[key.fileobj] = b"" if whole else so_far
            if whole:
                answered += 1
                key.fileobj.sendall(key.data)
    return answered

print(f"{count} connections ({mode}) opened in {time.time() - started:.1f} s", flush=True)
answered = answer_polls(time.time() + 15) if mode not in ("idle", "fetches") else time.sleep(15) or 0
show(f"15 s later ({answered} polls answered early)", memory(), base)
if mode == "polls-trim" or os.environ.get("TRIM"):
    trim = subprocess.run(["gdb", "-p", str(server.pid), "-batch", "-ex", "call (int) malloc_trim(0)"], capture_output=True, text=True)
    print("gdb:", (trim.stdout.strip().splitlines() or ["(nothing)"])[-1], flush=True)
    show("after malloc_trim(0)", memory(), base)
if os.environ.get("HOLD"):
    print(f"holding for {os.environ['HOLD']} s: serve is process {server.pid}", flush=True)
    answer_polls(time.time() + float(os.environ["HOLD"])) if mode not in ("idle", "fetches") else time.sleep(float(os.environ["HOLD"]))
for connection in sockets:
    connection.close()
time.sleep(3)
show("3 s after closing them", memory(), base)
time.sleep(3)
show("6 s after closing them", memory(), base)
if os.environ.get("TRIM"):
    subprocess.run(["gdb", "-p", str(server.pid), "-batch", "-ex", "call (int) malloc_trim(0)"], capture_output=True, text=True)
    show("closed, then malloc_trim(0)", memory(), base)
server.terminate()
server.wait()
shutil.rmtree(folder)
