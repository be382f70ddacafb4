/* The write-path benchmark from C (as `mbhash bench --pipeline`): W writer
 * threads each produce 128 KiB records and need each record's digest
 * before going on.
 *
 *   per-writer  each writer hashes its record itself (mbh_hash_many, one
 *               message: the one-stream path)
 *   pool        each writer calls mbh_pool_hash on one shared pool
 *   service     each writer submits to an mbh_service and waits for the
 *               callback (one record in flight per writer)
 *
 * Prints GB/s, process CPU seconds per GiB (getrusage), and the p50 / p99
 * latency from a record being ready to its digest.
 *
 * Usage: pipeline [MILLISECONDS_PER_MODE] [WRITERS...]   (default 500; 1 2 4 8)
 */
#define _POSIX_C_SOURCE 200809L
#include <mbhash.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>

#define RECORD (128u << 10)
#define MAX_SAMPLES 200000

enum mode { PER_WRITER, POOL, SERVICE };
static const char *const MODE_NAMES[] = {"per-writer", "pool", "service"};

static mbh_pool *pool;
static mbh_service *service;
static atomic_int stop;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double cpu_seconds(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
           (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
}

struct waiter {
    pthread_mutex_t m;
    pthread_cond_t c;
    int done;
    uint8_t digest[32];
};

static void on_done(void *arg, mbh_result status, const uint8_t *digest, size_t len) {
    struct waiter *w = arg;
    pthread_mutex_lock(&w->m);
    if (status == MBH_OK && len <= sizeof w->digest) memcpy(w->digest, digest, len);
    w->done = 1;
    pthread_cond_signal(&w->c);
    pthread_mutex_unlock(&w->m);
}

struct writer {
    enum mode mode;
    size_t records;
    size_t nlat;
    double *lat_us;
};

static void *writer(void *p) {
    struct writer *wr = p;
    uint8_t *buf = malloc(RECORD);
    if (!buf) return NULL;
    for (size_t i = 0; i < RECORD; i++) buf[i] = (uint8_t)(i * 31 + (uintptr_t)p);
    struct waiter w;
    pthread_mutex_init(&w.m, NULL);
    pthread_cond_init(&w.c, NULL);
    uint8_t out[32];
    while (wr->records == 0 || !atomic_load(&stop)) {
        for (size_t b = 0; b < RECORD; b += 4096) memcpy(buf + b, &wr->records, sizeof wr->records);
        double t = now();
        mbh_result r = MBH_OK;
        if (wr->mode == PER_WRITER) {
            const uint8_t *msg = buf;
            size_t len = RECORD;
            r = mbh_hash_many(MBH_SHA256, &msg, &len, 1, out, sizeof out);
        } else if (wr->mode == POOL) {
            struct iovec iov = {buf, RECORD};
            r = mbh_pool_hash(pool, MBH_SHA256, &iov, 1, out, sizeof out);
        } else {
            w.done = 0;
            r = mbh_service_submit(service, MBH_SHA256, buf, RECORD, on_done, &w);
            pthread_mutex_lock(&w.m);
            while (r == MBH_OK && !w.done) pthread_cond_wait(&w.c, &w.m);
            pthread_mutex_unlock(&w.m);
        }
        if (r != MBH_OK) {
            fprintf(stderr, "pipeline: %s\n", mbh_result_str(r));
            exit(1);
        }
        if (wr->nlat < MAX_SAMPLES) wr->lat_us[wr->nlat++] = (now() - t) * 1e6;
        wr->records++;
    }
    free(buf);
    return NULL;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run(enum mode mode, int writers, long ms) {
    pthread_t t[64];
    struct writer wr[64];
    atomic_store(&stop, 0);
    double cpu0 = cpu_seconds(), t0 = now();
    for (int i = 0; i < writers; i++) {
        wr[i] = (struct writer){mode, 0, 0, malloc(MAX_SAMPLES * sizeof(double))};
        pthread_create(&t[i], NULL, writer, &wr[i]);
    }
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
    atomic_store(&stop, 1);
    size_t records = 0, n = 0;
    for (int i = 0; i < writers; i++) {
        pthread_join(t[i], NULL);
        records += wr[i].records;
        n += wr[i].nlat;
    }
    double secs = now() - t0, cpu = cpu_seconds() - cpu0;
    double *all = malloc((n + 1) * sizeof(double));
    size_t k = 0;
    for (int i = 0; i < writers; i++) {
        memcpy(all + k, wr[i].lat_us, wr[i].nlat * sizeof(double));
        k += wr[i].nlat;
        free(wr[i].lat_us);
    }
    qsort(all, n, sizeof(double), cmp_double);
    double bytes = (double)records * RECORD;
    printf("%-10s %7d %8.3f %12.3f %9.1f %9.1f\n", MODE_NAMES[mode], writers, bytes / secs / 1e9,
           cpu / (bytes / (double)(1u << 30)), n ? all[n / 2] : 0.0,
           n ? all[(size_t)((double)(n - 1) * 0.99)] : 0.0);
    free(all);
}

int main(int argc, char **argv) {
    long ms = argc > 1 ? strtol(argv[1], NULL, 0) : 500;
    int writers[16] = {1, 2, 4, 8}, nw = 4;
    if (argc > 2) {
        nw = 0;
        for (int i = 2; i < argc && nw < 16; i++) {
            int w = atoi(argv[i]);
            if (w >= 1 && w <= 64) writers[nw++] = w;
        }
    }
    if (mbh_pool_new(&pool) != MBH_OK || mbh_service_new(0, &service) != MBH_OK) {
        fprintf(stderr, "pipeline: cannot start\n");
        return 1;
    }
    printf("sha256, 128 KiB records\n%-10s %7s %8s %12s %9s %9s\n", "mode", "writers", "GB/s",
           "CPU s/GiB", "p50 us", "p99 us");
    for (int i = 0; i < nw; i++)
        for (int m = PER_WRITER; m <= SERVICE; m++) run((enum mode)m, writers[i], ms);
    mbh_service_free(service);
    mbh_pool_free(pool);
    return 0;
}
