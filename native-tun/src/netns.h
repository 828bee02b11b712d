/* Work done by a short-lived thread inside a network namespace (netns.c). */
#ifndef NATIVE_TUN_NETNS_H
#define NATIVE_TUN_NETNS_H
#include <node_api.h>

struct netns_job {
  int namespace_fd;
  /* Runs in the thread, inside the namespace; reports a failure with netns_job_failed. */
  void (*work)(struct netns_job *job);
  char failed[384]; /* what failed ("" when nothing did) */
  int error;        /* its errno */
};

/* Records that `job` failed: errno `error`, and the call (printf-style). */
void netns_job_failed(struct netns_job *job, int error, const char *format, ...);
/* Runs job->work in a new thread that joined the network namespace at `path`: 0, or -1 with an Error thrown. */
int netns_run(napi_env env, const char *path, struct netns_job *job);
/* A path argument `name`: a string of 1 to PATH_MAX - 1 bytes, into `out` (PATH_MAX bytes); -1 with a TypeError or RangeError thrown. */
int arg_path(napi_env env, napi_value value, const char *name, char *out);

#endif /* NATIVE_TUN_NETNS_H */
