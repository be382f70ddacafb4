/* Misuse that must be an error code, never a hang, a crash or a Rust panic:
 * a waiting submit from a service callback, worker counts past the bound,
 * the library in a forked child (its first call racing the parent's, and
 * the parent's service), and second frees.
 *
 * Every wait has a deadline: a hang fails (SIGALRM) instead of hanging.
 *
 * Usage: misuse [quick]      everything but the first-call race (and, under
 *                            ASan, whose allocator is not fork-safe, the
 *                            forks: a child forked while a worker frees
 *                            memory could wait on its lock forever)
 *        misuse fork         the parent's service in a forked child
 *        misuse race [quick] only the first-call race (run it in a fresh
 *                            process: the library's first call is the test)
 *        misuse oom          handles made with no memory left (not under a
 *                            sanitizer or valgrind: it sets RLIMIT_AS)
 * "quick": the valgrind run (fewer children, see fork_child). */
#define _POSIX_C_SOURCE 200809L
#include "common.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Seconds a run, or a forked child, may take before it counts as hung. */
#ifndef DEADLINE
#define DEADLINE 240
#endif

static uint8_t DATA[4096];

static void sleep_ms(long ms) {
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* ---- a waiting submit from a callback ---- */

struct job {
    atomic_int calls;
    atomic_int status;
};

static void on_done(void *arg, mbh_result status, const uint8_t *digest, size_t len) {
    (void)digest;
    (void)len;
    struct job *j = arg;
    atomic_store(&j->status, (int)status);
    atomic_fetch_add(&j->calls, 1);
}

/* What the callback under test did, and what it submits to. */
static struct {
    mbh_service *svc;   /* the service it runs on */
    mbh_service *other; /* another service */
    atomic_int reached;
    atomic_int open;
    atomic_int done;
    mbh_result blocking;       /* mbh_service_submit to svc */
    mbh_result blocking_other; /* mbh_service_submit to other */
    mbh_result trying;         /* mbh_service_try_submit to svc */
    struct job inner[3];
} cb;

static void on_gate(void *arg, mbh_result status, const uint8_t *digest, size_t len) {
    (void)arg;
    (void)digest;
    (void)len;
    CHECK(status == MBH_OK);
    atomic_store(&cb.reached, 1);
    while (!atomic_load(&cb.open)) sleep_ms(1);
    cb.blocking = mbh_service_submit(cb.svc, MBH_SHA256, DATA, 10, on_done, &cb.inner[0]);
    cb.blocking_other =
        cb.other ? mbh_service_submit(cb.other, MBH_SHA256, DATA, 10, on_done, &cb.inner[1]) : MBH_OK;
    cb.trying = mbh_service_try_submit(cb.svc, MBH_SHA512, DATA, 10, on_done, &cb.inner[2]);
    atomic_store(&cb.done, 1);
}

static void reset_cb(mbh_service *svc, mbh_service *other) {
    memset(&cb, 0, sizeof cb);
    cb.svc = svc;
    cb.other = other;
}

/* One worker held in a callback while the queue fills; then the callback
 * submits with waiting: an error, not a deadlock (the worker that would
 * make room is the one waiting). */
static void test_callback_submit_full_queue(void) {
    enum { N = 2000 };
    static struct job fillers[N];
    mbh_service *svc;
    REQUIRE_OK(mbh_service_new(1, &svc));
    reset_cb(svc, NULL);
    atomic_store(&cb.open, 0);
    OK(mbh_service_submit(svc, MBH_SHA256, DATA, 0, on_gate, NULL));
    while (!atomic_load(&cb.reached)) sleep_ms(1);
    size_t n = 0;
    mbh_result res = MBH_OK;
    while (n < N && (res = mbh_service_try_submit(svc, MBH_SHA256, DATA, n % 100, on_done,
                                                  &fillers[n])) == MBH_OK)
        n++;
    EXPECT(res, MBH_QUEUE_FULL);
    atomic_store(&cb.open, 1);
    while (!atomic_load(&cb.done)) sleep_ms(1);
    EXPECT(cb.blocking, MBH_WOULD_DEADLOCK);
    /* The queue is still full (its one worker is here): try_submit says so. */
    EXPECT(cb.trying, MBH_QUEUE_FULL);
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_FINISH));
    for (size_t i = 0; i < n; i++) {
        CHECK(atomic_load(&fillers[i].calls) == 1);
        CHECK(atomic_load(&fillers[i].status) == MBH_OK);
    }
    CHECK(atomic_load(&cb.inner[0].calls) == 0);
    CHECK(atomic_load(&cb.inner[2].calls) == 0);
    mbh_service_free(svc);
    printf("callback, full queue: %zu queued, waiting submit refused\n", n);
}

/* With room in the queue: the waiting submit is still refused (on another
 * service's worker too: two callbacks waiting on each other's services
 * would deadlock as well), and try_submit from the callback works. */
static void test_callback_submit_room(void) {
    mbh_service *svc, *other;
    REQUIRE_OK(mbh_service_new(2, &svc));
    REQUIRE_OK(mbh_service_new(1, &other));
    reset_cb(svc, other);
    atomic_store(&cb.open, 1);
    OK(mbh_service_submit(svc, MBH_SHA256, DATA, 3, on_gate, NULL));
    while (!atomic_load(&cb.done)) sleep_ms(1);
    EXPECT(cb.blocking, MBH_WOULD_DEADLOCK);
    EXPECT(cb.blocking_other, MBH_WOULD_DEADLOCK);
    OK(cb.trying);
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_FINISH));
    CHECK(atomic_load(&cb.inner[0].calls) == 0);
    CHECK(atomic_load(&cb.inner[1].calls) == 0);
    CHECK(atomic_load(&cb.inner[2].calls) == 1);
    CHECK(atomic_load(&cb.inner[2].status) == MBH_OK);
    /* Off the workers the waiting submit works as ever. */
    struct job j = {0};
    OK(mbh_service_submit(other, MBH_SHA256, DATA, 3, on_done, &j));
    OK(mbh_service_shutdown(other, MBH_SHUTDOWN_FINISH));
    CHECK(atomic_load(&j.calls) == 1);
    mbh_service_free(svc);
    mbh_service_free(other);
}

/* ---- bounds ---- */

static void test_worker_bound(void) {
    mbh_service *svc = (mbh_service *)&svc; /* not written on error */
    mbh_service *const before = svc;
    EXPECT(mbh_service_new(MBH_SERVICE_MAX_WORKERS + 1, &svc), MBH_INVALID_ARGUMENT);
#if SIZE_MAX > UINT32_MAX
    EXPECT(mbh_service_new((size_t)1 << 32, &svc), MBH_INVALID_ARGUMENT);
#endif
    EXPECT(mbh_service_new(SIZE_MAX, &svc), MBH_INVALID_ARGUMENT);
    CHECK(svc == before);
    CHECK(MBH_SERVICE_MAX_WORKERS >= 64);
}

/* ---- second frees ---- */

/* What the docs promise: memory holding no handle (ended, or never made)
 * is refused or ignored, never freed. Heap handles given back twice are
 * undefined (as free(3)): their memory is gone. */
static void test_second_free(void) {
    /* A pool in caller memory is no pool of mbh_pool_new: ignored by
     * mbh_pool_free, before and after fini. A heap pool is refused by fini. */
    static uint64_t zero_pool[MBH_POOL_SIZE / 8];
    mbh_pool *heap_pool;
    REQUIRE_OK(mbh_pool_new(&heap_pool));
    EXPECT(mbh_pool_fini(heap_pool), MBH_UNINITIALIZED);
    mbh_pool_free(heap_pool);
    mbh_pool_free((mbh_pool *)zero_pool);
    EXPECT(mbh_pool_fini((mbh_pool *)zero_pool), MBH_UNINITIALIZED);

    /* A manager in caller memory: free finishes it; a second free, and a
     * fini after it, find no manager. */
    static mbh_manager mgr_mem;
    OK(mbh_manager_init(&mgr_mem, MBH_SHA256));
    mbh_manager_free(&mgr_mem);
    mbh_manager_free(&mgr_mem);
    EXPECT(mbh_manager_fini(&mgr_mem), MBH_UNINITIALIZED);
    /* A heap manager finished twice, then freed once. */
    mbh_manager *mgr;
    REQUIRE_OK(mbh_manager_new(MBH_SHA512, &mgr));
    OK(mbh_manager_fini(mgr));
    EXPECT(mbh_manager_fini(mgr), MBH_UNINITIALIZED);
    mbh_manager_free(mgr);
}

/* ---- fork ---- */

/* Under valgrind ("quick"), a forked child ends with SIGKILL after it has
 * told its status through a pipe: valgrind's leak check at a child's exit
 * counts what only the parent's other threads (absent in the child) refer
 * to as lost. Otherwise it exits with its status. */
static int valgrind_mode;

struct child {
    pid_t pid;
    int fd; /* the read end of its status pipe */
};

/* Forks a child that runs `body` (its status: 0 for success). */
static struct child fork_child(int (*body)(void *), void *arg) {
    int fds[2];
    struct child c = {-1, -1};
    if (pipe(fds) != 0) {
        perror("pipe");
        return c;
    }
    fflush(stdout);
    fflush(stderr);
    c.pid = fork();
    if (c.pid == 0) {
        close(fds[0]);
        alarm(DEADLINE);
        unsigned char status = (unsigned char)body(arg);
        if (write(fds[1], &status, 1) != 1) _exit(5);
        if (valgrind_mode) raise(SIGKILL);
        _exit(status);
    }
    close(fds[1]);
    if (c.pid < 0) {
        perror("fork");
        close(fds[0]);
        return c;
    }
    c.fd = fds[0];
    return c;
}

/* Waits for a child at most DEADLINE seconds (then kills it); true if it
 * reported success. */
static int wait_child(struct child c, const char *what) {
    if (c.pid < 0) return 0;
    pid_t pid = c.pid;
    for (int i = 0; i < DEADLINE * 100; i++) {
        int st;
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) {
            unsigned char status = 0xff;
            ssize_t got = read(c.fd, &status, 1);
            close(c.fd);
            int ended = (WIFEXITED(st) && WEXITSTATUS(st) == 0) ||
                        (valgrind_mode && WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
            if (got == 1 && status == 0 && ended) return 1;
            if (got == 1 && status != 0)
                fprintf(stderr, "%s: child reported failure %u\n", what, status);
            if (WIFSIGNALED(st))
                fprintf(stderr, "%s: child killed by signal %d%s\n", what, WTERMSIG(st),
                        WTERMSIG(st) == SIGALRM ? " (hung)" : "");
            else
                fprintf(stderr, "%s: child exited with %d\n", what, WEXITSTATUS(st));
            return 0;
        }
        if (r < 0 && errno != EINTR) {
            perror("waitpid");
            return 0;
        }
        sleep_ms(10);
    }
    fprintf(stderr, "%s: child still running after %d s (hung): killed\n", what, DEADLINE);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(c.fd);
    return 0;
}

/* The first calls of the library: the engines' and CRC32C's one-time
 * set-up (the `auto` calibrations). True if every answer is right. */
static int first_calls(void) {
    static const uint8_t abc[3] = {'a', 'b', 'c'};
    const uint8_t *msg = abc;
    size_t len = 3;
    uint8_t out[64];
    int ok = 1;
    ok &= mbh_hash_many(MBH_SHA256, &msg, &len, 1, out, 64) == MBH_OK && out[0] == 0xba &&
          out[31] == 0xad;
    ok &= mbh_hash_many(MBH_SHA512, &msg, &len, 1, out, 64) == MBH_OK && out[0] == 0xdd &&
          out[63] == 0x9f;
    uint32_t crc = 0;
    ok &= mbh_crc32c((const uint8_t *)"123456789", 9, &crc) == MBH_OK && crc == 0xe3069283u;
    return ok;
}

static int first_calls_child(void *arg) {
    (void)arg;
    return first_calls() ? 0 : 3;
}

static atomic_int racer_started;
static atomic_int racer_done;

static void *racer(void *p) {
    (void)p;
    atomic_store(&racer_started, 1);
    int ok = first_calls();
    atomic_store(&racer_done, ok ? 1 : 2);
    return NULL;
}

/* Children forked while another thread makes the library's first calls:
 * each child's own first calls finish (before the fix some waited forever
 * on a one-time initialisation held by the thread the child does not
 * have). */
static void test_fork_first_call(int quick) {
    const int max_children = quick ? 8 : 48;
    struct child kids[48];
    int n = 0;
    pthread_t t;
    REQUIRE_OK(pthread_create(&t, NULL, racer, NULL) == 0 ? MBH_OK : MBH_PANIC);
    while (!atomic_load(&racer_started)) sleep_ms(0);
    /* Fork until the racer is done: some children are made while it is
     * inside the one-time set-up (it takes milliseconds, a child is made
     * every hundred microseconds or so). */
    while (n < max_children && (n == 0 || !atomic_load(&racer_done))) {
        struct child c = fork_child(first_calls_child, NULL);
        CHECK(c.pid > 0);
        if (c.pid < 0) break;
        kids[n++] = c;
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
    }
    int during = !atomic_load(&racer_done);
    pthread_join(t, NULL);
    CHECK(atomic_load(&racer_done) == 1);
    int ok = 0;
    for (int i = 0; i < n; i++) ok += wait_child(kids[i], "first call in a forked child");
    CHECK(ok == n);
    printf("fork during the first call: %d children (%s), %d finished\n", n,
           during ? "the racer outlasted them all" : "until the racer was done", ok);
}

/* A parent's service in a forked child: refused (its workers are in the
 * parent), shut down and freed without touching the parent's threads. */
static int service_child(void *arg) {
    mbh_service *svc = arg;
    int bad = 0;
    struct job j = {0};
    bad |= mbh_service_try_submit(svc, MBH_SHA256, DATA, 5, on_done, &j) != MBH_SHUT_DOWN;
    bad |= mbh_service_submit(svc, MBH_SHA256, DATA, 5, on_done, &j) != MBH_SHUT_DOWN;
    bad |= mbh_service_shutdown(svc, MBH_SHUTDOWN_FINISH) != MBH_OK;
    bad |= mbh_service_shutdown(svc, MBH_SHUTDOWN_CANCEL) != MBH_OK;
    bad |= mbh_service_shutdown(svc, 7) != MBH_INVALID_ARGUMENT;
    mbh_service_free(svc);
    /* The library itself still works in the child. */
    bad |= !first_calls();
    mbh_service *mine;
    bad |= mbh_service_new(1, &mine) != MBH_OK;
    struct job k = {0};
    bad |= mbh_service_submit(mine, MBH_SHA256, DATA, 5, on_done, &k) != MBH_OK;
    bad |= mbh_service_shutdown(mine, MBH_SHUTDOWN_FINISH) != MBH_OK;
    bad |= atomic_load(&k.calls) != 1 || atomic_load(&j.calls) != 0;
    mbh_service_free(mine);
    return bad ? 4 : 0;
}

static void test_fork_service(void) {
    mbh_service *svc;
    REQUIRE_OK(mbh_service_new(2, &svc));
    struct job before = {0};
    OK(mbh_service_submit(svc, MBH_SHA256, DATA, 100, on_done, &before));
    for (int i = 0; i < DEADLINE * 100 && !atomic_load(&before.calls); i++) sleep_ms(10);
    CHECK(atomic_load(&before.calls) == 1);
    CHECK(wait_child(fork_child(service_child, svc), "the parent's service in a child"));
    /* The parent's service is untouched. */
    struct job after = {0};
    OK(mbh_service_submit(svc, MBH_SHA256, DATA, 100, on_done, &after));
    OK(mbh_service_shutdown(svc, MBH_SHUTDOWN_FINISH));
    CHECK(atomic_load(&after.calls) == 1 && atomic_load(&after.status) == MBH_OK);
    mbh_service_free(svc);
}

/* ---- no memory left ---- */

/* In a child whose address space is capped and then filled: making a pool
 * or a manager (kilobytes each, larger than any chunk left) is
 * MBH_OUT_OF_MEMORY, not an abort. */
static int oom_child(void *arg) {
    (void)arg;
    /* Everything the handles need but their memory is set up first. */
    if (!first_calls()) return 10;
    mbh_manager *m;
    mbh_pool *p;
    if (mbh_manager_new(MBH_SHA256, &m) != MBH_OK) return 11;
    mbh_manager_free(m);
    if (mbh_pool_new(&p) != MBH_OK) return 12;
    mbh_pool_free(p);
    struct rlimit lim = {64u << 20, 64u << 20};
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1) return 13;
    fclose(f);
    lim.rlim_cur = lim.rlim_max = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE) + (64u << 20);
    if (setrlimit(RLIMIT_AS, &lim) != 0) return 14;
    /* Fill what is left (never freed: the child ends). */
    size_t filled = 0;
    for (size_t size = 1u << 20; size >= 16; size /= 2)
        while (malloc(size) != NULL) filled += size;
    int bad = 0;
    m = (mbh_manager *)&m;
    p = (mbh_pool *)&p;
    bad |= mbh_manager_new(MBH_SHA256, &m) != MBH_OUT_OF_MEMORY || m != (mbh_manager *)&m;
    bad |= (mbh_pool_new(&p) != MBH_OUT_OF_MEMORY || p != (mbh_pool *)&p) << 1;
    /* Not mbh_service_new: its handle is allocated fallibly, but the
     * service's own queues and threads are not (yet), and a handle of a few
     * dozen bytes may still find a freed chunk of its size. */
    return bad ? 20 + bad : 0;
}

static void test_oom(void) {
    CHECK(wait_child(fork_child(oom_child, NULL), "handles with no memory left"));
}

int main(int argc, char **argv) {
    int race = argc > 1 && strcmp(argv[1], "race") == 0;
    int quick = argc > 1 && strcmp(argv[argc - 1], "quick") == 0;
    valgrind_mode = quick;
    /* A hang anywhere fails the run. */
    alarm(2 * DEADLINE);
    for (size_t i = 0; i < sizeof DATA; i++) DATA[i] = (uint8_t)(i * 31 + 7);
    if (race) {
        test_fork_first_call(quick);
        return finish("misuse race");
    }
    if (argc > 1 && strcmp(argv[1], "fork") == 0) {
        test_fork_service();
        return finish("misuse fork");
    }
    if (argc > 1 && strcmp(argv[1], "oom") == 0) {
        test_oom();
        return finish("misuse oom");
    }
    test_callback_submit_full_queue();
    test_callback_submit_room();
    test_worker_bound();
    test_second_free();
#ifndef __SANITIZE_ADDRESS__
    test_fork_service();
#else
    printf("fork: not under ASan (run `misuse fork` without it)\n");
#endif
    return finish("misuse");
}
