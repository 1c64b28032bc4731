"""A stand-in agent for DockerSandboxIT (test code): run by the `command` adapter inside the docker sandbox, it
tries every wall from inside and prints one line per check, `CHECK <name> PASS|FAIL <detail>` (PASS: the wall held,
or the positive control worked), then edits the repository and reports usage like an agent would.
Usage: python3 sandbox-probe.py BASE_URL (the forwarded model endpoint); settings in $HOME/probe.json."""
import glob
import json
import os
import shutil
import socket
import subprocess
import sys
import time

cfg = json.load(open(os.path.join(os.environ["HOME"], "probe.json")))
base = sys.argv[1]
assert base.startswith("http://127.0.0.1:"), base
port = int(base[len("http://127.0.0.1:"):].split("/")[0])


def check(name, ok, detail=""):
    print("CHECK %s %s %s" % (name, "PASS" if ok else "FAIL", str(detail).replace("\n", " ")[:300]), flush=True)


def tcp(host, p):
    try:
        s = socket.create_connection((host, p), timeout=3)
        s.close()
        return "connected"
    except OSError as e:
        return "failed: %s" % e


def raw(request, until=None, timeout=10):
    """Sends REQUEST on a new connection to the forwarded port; the response text (to close or UNTIL)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    s.sendall(request.encode("latin-1"))
    data = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
            if until is not None and until.encode() in data:
                break
    except socket.timeout:
        pass
    s.close()
    return data.decode("latin-1")


# (a) host paths
for path in cfg["host_paths"]:
    check("host-path-absent:" + path, not os.path.exists(path))
check("work-holds-only-the-repo", os.listdir("/work") == ["repo"], os.listdir("/work"))
hostname = open("/etc/hostname").read().strip()
check("hostname-differs", hostname != cfg["host_hostname"], hostname)
try:
    os.listdir("/root")
    check("root-home-unreadable", False, "listed /root")
except OSError as e:
    check("root-home-unreadable", True, e)
check("no-docker-socket", not os.path.exists("/var/run/docker.sock") and not os.path.exists("/run/docker.sock"))

# (b) other ports, other hosts: only a listener of the test's own on the host's loopback is ever dialled (no other
# address is, not even to show that it fails); that nothing else is reachable is read off the routing tables
check("host-loopback-port-unreachable", tcp("127.0.0.1", cfg["host_port"]) != "connected",
      tcp("127.0.0.1", cfg["host_port"]))


def route_ifaces(path, iface_column):
    try:
        with open(path) as f:
            rows = [line.split() for line in f.read().splitlines()]
    except OSError as e:
        return ["unreadable: %s" % e]
    return sorted({r[iface_column] for r in rows if len(r) > iface_column and r[iface_column] != "Iface"})


routes4 = route_ifaces("/proc/net/route", 0)
check("no-ipv4-route-out", all(i == "lo" for i in routes4), routes4)
routes6 = route_ifaces("/proc/net/ipv6_route", 9)
check("no-ipv6-route-out", all(i == "lo" for i in routes6), routes6)
resolv = open("/etc/resolv.conf").read() if os.path.exists("/etc/resolv.conf") else ""
servers = [l.split()[1] for l in resolv.splitlines() if l.startswith("nameserver") and len(l.split()) > 1]
check("no-resolver-reachable", all(i == "lo" for i in routes4 + routes6), {"nameservers": servers,
                                                                          "routes": routes4 + routes6})
ifaces = sorted(os.listdir("/sys/class/net"))
check("only-loopback-interface", ifaces == ["lo"], ifaces)


# (c) the human commit
def git(*args):
    r = subprocess.run(["git"] + list(args), capture_output=True, text=True)
    return r.returncode, r.stdout.strip()


commits = git("log", "--all", "--format=%H")[1].split()
check("one-commit", len(commits) == 1, commits)
check("human-commit-absent", git("cat-file", "-e", cfg["human_sha"])[0] != 0)
check("engine-parent-absent", git("cat-file", "-e", cfg["parent_sha"])[0] != 0)
check("no-remotes", git("remote")[1] == "", git("remote")[1])
refs = git("for-each-ref", "--format=%(refname)")[1].split()
check("only-main-ref", refs == ["refs/heads/main"], refs)
check("no-human-subject", cfg["human_subject"] not in git("log", "--all", "--format=%s%n%b")[1])

# (d) not root
check("uid-10001", os.getuid() == 10001 and os.geteuid() == 10001 and os.getgid() == 10001,
      (os.getuid(), os.geteuid(), os.getgid()))
check("no-sudo", shutil.which("sudo") is None, shutil.which("sudo"))
try:
    os.setuid(0)
    check("cannot-setuid-root", False, "setuid(0) worked")
except OSError as e:
    check("cannot-setuid-root", True, e)
capeff = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")][0]
check("no-capabilities", int(capeff, 16) == 0, capeff)
nnp = [l.split()[1] for l in open("/proc/self/status") if l.startswith("NoNewPrivs")][0]
check("no-new-privileges", nnp == "1", nnp)
check("etc-not-writable", not os.access("/etc/passwd", os.W_OK))

# (e) the proxy reaches one upstream only
r = raw("GET http://example.com/v1/echo HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")
check("proxy-refuses-absolute-uri", r.startswith("HTTP/1.1 403"), r.split("\r\n")[0])
r = raw("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
check("proxy-refuses-connect", r.startswith("HTTP/1.1 405"), r.split("\r\n")[0])
r = raw("GET /v1/echo HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n")
check("proxy-forged-host-reaches-upstream-only", r.startswith("HTTP/1.1 200")
      and ("host=" + cfg["upstream_host"]) in r and "evil.example" not in r, r.split("\r\n")[-1])
r = raw("GET /admin HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
check("proxy-refuses-other-path", r.startswith("HTTP/1.1 403"), r.split("\r\n")[0])
r = raw("GET /v1/ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
check("proxy-refuses-upgrade", r.startswith("HTTP/1.1 403"), r.split("\r\n")[0])

# positive control: the model endpoint streams incrementally (event two is held back by the upstream until this
# agent asks for it, so event one can only arrive first if nothing buffers the stream)
s = socket.create_connection(("127.0.0.1", port), timeout=20)
s.sendall(b"POST /v1/stream HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}")
data = b""
t0 = time.time()
while b"data: one" not in data:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
one_first = b"data: one" in data and b"data: two" not in data
released = raw("GET /v1/release HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
while b"data: two" not in data:
    chunk = s.recv(65536)
    if not chunk:
        break
    data += chunk
s.close()
check("sse-streams-incrementally", one_first and b"data: two" in data and released.startswith("HTTP/1.1 200"),
      "one first: %s, %.2f s" % (one_first, time.time() - t0))

# secrets: in the environment, in no process's argv
secret = os.environ.get("ISOBENCH_TEST_SECRET", "")
check("secret-in-env", len(secret) > 10)
in_argv = []
for f in glob.glob("/proc/[0-9]*/cmdline"):
    try:
        if secret.encode() in open(f, "rb").read():
            in_argv.append(f)
    except OSError:
        pass
check("secret-in-no-cmdline", secret != "" and not in_argv, in_argv)
print("the agent echoes its key: " + secret, flush=True)
# the host side inspects this container now, while it runs
r = raw("GET /v1/inspect HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", timeout=60)
check("host-inspected", r.startswith("HTTP/1.1 200"), r.split("\r\n")[0])

# the edit that becomes the patch; a scratch file that does not
with open("toyllm/config.py", "a") as f:
    f.write("# edited by the sandbox probe\n")
os.makedirs("__pycache__", exist_ok=True)
open("__pycache__/scratch.pyc", "w").write("x")
print('isobench-usage: {"turns": 1, "tokens_in": 120, "tokens_out": 30, "cost_usd": 0.001}', flush=True)
