/*
 * Preloaded (LD_PRELOAD) into a test's redis-server to shift its wall clock by a fixed number of
 * ms (ATC_CLOCK_SHIFT_MS, positive: ahead), as libfaketime would, without a package: a host
 * whose Redis reads another time than the machine's. Only the wall clock moves (gettimeofday,
 * time, clock_gettime of CLOCK_REALTIME and its coarse form); monotonic clocks are untouched.
 * Used by test/support/redis-server.ts to put Redis's clock just before a minute boundary, so a
 * cron test waits seconds for its minute instead of up to one.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

static long long shift_us;
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gettimeofday)(struct timeval *, void *);

/* Resolved on first use: other libraries' constructors (jemalloc's) read the clock before ours runs. */
static void init(void) {
  if (real_clock_gettime != NULL) return;
  const char *text = getenv("ATC_CLOCK_SHIFT_MS");
  shift_us = text == NULL ? 0 : strtoll(text, NULL, 10) * 1000LL;
  real_gettimeofday = (int (*)(struct timeval *, void *))dlsym(RTLD_NEXT, "gettimeofday");
  real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
}

static void shift_timespec(struct timespec *ts) {
  long long ns = (long long)ts->tv_sec * 1000000000LL + ts->tv_nsec + shift_us * 1000LL;
  ts->tv_sec = ns / 1000000000LL;
  ts->tv_nsec = ns % 1000000000LL;
}

int clock_gettime(clockid_t clock, struct timespec *ts) {
  init();
  int result = real_clock_gettime(clock, ts);
  if (result == 0 && ts != NULL && (clock == CLOCK_REALTIME || clock == CLOCK_REALTIME_COARSE)) shift_timespec(ts);
  return result;
}

int gettimeofday(struct timeval *tv, void *tz) {
  init();
  int result = real_gettimeofday(tv, tz);
  if (result == 0 && tv != NULL) {
    long long us = (long long)tv->tv_sec * 1000000LL + tv->tv_usec + shift_us;
    tv->tv_sec = us / 1000000LL;
    tv->tv_usec = us % 1000000LL;
  }
  return result;
}

time_t time(time_t *out) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  if (out != NULL) *out = ts.tv_sec;
  return ts.tv_sec;
}
