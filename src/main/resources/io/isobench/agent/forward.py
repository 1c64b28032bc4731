"""isobench's in-container egress forwarder (docs/agents.md, "Sandbox").

Runs inside an agent's container, which has no network but loopback (--network none). It listens on
127.0.0.1:PORT and pipes every TCP connection, byte for byte, to the host-side egress proxy's unix
socket (mounted at /run/isobench-egress/). It reads and changes nothing: the host-side proxy decides
what may pass, and it reaches exactly one upstream.

Usage: python3 forward.py PORT SOCKET. Exits 0 as soon as it listens (the serving process stays in
the background, in its own session), non-zero with a message on stderr when it cannot listen.
"""
import os
import socket
import sys
import threading


def pipe(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def serve(conn, path):
    up = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        up.connect(path)
    except OSError as e:
        sys.stderr.write("isobench-forward: %s: %s\n" % (path, e))
        conn.close()
        up.close()
        return
    back = threading.Thread(target=pipe, args=(up, conn), daemon=True)
    back.start()
    pipe(conn, up)
    back.join()
    conn.close()
    up.close()


def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))
    listener.listen(128)
    if os.fork() > 0:
        os._exit(0)  # listening: the caller may start the agent
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    while True:
        conn, _ = listener.accept()
        threading.Thread(target=serve, args=(conn, path), daemon=True).start()


if __name__ == "__main__":
    main()
