/*
 * The floor of bench/loadgen: the least a streaming client can do per chunk on this machine. One thread, epoll,
 * non-blocking keep-alive HTTP/1.1 connections, one read() per readiness event, no JSON parsing: it only finds each
 * chunk's server stamp ("text":"<nanoTime>;") to measure client-added latency, and the end of each response (the
 * terminal "0\r\n\r\n" of chunked encoding). Whatever CPU per chunk this client uses is kernel work (epoll, read, the
 * TCP ACK a read sends, scheduling) that any client pays, in any language.
 *
 *   floor_client PORT CONCURRENCY REQUESTS WARMUPS MAX_TOKENS [USAGE]
 *
 * USAGE 1 asks for stream_options.include_usage, as isobench loadgen does by default: the server then sends one more
 * event per response (the usage chunk, no text: not a chunk here either), so both clients read the same stream.
 *
 * COALESCE_US=W in the environment (default 0: off) makes it a coalescing client, for bench/floor-coalesce: after
 * each wake-up it sleeps W microseconds before it waits again, so one wake-up takes every event that arrived in the
 * meantime. Its latency figures then include that sleep (stamps are taken when the read returns); only its CPU per
 * chunk is the point (docs/loadgen.md, "Where the distance is, and coalesced wake-ups measured on the C floor").
 *
 * Prints one JSON line like bench/vllm_style_client.py: chunks, cpu_s / cpu_user_s / cpu_sys_s over the measured
 * phase (after WARMUPS requests have completed), cpu_total_s (the whole process), wall_s, failed, client-added latency
 * p50/p99/max (ms) and the ITL error p99 (ms).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    int fd;
    char tail[16];      /* last bytes of the previous read: markers split across reads */
    int tail_len;
    long long prev_arrival, prev_stamp;
    int measured;       /* this response started after the warm-up */
} conn_t;

static long long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static double cpu_s(int user) {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    struct timeval v = user ? r.ru_utime : r.ru_stime;
    return v.tv_sec + v.tv_usec / 1e6;
}

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *) a, y = *(const long long *) b;
    return x < y ? -1 : x > y;
}

static double pct_ms(long long *v, long n, double p) {
    if (n == 0) return -1;
    long i = (long) (p / 100.0 * (n - 1) + 0.5);
    return v[i] / 1e6;
}

static char request[512];
static int request_len;

static void send_request(conn_t *c) {
    int off = 0;
    while (off < request_len) {
        ssize_t w = write(c->fd, request + off, request_len - off);
        if (w < 0) {
            if (errno == EAGAIN) continue;
            perror("write");
            exit(1);
        }
        off += w;
    }
}

int main(int argc, char **argv) {
    if (argc != 6 && argc != 7) {
        fprintf(stderr, "usage: floor_client PORT CONCURRENCY REQUESTS WARMUPS MAX_TOKENS [USAGE]\n");
        return 2;
    }
    int port = atoi(argv[1]), conc = atoi(argv[2]), total = atoi(argv[3]), warm = atoi(argv[4]), tokens = atoi(argv[5]);
    int usage = argc == 7 && atoi(argv[6]) == 1;
    const char *co_env = getenv("COALESCE_US");
    char *co_end = NULL;
    long coalesce_us = co_env && *co_env ? strtol(co_env, &co_end, 10) : 0;
    if (co_env && *co_env && (*co_end != '\0' || coalesce_us < 0)) {
        fprintf(stderr, "floor_client: COALESCE_US=%s is not a whole number of microseconds >= 0 (fix: e.g. COALESCE_US=1000)\n", co_env);
        return 2;
    }
    struct timespec coalesce = {coalesce_us / 1000000, (coalesce_us % 1000000) * 1000};
    char body[256];
    int body_len = snprintf(body, sizeof body,
            "{\"model\":\"test\",\"prompt\":\"hello world\",\"max_tokens\":%d,\"ignore_eos\":true,\"stream\":true%s}", tokens,
            usage ? ",\"stream_options\":{\"include_usage\":true}" : "");
    request_len = snprintf(request, sizeof request,
            "POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            "Content-Length: %d\r\n\r\n%s", body_len, body);
    long cap = (long) total * (tokens + 2) + 16;
    long long *lat = malloc(cap * sizeof *lat), *itl = malloc(cap * sizeof *itl);
    long nlat = 0, nitl = 0, chunks = 0;
    int ep = epoll_create1(0);
    conn_t *cs = calloc(conc, sizeof *cs);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    int started = 0, done = 0;
    double u0 = 0, s0 = 0;
    long long t0 = 0, wall0 = now_ns();
    if (warm == 0) { u0 = cpu_s(1); s0 = cpu_s(0); t0 = now_ns(); }
    for (int i = 0; i < conc && started < total; i++) {
        conn_t *c = &cs[i];
        c->fd = socket(AF_INET, SOCK_STREAM, 0);
        int one = 1;
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        if (connect(c->fd, (struct sockaddr *) &a, sizeof a) != 0) { perror("connect"); return 1; }
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &e);
        c->measured = started >= warm;
        send_request(c);
        started++;
    }
    static char buf[65536 + 16];
    struct epoll_event evs[256];
    while (done < total) {
        if (coalesce_us > 0) {
            nanosleep(&coalesce, NULL);
        }
        int n = epoll_wait(ep, evs, 256, -1);
        for (int k = 0; k < n; k++) {
            conn_t *c = evs[k].data.ptr;
            memcpy(buf, c->tail, c->tail_len);
            ssize_t r = read(c->fd, buf + c->tail_len, 65536);
            if (r <= 0) { fprintf(stderr, "read: connection closed\n"); return 1; }
            long long arrival = now_ns();
            int len = c->tail_len + (int) r;
            /* chunk stamps: "text":"<digits>; */
            for (char *p = buf; (p = memmem(p, buf + len - p, "\"text\":\"", 8)) != NULL; p += 8) {
                char *q = p + 8;
                if (q >= buf + len || *q < '0' || *q > '9') continue;
                long long stamp = strtoll(q, NULL, 10);
                if (p < buf + c->tail_len) continue; /* counted in the previous read */
                if (c->measured) {
                    chunks++;
                    lat[nlat++] = arrival - stamp;
                    if (c->prev_stamp) itl[nitl++] = llabs((arrival - c->prev_arrival) - (stamp - c->prev_stamp));
                }
                c->prev_arrival = arrival;
                c->prev_stamp = stamp;
            }
            /* the server writes the terminal chunk in one write, after [DONE]: it ends a read */
            int end = len >= 5 && memcmp(buf + len - 5, "0\r\n\r\n", 5) == 0;
            c->tail_len = len < 15 ? len : 15;
            memcpy(c->tail, buf + len - c->tail_len, c->tail_len);
            if (end) {
                done++;
                c->tail_len = 0;
                c->prev_stamp = 0;
                if (done == warm) { u0 = cpu_s(1); s0 = cpu_s(0); t0 = now_ns(); }
                if (started < total) {
                    c->measured = started >= warm;
                    send_request(c);
                    started++;
                }
            }
        }
    }
    double user = cpu_s(1) - u0, sys = cpu_s(0) - s0;
    double wall = (now_ns() - t0) / 1e9;
    double total_cpu = cpu_s(1) + cpu_s(0);
    qsort(lat, nlat, sizeof *lat, cmp_ll);
    qsort(itl, nitl, sizeof *itl, cmp_ll);
    printf("{\"client\": \"floor-c\", \"chunks\": %ld, \"cpu_s\": %.6f, \"cpu_user_s\": %.6f, \"cpu_sys_s\": %.6f, "
           "\"cpu_total_s\": %.6f, \"wall_s\": %.6f, \"whole_wall_s\": %.6f, \"failed\": 0, \"lat_p50_ms\": %.4f, "
           "\"lat_p99_ms\": %.4f, \"lat_max_ms\": %.4f, \"itl_err_p99_ms\": %.4f}\n",
           chunks, user + sys, user, sys, total_cpu, wall, (now_ns() - wall0) / 1e9, pct_ms(lat, nlat, 50),
           pct_ms(lat, nlat, 99), nlat ? lat[nlat - 1] / 1e6 : -1, pct_ms(itl, nitl, 99));
    return 0;
}
