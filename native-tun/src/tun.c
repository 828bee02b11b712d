/* TUN devices for Node: open one (/dev/net/tun, TUNSETIFF with IFF_TUN |
 * IFF_NO_PI: each read or write is one bare IP packet), read it from the
 * event loop without blocking (a libuv poll handle on the non-blocking fd;
 * every packet ready when the fd turns readable is read here and handed to
 * JavaScript as one batch), write packets to it, close it.
 *
 *   open(name[, namespacePath])     -> { fd, name }   ("" lets the kernel pick tunN; made in the
 *                                                      network namespace at namespacePath if given)
 *   startReading(fd, maxBytes, cb)  -> reader          cb(packets: Buffer[], errorCode?: string)
 *   stopReading(reader)                                 idempotent; the fd stays open
 *   write(fd, packet)               -> bytes written, or -1 when the device's queue is full
 *   close(fd)
 *
 * Every argument is checked here: a wrong type or value throws a TypeError or
 * RangeError naming it; a failed system call throws an Error whose `code` is
 * the errno name (EACCES, ENOENT, EBUSY, ...) and whose message names the
 * call and the device. A non-persistent TUN device disappears when its last
 * fd closes, so a process that dies (even by SIGKILL) leaves no device. The
 * fd is close-on-exec: commands started later do not keep devices alive. */
#define _GNU_SOURCE
#include <node_api.h>
#include "napi_util.h"
#include "errors.h"
#include "netns.h"
#include <uv.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define TUN_PATH "/dev/net/tun"
/* Packets read per readable event at most, so that a flood cannot starve the event loop. */
#define MAX_BATCH 256
#define MAX_PACKET 65535


const char *errno_name(int error) {
  switch (error) {
    case EACCES: return "EACCES";
    case EPERM: return "EPERM";
    case ENOENT: return "ENOENT";
    case ENODEV: return "ENODEV";
    case ENXIO: return "ENXIO";
    case EBUSY: return "EBUSY";
    case EEXIST: return "EEXIST";
    case EINVAL: return "EINVAL";
    case EBADF: return "EBADF";
    case EIO: return "EIO";
    case EMFILE: return "EMFILE";
    case ENFILE: return "ENFILE";
    case ENOMEM: return "ENOMEM";
    case ENOBUFS: return "ENOBUFS";
    case EFAULT: return "EFAULT";
    case EMSGSIZE: return "EMSGSIZE";
    default: return "EUNKNOWN";
  }
}

napi_value throw_errno(napi_env env, int error, const char *format, ...) {
  char what[384];
  va_list args;
  va_start(args, format);
  vsnprintf(what, sizeof(what), format, args);
  va_end(args);
  return throw_coded_error(env, errno_name(error), "%s: %s", what, strerror(error));
}

/* A device name as the kernel takes it: fewer than IFNAMSIZ bytes of letters, digits, "-", "_", ".",
 * at most one "%d" (the kernel's pattern: tun%d), or empty (the kernel picks). */
static int arg_name(napi_env env, napi_value value, char *out) {
  napi_valuetype type;
  size_t length = 0;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_string) {
    throw_type_error(env, "name must be a string");
    return -1;
  }
  napi_get_value_string_utf8(env, value, NULL, 0, &length);
  if (length >= IFNAMSIZ) {
    throw_range_error(env, "name must be at most %d bytes, got %zu", IFNAMSIZ - 1, length);
    return -1;
  }
  napi_get_value_string_utf8(env, value, out, IFNAMSIZ, &length);
  int patterns = 0;
  for (size_t i = 0; i < length; i++) {
    char c = out[i];
    if (c == '%' && i + 1 < length && out[i + 1] == 'd') {
      patterns++;
      i++;
      continue;
    }
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')) {
      throw_range_error(env, "name %s: character %d (0x%02x) is not a letter, digit, '-', '_', '.' or '%%d'", out, (int)i, (unsigned char)c);
      return -1;
    }
  }
  if (patterns > 1) {
    throw_range_error(env, "name %s has more than one %%d", out);
    return -1;
  }
  if (strcmp(out, ".") == 0 || strcmp(out, "..") == 0) {
    throw_range_error(env, "name %s is not a device name", out);
    return -1;
  }
  return 0;
}

/* Opens /dev/net/tun and creates the device `request` names: 0 and the fd in *fd_out, or the errno with
 * the call that failed in *failed. The device is made in the calling thread's network namespace. */
static int create_tun(struct ifreq *request, int *fd_out, const char **failed) {
  int fd = open(TUN_PATH, O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    *failed = "open";
    return errno;
  }
  if (ioctl(fd, TUNSETIFF, request) < 0) {
    int error = errno;
    close(fd);
    *failed = "ioctl TUNSETIFF";
    return error;
  }
  *fd_out = fd;
  return 0;
}

struct tun_job {
  struct netns_job job; /* (first: the runner's view of it) */
  struct ifreq *request;
  int fd;
};

static void create_tun_inside(struct netns_job *base) {
  struct tun_job *job = (struct tun_job *)base;
  const char *failed = NULL;
  int error = create_tun(job->request, &job->fd, &failed);
  if (error != 0) {
    const char *name = job->request->ifr_name[0] ? job->request->ifr_name : "(any name)";
    if (strcmp(failed, "open") == 0) netns_job_failed(base, error, "open " TUN_PATH);
    else netns_job_failed(base, error, "ioctl TUNSETIFF %s on " TUN_PATH, name);
  }
}

/* open(name[, namespacePath]): the device is created in the network namespace at namespacePath (by a
 * thread that joins it: see netns.c) or, without it, in this thread's. */
static napi_value tun_open(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  size_t argc = 2;
  char name[IFNAMSIZ] = {0};
  char namespace_path[PATH_MAX];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1) return throw_type_error(env, "open expects 1 argument, got 0");
  if (arg_name(env, argv[0], name)) return NULL;
  int inside = argc >= 2 && !is_null_or_undefined(env, argv[1]);
  if (inside && arg_path(env, argv[1], "namespacePath", namespace_path)) return NULL;
  struct ifreq request;
  memset(&request, 0, sizeof(request));
  request.ifr_flags = IFF_TUN | IFF_NO_PI;
  memcpy(request.ifr_name, name, IFNAMSIZ);
  int fd = -1;
  if (inside) {
    struct tun_job job = {.job = {.work = create_tun_inside}, .request = &request, .fd = -1};
    if (netns_run(env, namespace_path, &job.job) != 0) return NULL;
    fd = job.fd;
  } else {
    const char *failed = NULL;
    int error = create_tun(&request, &fd, &failed);
    if (error != 0 && strcmp(failed, "open") == 0) return throw_errno(env, error, "open " TUN_PATH);
    if (error != 0) return throw_errno(env, error, "ioctl TUNSETIFF %s on " TUN_PATH, name[0] ? name : "(any name)");
  }
  napi_value result, text;
  napi_create_object(env, &result);
  napi_set_named_property(env, result, "fd", make_int(env, fd));
  request.ifr_name[IFNAMSIZ - 1] = 0;
  napi_create_string_utf8(env, request.ifr_name, NAPI_AUTO_LENGTH, &text);
  napi_set_named_property(env, result, "name", text);
  return result;
}

static const napi_type_tag READER_TAG = {0x6c696e6b7368656cULL, 0x74756e7265616472ULL};

typedef struct {
  uv_poll_t poll;
  napi_env env;
  napi_ref callback;
  napi_async_context context;
  int fd;
  size_t max_bytes;
  uint8_t *buffer;
  int active;  /* polling; cleared by stopReading */
  int freed;   /* the JavaScript object was collected (after stop) */
  int closed;  /* the libuv handle is closed */
} Reader;

static void reader_release(Reader *reader) {
  free(reader->buffer);
  free(reader);
}

static void on_poll_closed(uv_handle_t *handle) {
  Reader *reader = (Reader *)handle->data;
  reader->closed = 1;
  if (reader->freed) reader_release(reader);
}

static void reader_stop(Reader *reader) {
  if (!reader->active) return;
  reader->active = 0;
  uv_poll_stop(&reader->poll);
  uv_close((uv_handle_t *)&reader->poll, on_poll_closed);
  napi_delete_reference(reader->env, reader->callback);
  napi_async_destroy(reader->env, reader->context);
}

static void reader_finalize(napi_env env, void *data, void *hint) {
  Reader *reader = (Reader *)data;
  /* Collected while polling cannot happen (the poll keeps a reference through its callback), but be safe. */
  reader->freed = 1;
  if (reader->active) reader_stop(reader);
  if (reader->closed) reader_release(reader);
}

static void deliver(Reader *reader, napi_value packets, const char *error_code) {
  napi_env env = reader->env;
  napi_value callback, global, result, argv[2];
  napi_get_reference_value(env, reader->callback, &callback);
  napi_get_global(env, &global);
  argv[0] = packets;
  if (error_code != NULL) napi_create_string_utf8(env, error_code, NAPI_AUTO_LENGTH, &argv[1]);
  else napi_get_undefined(env, &argv[1]);
  napi_value resource;
  napi_create_object(env, &resource);
  if (napi_make_callback(env, reader->context, resource, callback, 2, argv, &result) == napi_pending_exception) {
    napi_value exception;
    napi_get_and_clear_last_exception(env, &exception);
    napi_fatal_exception(env, exception);
  }
}

static void on_readable(uv_poll_t *handle, int status, int events) {
  Reader *reader = (Reader *)handle->data;
  if (!reader->active) return;
  napi_env env = reader->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  napi_value packets;
  napi_create_array(env, &packets);
  uint32_t count = 0;
  const char *error_code = status < 0 ? "EPOLL" : NULL;
  while (error_code == NULL && count < MAX_BATCH) {
    ssize_t n = read(reader->fd, reader->buffer, reader->max_bytes);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) error_code = errno_name(errno);
      break;
    }
    if (n == 0) break;
    napi_value packet;
    void *copy;
    napi_create_buffer_copy(env, (size_t)n, reader->buffer, &copy, &packet);
    napi_set_element(env, packets, count++, packet);
  }
  if (count > 0 || error_code != NULL) deliver(reader, packets, error_code);
  /* An error that will repeat (the device is gone) is reported once. */
  if (error_code != NULL) reader_stop(reader);
  napi_close_handle_scope(env, scope);
}

static napi_value tun_start_reading(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  int64_t fd, max_bytes;
  napi_valuetype type;
  if (get_args(env, info, "startReading", 3, argv) || arg_int(env, argv[0], "fd", 0, 1 << 30, &fd) ||
      arg_int(env, argv[1], "maxBytes", 1, MAX_PACKET, &max_bytes))
    return NULL;
  if (napi_typeof(env, argv[2], &type) != napi_ok || type != napi_function) return throw_type_error(env, "callback must be a function");
  if (fcntl((int)fd, F_GETFD) < 0) return throw_errno(env, errno, "fd %lld", (long long)fd);
  int flags = fcntl((int)fd, F_GETFL);
  if (flags < 0 || fcntl((int)fd, F_SETFL, flags | O_NONBLOCK) < 0) return throw_errno(env, errno, "fcntl O_NONBLOCK on fd %lld", (long long)fd);

  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) return throw_error(env, "no event loop");
  Reader *reader = calloc(1, sizeof(Reader));
  uint8_t *buffer = malloc((size_t)max_bytes + 1);
  if (reader == NULL || buffer == NULL) {
    free(reader);
    free(buffer);
    return throw_errno(env, ENOMEM, "reader for fd %lld", (long long)fd);
  }
  reader->env = env;
  reader->fd = (int)fd;
  /* One byte more than the largest packet wanted: a longer one reads as longer and is the caller's to refuse. */
  reader->max_bytes = (size_t)max_bytes + 1;
  reader->buffer = buffer;
  int rc = uv_poll_init(loop, &reader->poll, reader->fd);
  if (rc < 0) {
    reader_release(reader);
    return throw_error(env, "uv_poll_init on fd %lld: %s", (long long)fd, uv_strerror(rc));
  }
  reader->poll.data = reader;
  napi_value resource_name, handle;
  napi_create_string_utf8(env, "TunReader", NAPI_AUTO_LENGTH, &resource_name);
  napi_async_init(env, NULL, resource_name, &reader->context);
  napi_create_reference(env, argv[2], 1, &reader->callback);
  rc = uv_poll_start(&reader->poll, UV_READABLE, on_readable);
  reader->active = 1;
  if (rc < 0) {
    reader_stop(reader);
    reader->freed = 1;
    return throw_error(env, "uv_poll_start on fd %lld: %s", (long long)fd, uv_strerror(rc));
  }
  napi_create_external(env, reader, reader_finalize, NULL, &handle);
  napi_type_tag_object(env, handle, &READER_TAG);
  return handle;
}

static napi_value tun_stop_reading(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  napi_valuetype type;
  bool tagged = false;
  void *data;
  if (get_args(env, info, "stopReading", 1, argv)) return NULL;
  if (napi_typeof(env, argv[0], &type) != napi_ok || type != napi_external ||
      napi_check_object_type_tag(env, argv[0], &READER_TAG, &tagged) != napi_ok || !tagged)
    return throw_type_error(env, "reader must be a handle returned by startReading");
  napi_get_value_external(env, argv[0], &data);
  reader_stop((Reader *)data);
  return NULL;
}

static napi_value tun_write(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t fd;
  uint8_t *data;
  size_t length;
  if (get_args(env, info, "write", 2, argv) || arg_int(env, argv[0], "fd", 0, 1 << 30, &fd) ||
      arg_bytes(env, argv[1], "packet", -1, &data, &length))
    return NULL;
  if (length < 1 || length > MAX_PACKET) return throw_range_error(env, "packet must have 1..%d bytes, got %zu", MAX_PACKET, length);
  for (;;) {
    ssize_t n = write((int)fd, data, length);
    if (n >= 0) return make_int(env, n);
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return make_int(env, -1);
    return throw_errno(env, errno, "write of %zu bytes to TUN fd %lld", length, (long long)fd);
  }
}

static napi_value tun_close(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  int64_t fd;
  if (get_args(env, info, "close", 1, argv) || arg_int(env, argv[0], "fd", 0, 1 << 30, &fd)) return NULL;
  if (close((int)fd) < 0 && errno != EINTR) return throw_errno(env, errno, "close of TUN fd %lld", (long long)fd);
  return NULL;
}

void pump_define(napi_env env, napi_value exports);
void netns_define(napi_env env, napi_value exports);

static napi_value init(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"open", NULL, tun_open, NULL, NULL, NULL, napi_enumerable, NULL},
      {"startReading", NULL, tun_start_reading, NULL, NULL, NULL, napi_enumerable, NULL},
      {"stopReading", NULL, tun_stop_reading, NULL, NULL, NULL, napi_enumerable, NULL},
      {"write", NULL, tun_write, NULL, NULL, NULL, napi_enumerable, NULL},
      {"close", NULL, tun_close, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
  pump_define(env, exports);
  netns_define(env, exports);
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, init)
