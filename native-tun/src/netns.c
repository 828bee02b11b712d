/* Steps of linkshell --netns that would each cost a process (`ip netns exec
 * ... sh -c`, `ip -s link show`, `ip netns del`: starting one takes longer
 * than what it does), done here instead:
 *
 *   readIn(namespacePath, file) -> string   a file as the network namespace
 *                                            sees it (/proc/thread-self/net/dev:
 *                                            its devices' counters)
 *   writeIn(namespacePath, file, text)       a file written as the namespace
 *                                            sees it (/proc/sys/net/...: its
 *                                            sysctls)
 *   removeNamespace(namespacePath)           what `ip netns del` does: detach
 *                                            the bind mount that keeps the
 *                                            namespace (umount2 MNT_DETACH),
 *                                            remove the file
 *
 * readIn and writeIn open the file in a short-lived thread that joins the
 * namespace (setns, netns_run, also used by tun.c to create a device inside
 * one): /proc/sys/net and /proc/thread-self/net are resolved in the opening
 * thread's namespace, and the calling thread's own namespace never changes. All three need CAP_SYS_ADMIN, as `ip` does. A failed system call
 * throws an Error whose `code` is the errno's name and whose message names the
 * call and the path. */
#define _GNU_SOURCE
#include <node_api.h>
#include "napi_util.h"
#include "errors.h"
#include "netns.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

/* The most read: /proc/net/dev is a header and a line of about 130 bytes per device. */
#define FILE_MAX (256 * 1024)

void netns_job_failed(struct netns_job *job, int error, const char *format, ...) {
  va_list args;
  va_start(args, format);
  vsnprintf(job->failed, sizeof(job->failed), format, args);
  va_end(args);
  job->error = error;
}

static void *job_thread(void *argument) {
  struct netns_job *job = argument;
  if (setns(job->namespace_fd, CLONE_NEWNET) < 0) {
    netns_job_failed(job, errno, "setns");
    return NULL;
  }
  job->work(job);
  return NULL;
}

int arg_path(napi_env env, napi_value value, const char *name, char *out) {
  napi_valuetype type;
  size_t length = 0;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_string) {
    throw_type_error(env, "%s must be a string", name);
    return -1;
  }
  napi_get_value_string_utf8(env, value, NULL, 0, &length);
  if (length == 0 || length >= PATH_MAX) {
    throw_range_error(env, "%s must be 1 to %d bytes, got %zu", name, PATH_MAX - 1, length);
    return -1;
  }
  napi_get_value_string_utf8(env, value, out, PATH_MAX, &length);
  return 0;
}

/* Runs job->work in a new thread that joined the network namespace at `path`: 0, or -1 with an Error
 * thrown (the open of the namespace, the thread, setns, or what the work reports in failed/error). */
int netns_run(napi_env env, const char *path, struct netns_job *job) {
  job->namespace_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (job->namespace_fd < 0) {
    throw_errno(env, errno, "open %s", path);
    return -1;
  }
  pthread_t thread;
  int error = pthread_create(&thread, NULL, job_thread, job);
  if (error == 0) pthread_join(thread, NULL);
  close(job->namespace_fd);
  if (error != 0) {
    throw_errno(env, error, "starting a thread to enter network namespace %s", path);
    return -1;
  }
  if (job->failed[0] != 0) {
    throw_errno(env, job->error, "%s in network namespace %s", job->failed, path);
    return -1;
  }
  return 0;
}

struct file_job {
  struct netns_job job; /* (first: the runner's view of it) */
  const char *file;
  int writing;
  char *text;    /* what is read (up to FILE_MAX - 1 bytes), or what is written */
  size_t length;
};

static void file_work(struct netns_job *base) {
  struct file_job *job = (struct file_job *)base;
  int fd = open(job->file, (job->writing ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
  if (fd < 0) {
    netns_job_failed(base, errno, "open %s", job->file);
    return;
  }
  size_t done = 0;
  while (job->writing ? done < job->length : done < FILE_MAX - 1) {
    ssize_t n = job->writing ? write(fd, job->text + done, job->length - done) : read(fd, job->text + done, FILE_MAX - 1 - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      netns_job_failed(base, errno, "%s %s", job->writing ? "write" : "read", job->file);
      break;
    }
    if (n == 0) break;
    done += (size_t)n;
  }
  if (!job->writing) job->length = done;
  close(fd);
}

static napi_value read_in(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  char path[PATH_MAX], file[PATH_MAX];
  if (get_args(env, info, "readIn", 2, argv) || arg_path(env, argv[0], "namespacePath", path) || arg_path(env, argv[1], "file", file)) return NULL;
  struct file_job job = {.job = {.work = file_work}, .file = file, .text = malloc(FILE_MAX)};
  if (job.text == NULL) return throw_errno(env, ENOMEM, "reading %s in network namespace %s", file, path);
  napi_value result = NULL;
  if (netns_run(env, path, &job.job) == 0) napi_create_string_utf8(env, job.text, job.length, &result);
  free(job.text);
  return result;
}

static napi_value write_in(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  char path[PATH_MAX], file[PATH_MAX], text[256];
  size_t length = 0;
  if (get_args(env, info, "writeIn", 3, argv) || arg_path(env, argv[0], "namespacePath", path) || arg_path(env, argv[1], "file", file)) return NULL;
  napi_valuetype type;
  if (napi_typeof(env, argv[2], &type) != napi_ok || type != napi_string) return throw_type_error(env, "text must be a string");
  napi_get_value_string_utf8(env, argv[2], NULL, 0, &length);
  if (length >= sizeof(text)) return throw_range_error(env, "text must be at most %zu bytes, got %zu", sizeof(text) - 1, length);
  napi_get_value_string_utf8(env, argv[2], text, sizeof(text), &length);
  struct file_job job = {.job = {.work = file_work}, .file = file, .writing = 1, .text = text, .length = length};
  netns_run(env, path, &job.job);
  return NULL;
}

static napi_value remove_namespace(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  char path[PATH_MAX];
  if (get_args(env, info, "removeNamespace", 1, argv) || arg_path(env, argv[0], "namespacePath", path)) return NULL;
  /* EINVAL: not a mount point (already detached); the file may still be there. */
  if (umount2(path, MNT_DETACH) < 0 && errno != EINVAL && errno != ENOENT) return throw_errno(env, errno, "umount2 %s", path);
  if (unlink(path) < 0 && errno != ENOENT) return throw_errno(env, errno, "unlink %s", path);
  return NULL;
}

void netns_define(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"readIn", NULL, read_in, NULL, NULL, NULL, napi_enumerable, NULL},
      {"writeIn", NULL, write_in, NULL, NULL, NULL, napi_enumerable, NULL},
      {"removeNamespace", NULL, remove_namespace, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
