"""Paired launches of two builds of the static `ideabox`: DIR/ideabox-before and
DIR/ideabox-after, each on its own data root of 1,000 imported ideas, one of each per pair,
the order alternating; prints p50 / p95 of each and of the after/before ratio, pair by pair.

    python3 Benchmarks/thin-before-after.py PAIRS DIR
"""
import json, os, subprocess, sys, time, uuid

root = sys.argv[2] if len(sys.argv) > 2 else "/tmp/ideabox-thin-bench"
bins = {"before": root + "/ideabox-before", "after": root + "/ideabox-after"}
ideas = []
for i in range(1000):
    t = "2026-11-%02dT10:00:00.000Z" % (1 + i % 25)
    ideas.append({"id": str(uuid.UUID(int=i + 1)), "title": "Idea %d garden" % i if i % 7 == 0 else "Idea %d" % i,
                  "description": "text %d" % i, "deviceId": "bench-device", "isCompleted": i % 4 == 0, "createdAt": t, "updatedAt": t})
json.dump(ideas, open(root + "/ideas.json", "w"))
env = dict(os.environ, IDEABOX_NO_SAMPLES="1", LANG="C.UTF-8")
for name, path in bins.items():
    d = root + "/data-" + name
    subprocess.run(["rm", "-rf", d])
    subprocess.run([path, "import", root + "/ideas.json", "--data-dir", d], env=env, check=True, stdout=subprocess.DEVNULL)
commands = {
    "add TITLE": lambda d: ["add", "A new idea", "--data-dir", d],
    "list": lambda d: ["list", "--data-dir", d],
    "search garden": lambda d: ["search", "garden", "--data-dir", d],
    "show ID": lambda d: ["show", "00000000-0000-0000-0000-000000000005", "--data-dir", d],
}
pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 100
def run(name, args):
    start = time.perf_counter()
    subprocess.run([bins[name]] + args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - start) * 1000
for label, make in commands.items():
    times = {"before": [], "after": []}
    ratios = []
    for i in range(pairs):
        order = ["before", "after"] if i % 2 == 0 else ["after", "before"]
        got = {}
        for name in order:
            got[name] = run(name, make(root + "/data-" + name))
            times[name].append(got[name])
        ratios.append(got["after"] / got["before"])
    def p(xs, q): xs = sorted(xs); return xs[min(len(xs) - 1, int(q * len(xs)))]
    print("| %s | %.2f / %.2f ms | %.2f / %.2f ms | %.3f / %.3f |" % (
        label, p(times["before"], .5), p(times["before"], .95), p(times["after"], .5), p(times["after"], .95),
        p(ratios, .5), p(ratios, .95)))
