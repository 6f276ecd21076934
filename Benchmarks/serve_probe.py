"""What the `serve` probes in Benchmarks/ share: a throwaway `ideabox serve` on loopback with
accounts of its own, requests sent as one of them, and the server's memory. Loopback only."""
import json, os, shutil, subprocess, tempfile, threading, time, urllib.error, urllib.request

CONTAINER = "iCloud.com.buildwithharry.IdeaBox"


class Serve:
    """`BINARY serve` over `store`: a SQLite file in a folder of its own unless one is given."""

    def __init__(self, binary, store=None):
        self.binary = binary
        self.folder = tempfile.mkdtemp(prefix="ideabox-probe-")
        self.store = store or f"sqlite:{self.folder}/remote.sqlite"
        self.env = dict(os.environ, HOME=self.folder, IDEABOX_HOME=self.folder)
        self.process = None
        self.port = None

    def command(self, *arguments):
        """The last line `serve ARGUMENTS --store STORE` prints (a token, for `account add`)."""
        return subprocess.run([self.binary, "serve", *arguments, "--store", self.store], env=self.env,
                              capture_output=True, text=True, check=True).stdout.strip().splitlines()[-1]

    def add(self, name):
        """A new account's first token."""
        return self.command("account", "add", name)

    def start(self, *extra):
        """Starts the server on a free port, with `extra` arguments."""
        self.process = subprocess.Popen(
            [self.binary, "serve", "--listen", "127.0.0.1:0", "--store", self.store, *extra],
            env=self.env, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
        for line in self.process.stderr:
            if "listening on http://127.0.0.1:" in line:
                self.port = int(line.split("listening on http://127.0.0.1:")[1].split(" ")[0])
                break
        # Its request lines are read and dropped, so that a full pipe never holds it up.
        threading.Thread(target=lambda: self.process.stderr.read(), daemon=True).start()
        assert self.port, "serve did not start"

    def post(self, path, body, token, timeout=300):
        """POSTs `body` to the private database's `path` as `token`'s account: the answer's
        JSON with its HTTP `status` (or `{"error": …}` when none came), and the seconds taken."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/database/1/{CONTAINER}/production/private/{path}",
            data=json.dumps(body).encode(), headers={"Authorization": "Bearer " + token})
        started = time.time()
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return json.loads(answer.read()) | {"status": answer.status}, time.time() - started
        except urllib.error.HTTPError as error:
            return json.loads(error.read() or b"{}") | {"status": error.code}, time.time() - started
        except (TimeoutError, OSError) as error:
            return {"error": str(error)}, time.time() - started

    def resident_mib(self):
        """The server's resident memory now, in MiB."""
        for line in open(f"/proc/{self.process.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) >> 10
        return 0

    def stop(self):
        """Stops the server and removes its folder."""
        if self.process:
            self.process.terminate()
            self.process.wait()
        shutil.rmtree(self.folder)
