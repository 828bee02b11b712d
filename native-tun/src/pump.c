/* linkshell's receive thread: a native thread that takes in every datagram
 * (UDP sockets, with recvmmsg) and every packet (TUN devices, with read) the
 * moment the kernel has it, stamps each with its arrival time, and hands them
 * to JavaScript in batches, so that an event loop held up (by CPU contention,
 * a garbage collection, a log write) delays when the link model *sees* an
 * arrival but not *when it arrived*: the model admits it, logs it and counts
 * its delay as of its true arrival time.
 *
 * Arrival time: for a UDP socket the kernel's own receive timestamp
 * (SO_TIMESTAMPNS, taken when the datagram reached the socket; it is on the
 * real-time clock and converted to CLOCK_MONOTONIC with the offset between
 * the two clocks read in this thread right after the receive); for a TUN
 * device CLOCK_MONOTONIC read in this thread right after each read (a TUN
 * device has no receive timestamp). Times are handed over as milliseconds on
 * CLOCK_MONOTONIC, the clock process.hrtime() reads.
 *
 * Between the thread and JavaScript: one growing buffer of records, filled by
 * the thread and taken whole by the JavaScript thread (a pointer swap under a
 * mutex held for a few instructions) when a libuv async handle wakes it. The
 * buffer is copied into an ArrayBuffer and kept for the next batch; each
 * datagram is a view of the copy.
 * When more than `maxPendingBytes` wait for JavaScript, the thread stops
 * reading until they are taken: the kernel's socket buffer (or the TUN
 * device's queue) then fills and the kernel's own drop counters count what
 * is lost, as they would for any slow reader.
 *
 * Read on the event loop (a pump created with readsOnEventLoop; UDP sources
 * only): libuv polls each source's fd, and the wake for a readable socket
 * reads it (the same receive, the same stamps), sends the timed datagrams
 * due, hands the batch to JavaScript at once and sends what it handed over
 * already due: one wake per datagram where the thread's read and the loop's
 * handover were two. The thread still reads them every WATCH_MS, what it
 * finds waiting (through a second epoll set it only polls), so that a loop
 * held up or too slow does not let the kernel's buffers fill; every
 * WATCH_BEHIND_MS while it finds a full batch waiting each time. A lock held
 * across each receive and its append keeps one socket's datagrams in order
 * whichever thread reads them; another, across taking due datagrams and
 * sending them, keeps departures in order whichever thread sends them.
 *
 * Sending: send() queues a datagram, flush() sends everything queued with
 * one sendmmsg per run of datagrams for the same socket (write() for a TUN
 * device), on the JavaScript thread. sendAt() hands a datagram to the thread
 * with the time it is due to leave (where the link model knows a departure
 * at the arrival): at every wake, whatever woke it (an arrival, the timer),
 * the thread sends every timed datagram already due, a run for one socket
 * with one sendmmsg (datagrams of one size to one destination in it as one
 * segmented message: see send_timed_udp), and notes how late each left. A
 * thread that finds the other sending does not wait for it unless a departure
 * is due and still waiting (send_due). Its timer is set for the
 * earliest due time plus `sendSlackMs`: a departure due just before an
 * arrival's wake leaves in that wake, and the timer's wake is saved; with
 * nothing arriving, the timer sends it at most the slack late (Mahimahi
 * itself sends at a poll once per millisecond). A datagram never leaves
 * before its due time.
 *
 *   pump = createPump(callback, maxPendingBytes, sendSlackMs, readsOnEventLoop)     callback(records: ArrayBuffer, count)
 *   addSource(pump, id, fd, kind, wantAddress)      kind 0: UDP socket, 1: TUN device; fd is dup()ed
 *   removeSource(pump, id)
 *   send(pump, id, bytes, address?, port?)           queued until flush
 *   flush(pump)                                      -> datagrams that could not be sent
 *   sendAt(pump, id, bytes, dueMs, tag, address?, port?)   sent by the thread at dueMs (CLOCK_MONOTONIC)
 *   drainLateness(pump)                              -> [tag, ms late, ...] of the timed sends since the last call
 *   stats(pump)                                      -> counters, and per source the kernel's drop count
 *   closePump(pump)
 *
 * A record (8-byte aligned, little-endian):
 *   f64 arrival ms (CLOCK_MONOTONIC)  u32 id  u32 length  u16 port  u8 address form  u8 error
 *   u8[46] address (only for sources added with wantAddress)  payload  padding
 * The address form: 0 none; ADDRESS_RAW_V4 (0x84) an IPv4 address as its 4 bytes in network order (JavaScript
 * formats it once per address and keeps the text); 1 to 46 an IPv6 address as text (inet_ntop) of that length.
 * A record with error != 0 (an errno, e.g. ECONNREFUSED: the peer's host refused a datagram) has no payload. */
#define _GNU_SOURCE
#include <node_api.h>
#include "napi_util.h"
#include <uv.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MAX_SOURCES 65544
#define VLEN 64
#define MAX_DATAGRAM 65536
#define RECORD_HEADER 72
#define ADDRESS_TEXT 46
#define ADDRESS_RAW_V4 0x84
#define TUN_READS_PER_WAKE 64
#define SEND_BATCH 64
#define DUE_BATCH 64
/* (20 ms: half the thread's wakes of 10 ms. What a held loop leaves waiting in 20 ms fits the receive buffer linkshell
   asks for: capped by net.core.rmem_max at 4 MiB here, it held 6,553 datagrams of 200 bytes, 65 ms at 100,000/s.) */
#define WATCH_MS 20
/* A look that finds a full batch (VLEN) waiting: the loop is behind (held up, or slower than a burst of arrivals), and
   the thread looks again after WATCH_BEHIND_MS, until a look finds less; a burst that would fill the buffer in less
   than WATCH_MS is then read by the thread. A loop that keeps up costs no extra wake. */
#define WATCH_BEHIND_MS 1

enum { KIND_UDP = 0, KIND_TUN = 1 };

typedef struct {
  int fd;     /* our dup; -1: free slot */
  int kind;
  int want_address;
  int closing; /* removed; the thread closes fd */
  atomic_uint_fast64_t kernel_drops; /* SO_RXQ_OVFL's cumulative count */
  atomic_int drops_known;
  uv_poll_t *poll; /* read on the event loop (a pump created with readsOnEventLoop, UDP sources); NULL: by the thread */
} Source;

typedef struct {
  uint32_t id;
  uint32_t length;
  uint16_t port;
  uint8_t has_address;
  struct sockaddr_storage address;
  size_t offset; /* in out_data */
} Outgoing;

/* A datagram to send at a given time (sendAt): the thread sends it when its timer fires. */
typedef struct {
  double due; /* ms, CLOCK_MONOTONIC */
  uint64_t seq;
  uint32_t id;
  uint32_t tag;
  uint32_t length;
  uint8_t has_address;
  struct sockaddr_storage address;
  uint8_t *data;
} Timed;

typedef struct {
  pthread_t thread;
  int timerfd;
  Timed *timed; /* a binary heap by (due, seq), under the lock */
  size_t timed_count, timed_cap;
  uint64_t timed_seq;
  double armed; /* the time the timer is set for (0: none) */
  double send_slack; /* ms: the timer wakes the thread this long after a departure's due time (an earlier wake sends it) */
  double *lateness; /* [tag, ms] pairs of timed sends, under the lock, until drained */
  size_t lateness_count, lateness_cap;
  uint64_t timed_sent, timed_dropped;
  int thread_started;
  int epfd;
  int wakefd;
  pthread_mutex_t lock;
  pthread_mutex_t read_lock; /* held across a receive and its append, so that two readers of one socket keep its order */
  pthread_mutex_t send_lock; /* held across taking due departures and sending them, so that two senders keep their order */
  pthread_cond_t drained;
  int reads_on_loop; /* UDP sources are read on the event loop while it keeps up; the thread reads them when it does not */
  int watch_epfd;    /* those sources, for the thread to look at every watch interval (WATCH_MS, or WATCH_BEHIND_MS) */
  atomic_int loop_sources;
  void *loop_scratch; /* the event loop's receive buffers */
  uint8_t *in_buf;
  size_t in_len, in_cap;
  uint32_t in_count;
  uint64_t appended; /* records ever appended (never reset) */
  uint64_t appended_by_thread; /* of those, by the thread (its measure of what one wake added; the loop reads too) */
  int defer_arm; /* (event loop only) sendAt leaves the timer to the send_due that follows the handover */
  size_t max_pending;
  int stopping;
  Source sources[MAX_SOURCES];
  /* JavaScript side */
  uv_async_t async;
  uv_loop_t *loop;
  napi_env env;
  napi_ref callback;
  napi_ref resource; /* the async resource of every callback (one object, not one per batch) */
  uint8_t *spare_buf; /* (event loop only) the inbound buffer taken last time, to be swapped in next time */
  size_t spare_cap;
  napi_async_context context;
  int closed;         /* stopped: the thread joined, the fds closed */
  int handle_closed;  /* libuv has closed the async handle */
  int finalized;      /* the JavaScript handle was collected */
  Outgoing *out;
  size_t out_count, out_cap;
  uint8_t *out_data;
  size_t out_len, out_data_cap;
  /* counters */
  atomic_uint_fast64_t received, received_bytes, receive_calls, wakes, handovers, max_batch, stalls, timer_wakes, timed_send_calls;
  atomic_uint_fast64_t received_on_loop, watch_reads, segmented_sends, send_lock_skips;
  atomic_int gso_off; /* the kernel refused a segmented send: runs go as one message per datagram from then on */
  uint64_t sent, send_calls, send_drops, send_refused, send_errors;
} Pump;

static double now_ms(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Room for `bytes` more in the inbound buffer; called with the lock held. */
static int reserve(Pump *pump, size_t bytes) {
  if (pump->in_len + bytes <= pump->in_cap) return 0;
  size_t cap = pump->in_cap ? pump->in_cap : 1 << 16;
  while (cap < pump->in_len + bytes) cap *= 2;
  uint8_t *grown = realloc(pump->in_buf, cap);
  if (grown == NULL) return -1;
  pump->in_buf = grown;
  pump->in_cap = cap;
  return 0;
}

static void append(Pump *pump, uint32_t id, double arrival, const uint8_t *data, uint32_t length, const uint8_t *address, uint8_t address_form, uint16_t port, uint8_t error) {
  size_t size = RECORD_HEADER + ((length + 7u) & ~7u);
  if (reserve(pump, size) < 0) return; /* out of memory: the datagram is lost, as by a full buffer */
  uint8_t *r = pump->in_buf + pump->in_len;
  memcpy(r, &arrival, 8);
  memcpy(r + 8, &id, 4);
  memcpy(r + 12, &length, 4);
  memcpy(r + 16, &port, 2);
  size_t address_length = address_form == ADDRESS_RAW_V4 ? 4 : address_form;
  r[18] = address_form;
  r[19] = error;
  memset(r + 20, 0, ADDRESS_TEXT + 6);
  if (address_length) memcpy(r + 20, address, address_length);
  if (length) memcpy(r + RECORD_HEADER, data, length);
  pump->in_len += size;
  pump->in_count++;
  pump->appended++;
  if (pump->thread_started && pthread_equal(pthread_self(), pump->thread)) pump->appended_by_thread++;
}

/* Blocks while JavaScript has more than max_pending bytes to take; returns nonzero when stopping. */
static int wait_for_room(Pump *pump) {
  pthread_mutex_lock(&pump->lock);
  int stalled = 0;
  while (!pump->stopping && pump->in_len > pump->max_pending) {
    if (!stalled) atomic_fetch_add(&pump->stalls, 1);
    stalled = 1;
    pthread_cond_wait(&pump->drained, &pump->lock);
  }
  int stopping = pump->stopping;
  pthread_mutex_unlock(&pump->lock);
  return stopping;
}

typedef struct {
  struct mmsghdr msgs[VLEN];
  struct iovec iovs[VLEN];
  struct sockaddr_storage addrs[VLEN];
  char controls[VLEN][CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(uint32_t)) + 64];
  double stamps[VLEN];
  uint8_t *buffers; /* VLEN * MAX_DATAGRAM */
  int set_up; /* msgs are set up for recvmmsg, but for the first `dirty`: it changes only those it fills */
  int dirty;
} Scratch;

/* A sender's address as a record carries it (see the top of this file); returns its form. */
static uint8_t encode_address(const struct sockaddr_storage *a, uint8_t *out, uint16_t *port) {
  *port = 0;
  if (a->ss_family == AF_INET) {
    const struct sockaddr_in *v4 = (const struct sockaddr_in *)a;
    memcpy(out, &v4->sin_addr, 4);
    *port = ntohs(v4->sin_port);
    return ADDRESS_RAW_V4;
  }
  if (a->ss_family == AF_INET6) {
    const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)a;
    char text[ADDRESS_TEXT] = {0};
    inet_ntop(AF_INET6, &v6->sin6_addr, text, ADDRESS_TEXT);
    *port = ntohs(v6->sin6_port);
    size_t length = strlen(text);
    memcpy(out, text, length);
    return (uint8_t)length;
  }
  return 0;
}

/* Reads what waits at a UDP socket (up to VLEN datagrams per call, a few calls at most); returns how many. */
static int receive_udp(Pump *pump, uint32_t id, Source *source, Scratch *s) {
  int total = 0;
  for (int round = 0; round < 4; round++) {
    int reset = s->set_up ? s->dirty : VLEN;
    for (int i = 0; i < reset; i++) {
      s->iovs[i].iov_base = s->buffers + (size_t)i * MAX_DATAGRAM;
      s->iovs[i].iov_len = MAX_DATAGRAM;
      memset(&s->msgs[i].msg_hdr, 0, sizeof(struct msghdr));
      s->msgs[i].msg_hdr.msg_iov = &s->iovs[i];
      s->msgs[i].msg_hdr.msg_iovlen = 1;
      s->msgs[i].msg_hdr.msg_name = &s->addrs[i];
      s->msgs[i].msg_hdr.msg_namelen = sizeof(s->addrs[i]);
      s->msgs[i].msg_hdr.msg_control = s->controls[i];
      s->msgs[i].msg_hdr.msg_controllen = sizeof(s->controls[i]);
    }
    s->set_up = 1;
    s->dirty = 0;
    int n = recvmmsg(source->fd, s->msgs, VLEN, MSG_DONTWAIT, NULL);
    atomic_fetch_add(&pump->receive_calls, 1);
    if (n > 0) s->dirty = n;
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return total;
      /* ECONNREFUSED and the like: the socket's pending error, reported once per occurrence. */
      double t = now_ms(CLOCK_MONOTONIC);
      pthread_mutex_lock(&pump->lock);
      append(pump, id, t, NULL, 0, NULL, 0, 0, (uint8_t)(errno < 256 ? errno : 255));
      pthread_mutex_unlock(&pump->lock);
      if (errno != ECONNREFUSED) return total;
      continue;
    }
    if (n == 0) return total;
    /* The offset between the real-time clock (SO_TIMESTAMPNS) and CLOCK_MONOTONIC, read now, in this thread. */
    double mono = now_ms(CLOCK_MONOTONIC);
    double offset = now_ms(CLOCK_REALTIME) - mono;
    pthread_mutex_lock(&pump->lock);
    for (int i = 0; i < n; i++) {
      struct msghdr *h = &s->msgs[i].msg_hdr;
      double arrival = mono;
      for (struct cmsghdr *c = CMSG_FIRSTHDR(h); c != NULL; c = CMSG_NXTHDR(h, c)) {
        if (c->cmsg_level != SOL_SOCKET) continue;
        if (c->cmsg_type == SCM_TIMESTAMPNS) {
          struct timespec ts;
          memcpy(&ts, CMSG_DATA(c), sizeof(ts));
          double kernel = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6 - offset;
          /* A clock step between the two readings could put it in the future or far back: keep it sane. */
          if (kernel <= mono && kernel > mono - 10000) arrival = kernel;
        } else if (c->cmsg_type == SO_RXQ_OVFL) {
          uint32_t drops;
          memcpy(&drops, CMSG_DATA(c), sizeof(drops));
          atomic_store(&source->kernel_drops, drops);
          atomic_store(&source->drops_known, 1);
        }
      }
      uint8_t address[ADDRESS_TEXT];
      uint8_t form = 0;
      uint16_t port = 0;
      if (source->want_address) form = encode_address(&s->addrs[i], address, &port);
      uint32_t length = s->msgs[i].msg_len;
      if (h->msg_flags & MSG_TRUNC) length = MAX_DATAGRAM; /* (a datagram larger than any link's MTU: refused as oversize) */
      append(pump, id, arrival, s->iovs[i].iov_base, length, address, form, port, 0);
    }
    pthread_mutex_unlock(&pump->lock);
    atomic_fetch_add(&pump->received, n);
    total += n;
    if (n < VLEN) return total;
  }
  return total;
}

/* A UDP source read on the event loop (libuv watches its fd; the thread looks at it every watch interval). */
typedef struct {
  uv_poll_t poll; /* (first: the handle's address is the reader's) */
  Pump *pump;
  uint32_t id;
  int errors_in_row; /* libuv's error reports (a socket error pending) with nothing read since */
} LoopReader;

/* Reads a UDP source in order with any other reader of it. */
static int receive_udp_locked(Pump *pump, uint32_t id, Source *source, Scratch *s) {
  pthread_mutex_lock(&pump->read_lock);
  int n = receive_udp(pump, id, source, s);
  pthread_mutex_unlock(&pump->read_lock);
  return n;
}

/* In the thread, every watch interval: reads what waits at the sources the event loop reads, so that their kernel buffers
   do not fill while the loop is held up (a long callback, a garbage collection, CPU contention) or reads too slowly
   (arrival times are the kernel's either way). A loop that keeps up leaves nothing waiting at most looks. */
static void watch_loop_sources(Pump *pump, Scratch *s, double *last_watch, int *interval_ms) {
  if (atomic_load(&pump->loop_sources) == 0) return;
  double now = now_ms(CLOCK_MONOTONIC);
  if (now - *last_watch < *interval_ms) return;
  *last_watch = now;
  struct epoll_event events[64];
  int n = epoll_wait(pump->watch_epfd, events, 64, 0), found = 0;
  for (int i = 0; i < n; i++) {
    uint64_t key = events[i].data.u64;
    Source *source = &pump->sources[key];
    if (source->fd < 0 || source->closing) continue;
    int read = receive_udp_locked(pump, (uint32_t)key, source, s);
    if (read > 0) atomic_fetch_add(&pump->watch_reads, 1);
    found += read;
  }
  *interval_ms = found >= VLEN ? WATCH_BEHIND_MS : WATCH_MS;
}

static void receive_tun(Pump *pump, uint32_t id, Source *source, Scratch *s) {
  int count = 0;
  while (count < TUN_READS_PER_WAKE) {
    uint8_t *buffer = s->buffers + (size_t)count * MAX_DATAGRAM;
    ssize_t n = read(source->fd, buffer, MAX_DATAGRAM);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        double t = now_ms(CLOCK_MONOTONIC);
        pthread_mutex_lock(&pump->lock);
        append(pump, id, t, NULL, 0, NULL, 0, 0, (uint8_t)(errno < 256 ? errno : 255));
        pthread_mutex_unlock(&pump->lock);
        epoll_ctl(pump->epfd, EPOLL_CTL_DEL, source->fd, NULL);
      }
      break;
    }
    s->msgs[count].msg_len = (unsigned)n;
    /* No receive timestamp on a TUN device: the clock right after the read. */
    s->stamps[count] = now_ms(CLOCK_MONOTONIC);
    count++;
  }
  if (count == 0) return;
  pthread_mutex_lock(&pump->lock);
  for (int i = 0; i < count; i++) {
    append(pump, id, s->stamps[i], s->buffers + (size_t)i * MAX_DATAGRAM, s->msgs[i].msg_len, NULL, 0, 0, 0);
  }
  pthread_mutex_unlock(&pump->lock);
  atomic_fetch_add(&pump->received, count);
}

static int timed_before(const Timed *a, const Timed *b) {
  return a->due < b->due || (a->due == b->due && a->seq < b->seq);
}

/* Heap operations; called with the lock held. */
static int timed_push(Pump *pump, Timed *t) {
  if (pump->timed_count == pump->timed_cap) {
    size_t cap = pump->timed_cap ? pump->timed_cap * 2 : 256;
    Timed *grown = realloc(pump->timed, cap * sizeof(Timed));
    if (grown == NULL) return -1;
    pump->timed = grown;
    pump->timed_cap = cap;
  }
  size_t i = pump->timed_count++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!timed_before(t, &pump->timed[parent])) break;
    pump->timed[i] = pump->timed[parent];
    i = parent;
  }
  pump->timed[i] = *t;
  return 0;
}

static Timed timed_pop(Pump *pump) {
  Timed top = pump->timed[0];
  Timed last = pump->timed[--pump->timed_count];
  size_t i = 0, n = pump->timed_count;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && timed_before(&pump->timed[child + 1], &pump->timed[child])) child++;
    if (!timed_before(&pump->timed[child], &last)) break;
    pump->timed[i] = pump->timed[child];
    i = child;
  }
  if (n > 0) pump->timed[i] = last;
  return top;
}

/* Sets the timer for the earliest timed send plus the slack (lock held); a timer already set for that time is left as it is. */
static void arm_timer(Pump *pump) {
  double due = pump->timed_count > 0 ? pump->timed[0].due + pump->send_slack : 0;
  if (due == pump->armed) return;
  pump->armed = due;
  struct itimerspec spec;
  memset(&spec, 0, sizeof(spec));
  if (due > 0) {
    double ms = due < 0.001 ? 0.001 : due; /* (0 would disarm it) */
    spec.it_value.tv_sec = (time_t)(ms / 1000);
    spec.it_value.tv_nsec = (long)((ms - (double)spec.it_value.tv_sec * 1000) * 1e6);
    if (spec.it_value.tv_nsec >= 1000000000L) spec.it_value.tv_nsec = 999999999L;
    if (spec.it_value.tv_sec == 0 && spec.it_value.tv_nsec == 0) spec.it_value.tv_nsec = 1;
  }
  timerfd_settime(pump->timerfd, TFD_TIMER_ABSTIME, &spec, NULL);
}

/* A timed datagram that could not be sent (`error`, an errno): counted; a refusal by the peer's host is reported as a receive would report it. */
static void timed_failed(Pump *pump, const Timed *t, int error) {
  pthread_mutex_lock(&pump->lock);
  pump->timed_dropped++;
  if (error == ECONNREFUSED) append(pump, t->id, now_ms(CLOCK_MONOTONIC), NULL, 0, NULL, 0, 0, ECONNREFUSED);
  pthread_mutex_unlock(&pump->lock);
}

static socklen_t address_length(const struct sockaddr_storage *a) {
  return a->ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
}

/* Segmentation offload (UDP_SEGMENT, Linux 4.18): datagrams of one size to one address, handed to the kernel as one
   message that it cuts into those same datagrams below the socket layer, so that the send path (the socket, routing,
   netfilter, the device) is crossed once per run instead of once per datagram. The peer receives the same datagrams. */
#ifdef UDP_SEGMENT
#define GSO_MAX_SEGMENTS 64
#define GSO_MAX_BYTES 65000 /* (a message's payload, under IP's 64 KiB with the headers) */
#else
#define GSO_MAX_SEGMENTS 1
#endif

static int same_destination(const Timed *a, const Timed *b) {
  if (a->has_address != b->has_address) return 0;
  return !a->has_address || memcmp(&a->address, &b->address, address_length(&a->address)) == 0;
}

/* How many of run[0 .. count - 1] can leave as one segmented message: the same length and destination, but the last,
   which may be shorter (the kernel's rule); 1 when none can join the first. */
static size_t segment_run(const Timed *run, size_t count) {
  size_t size = run[0].length, n = 1;
#ifdef UDP_SEGMENT
  size_t total = size;
  while (size > 0 && n < count && n < GSO_MAX_SEGMENTS) {
    const Timed *t = &run[n];
    if (t->length == 0 || t->length > size || total + t->length > GSO_MAX_BYTES || !same_destination(t, &run[0])) break;
    total += t->length;
    n++;
    if (t->length < size) break;
  }
#endif
  return n;
}

/* Errors with which a kernel or device refuses segmentation itself (not the datagrams): sent one by one instead. */
static int segmentation_refused(int error) {
  return error == EINVAL || error == EIO || error == EOPNOTSUPP || error == ENOPROTOOPT || error == EMSGSIZE;
}

/* Sends a run of timed datagrams for one UDP socket with as few sendmmsg calls as the kernel takes, datagrams of one
   size to one destination as one segmented message (above); returns how many left. A datagram the kernel refuses is
   counted and reported as before, one per refusal; a segmented message it refuses is sent again one by one. */
static size_t send_timed_udp(Pump *pump, int fd, Timed *run, size_t count) {
  struct mmsghdr msgs[DUE_BATCH];
  struct iovec iovs[DUE_BATCH];
  size_t first[DUE_BATCH + 1]; /* the datagram each message starts with; first[messages] = count */
  char controls[DUE_BATCH][CMSG_SPACE(sizeof(uint16_t))];
  for (size_t i = 0; i < count; i++) {
    iovs[i].iov_base = run[i].data;
    iovs[i].iov_len = run[i].length;
  }
  size_t done = 0, sent = 0;
  while (done < count) {
    int segment = !atomic_load(&pump->gso_off);
    size_t m = 0;
    for (size_t i = done; i < count; m++) {
      size_t k = segment ? segment_run(run + i, count - i) : 1;
      struct msghdr *h = &msgs[m].msg_hdr;
      memset(h, 0, sizeof(*h));
      h->msg_iov = &iovs[i];
      h->msg_iovlen = k;
      if (run[i].has_address) {
        h->msg_name = &run[i].address;
        h->msg_namelen = address_length(&run[i].address);
      }
#ifdef UDP_SEGMENT
      if (k > 1) {
        memset(controls[m], 0, sizeof(controls[m]));
        h->msg_control = controls[m];
        h->msg_controllen = sizeof(controls[m]);
        struct cmsghdr *c = CMSG_FIRSTHDR(h);
        c->cmsg_level = SOL_UDP;
        c->cmsg_type = UDP_SEGMENT;
        c->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        uint16_t size = (uint16_t)run[i].length;
        memcpy(CMSG_DATA(c), &size, sizeof(size));
      }
#endif
      first[m] = i;
      i += k;
    }
    first[m] = count;
    int n = sendmmsg(fd, msgs, (unsigned)m, MSG_DONTWAIT);
    atomic_fetch_add(&pump->timed_send_calls, 1);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (first[1] - first[0] > 1 && segmentation_refused(errno)) {
        atomic_store(&pump->gso_off, 1);
        continue;
      }
      timed_failed(pump, &run[done], errno); /* (the first of those left failed: go on with the next) */
      done++;
      continue;
    }
    for (int j = 0; j < n; j++) {
      if (first[j + 1] - first[j] > 1) atomic_fetch_add(&pump->segmented_sends, 1);
    }
    sent += first[n] - first[0];
    done = first[n];
  }
  return sent;
}

/* Sends timed datagrams taken from the heap, in due order; a run for one UDP socket goes in one sendmmsg. Returns how many left. */
static size_t send_timed(Pump *pump, Timed *due, size_t count) {
  size_t sent = 0, i = 0;
  while (i < count) {
    Source *source = &pump->sources[due[i].id];
    size_t j = i + 1;
    while (j < count && due[j].id == due[i].id) j++;
    if (source->fd < 0 || source->closing) {
      for (size_t k = i; k < j; k++) timed_failed(pump, &due[k], EBADF);
    } else if (source->kind == KIND_UDP) {
      sent += send_timed_udp(pump, source->fd, due + i, j - i);
    } else {
      for (size_t k = i; k < j; k++) {
        ssize_t n;
        do n = write(source->fd, due[k].data, due[k].length);
        while (n < 0 && errno == EINTR);
        atomic_fetch_add(&pump->timed_send_calls, 1);
        if (n >= 0) sent++;
        else timed_failed(pump, &due[k], errno);
      }
    }
    i = j;
  }
  return sent;
}

/* Notes how late each of `count` timed datagrams left (lock held). */
static void note_lateness(Pump *pump, const Timed *due, size_t count, double left) {
  if (pump->lateness_count + 2 * count > pump->lateness_cap) {
    size_t cap = pump->lateness_cap ? pump->lateness_cap : 1024;
    while (cap < pump->lateness_count + 2 * count) cap *= 2;
    double *grown = realloc(pump->lateness, cap * sizeof(double));
    if (grown != NULL) {
      pump->lateness = grown;
      pump->lateness_cap = cap;
    }
  }
  for (size_t i = 0; i < count && pump->lateness_count + 2 <= pump->lateness_cap; i++) {
    double late = left - due[i].due;
    pump->lateness[pump->lateness_count++] = due[i].tag;
    pump->lateness[pump->lateness_count++] = late > 0 ? late : 0;
  }
}

/* At every wake of the thread (an arrival's as well as the timer's) and of the event loop for a source it reads: sends
   every timed datagram that is due, noting how late each left, and (with `arm`) sets the timer for the earliest still
   to go, plus the slack. */
static void send_due(Pump *pump, int timer_fired, int arm) {
  Timed due[DUE_BATCH];
  if (timer_fired) {
    uint64_t expirations;
    if (read(pump->timerfd, &expirations, sizeof(expirations)) < 0) { /* not expired after all */ }
  }
  if (pthread_mutex_trylock(&pump->send_lock) != 0) {
    /* The other thread is sending: it takes every departure due by its last look before it lets go, so this one waits
       its turn only if one is due already and still waiting; otherwise it sets the timer (if asked) and goes on
       without sleeping on the lock (a wake-up of its own and one for the other thread, each time the timer's wake
       and an arrival's met). */
    pthread_mutex_lock(&pump->lock);
    if (timer_fired) pump->armed = 0;
    int waiting = pump->timed_count > 0 && pump->timed[0].due <= now_ms(CLOCK_MONOTONIC);
    if (!waiting && arm) arm_timer(pump);
    pthread_mutex_unlock(&pump->lock);
    if (!waiting) {
      atomic_fetch_add(&pump->send_lock_skips, 1);
      return;
    }
    pthread_mutex_lock(&pump->send_lock);
  }
  for (;;) {
    pthread_mutex_lock(&pump->lock);
    if (timer_fired) pump->armed = 0; /* (it expired: set it again even for the same time) */
    timer_fired = 0;
    double now = now_ms(CLOCK_MONOTONIC);
    size_t count = 0;
    while (count < DUE_BATCH && pump->timed_count > 0 && pump->timed[0].due <= now) due[count++] = timed_pop(pump);
    if (count == 0) {
      if (arm) arm_timer(pump);
      pthread_mutex_unlock(&pump->lock);
      pthread_mutex_unlock(&pump->send_lock);
      return;
    }
    pthread_mutex_unlock(&pump->lock);
    size_t sent = send_timed(pump, due, count);
    double left = now_ms(CLOCK_MONOTONIC);
    pthread_mutex_lock(&pump->lock);
    pump->timed_sent += sent;
    note_lateness(pump, due, count, left);
    pthread_mutex_unlock(&pump->lock);
    for (size_t i = 0; i < count; i++) free(due[i].data);
  }
}

static void close_removed(Pump *pump) {
  pthread_mutex_lock(&pump->lock);
  for (int i = 0; i < MAX_SOURCES; i++) {
    Source *source = &pump->sources[i];
    if (source->fd >= 0 && source->closing) {
      close(source->fd);
      source->fd = -1;
      source->closing = 0;
    }
  }
  pthread_mutex_unlock(&pump->lock);
}

static void *pump_thread(void *arg) {
  Pump *pump = (Pump *)arg;
  Scratch *s = calloc(1, sizeof(Scratch));
  if (s != NULL) s->buffers = malloc((size_t)VLEN * MAX_DATAGRAM);
  if (s == NULL || s->buffers == NULL) return NULL;
  struct epoll_event events[64];
  double last_watch = now_ms(CLOCK_MONOTONIC);
  int watch_interval_ms = WATCH_MS;
  for (;;) {
    if (wait_for_room(pump)) break;
    /* (With sources the event loop reads, the thread also wakes every watch interval to read what waits at them.) */
    int n = epoll_wait(pump->epfd, events, 64, atomic_load(&pump->loop_sources) > 0 ? watch_interval_ms : -1);
    if (n < 0 && errno != EINTR) break;
    atomic_fetch_add(&pump->wakes, 1);
    /* (Counted on appended_by_thread, not in_count: JavaScript may take the waiting records in the meantime, which
       resets in_count, and a difference of in_count would then miss what this wake added: a lost wake-up. Only the
       thread's own appends: the event loop's reads are handed over by the loop itself.) */
    uint64_t before;
    pthread_mutex_lock(&pump->lock);
    before = pump->appended_by_thread;
    pthread_mutex_unlock(&pump->lock);
    int removed = 0, timer_fired = 0;
    for (int i = 0; i < n; i++) {
      uint64_t key = events[i].data.u64;
      if (key == UINT64_MAX - 1) {
        timer_fired = 1;
        continue;
      }
      if (key == UINT64_MAX) {
        uint64_t value;
        if (read(pump->wakefd, &value, sizeof(value)) < 0) { /* nothing to do */ }
        removed = 1;
        continue;
      }
      Source *source = &pump->sources[key];
      if (source->fd < 0 || source->closing) continue;
      if (source->kind == KIND_UDP) receive_udp_locked(pump, (uint32_t)key, source, s);
      else receive_tun(pump, (uint32_t)key, source, s);
    }
    /* Whatever woke the thread, what is due leaves now: with the slack, a wake for an arrival takes the departures
       due just before it along, and the timer's own wake is saved. */
    if (timer_fired) atomic_fetch_add(&pump->timer_wakes, 1);
    send_due(pump, timer_fired, 1);
    watch_loop_sources(pump, s, &last_watch, &watch_interval_ms);
    if (removed) close_removed(pump);
    pthread_mutex_lock(&pump->lock);
    int stopping = pump->stopping;
    uint64_t added = pump->appended_by_thread - before;
    pthread_mutex_unlock(&pump->lock);
    if (stopping) break;
    if (added > 0) uv_async_send(&pump->async);
  }
  free(s->buffers);
  free(s);
  return NULL;
}

static const napi_type_tag PUMP_TAG = {0x6c696e6b7368656cULL, 0x70756d7072656376ULL};

static void hand_to_thread(Pump *pump, uint32_t id, Source *source);
static void stop_loop_reader(Pump *pump, Source *source);

/* On the JavaScript thread: take what was gathered and hand it over as one ArrayBuffer. */
static void hand_over(Pump *pump) {
  /* The buffer the thread fills is swapped for the one taken last time (kept, not freed: no allocation per batch). */
  pthread_mutex_lock(&pump->lock);
  uint8_t *records = pump->in_buf;
  size_t length = pump->in_len, cap = pump->in_cap;
  uint32_t count = pump->in_count;
  pump->in_buf = pump->spare_buf;
  pump->in_cap = pump->spare_cap;
  pump->in_len = 0;
  pump->in_count = 0;
  pthread_cond_signal(&pump->drained);
  pthread_mutex_unlock(&pump->lock);
  pump->spare_buf = records;
  pump->spare_cap = cap;
  if (count == 0) return;
  atomic_fetch_add(&pump->handovers, 1);
  if (count > atomic_load(&pump->max_batch)) atomic_store(&pump->max_batch, count);
  napi_env env = pump->env;
  napi_handle_scope scope;
  napi_open_handle_scope(env, &scope);
  /* A copy in a plain ArrayBuffer: no finalizer to run and no Buffer prototype to set per batch, which cost more
     than copying a batch (JavaScript views it as a Buffer; the views it keeps stay valid). */
  napi_value arraybuffer, callback, resource, result, argv[2];
  void *data;
  if (napi_create_arraybuffer(env, length, &data, &arraybuffer) != napi_ok) {
    napi_close_handle_scope(env, scope);
    return; /* (out of memory: the batch is lost, as by a full buffer) */
  }
  memcpy(data, records, length);
  argv[0] = arraybuffer;
  argv[1] = make_int(env, count);
  napi_get_reference_value(env, pump->callback, &callback);
  napi_get_reference_value(env, pump->resource, &resource);
  if (napi_make_callback(env, pump->context, resource, callback, 2, argv, &result) == napi_pending_exception) {
    napi_value exception;
    napi_get_and_clear_last_exception(env, &exception);
    napi_fatal_exception(env, exception);
  }
  napi_close_handle_scope(env, scope);
}

/* After a handover on the event loop: sends what JavaScript handed over already due (late), sets the timer once for
   what it handed over (sendAt left it: one timerfd_settime, not one per datagram), and makes sure a refusal reported
   by a send meanwhile is handed over too. */
static void after_hand_over(Pump *pump) {
  send_due(pump, 0, 1);
  pthread_mutex_lock(&pump->lock);
  int waiting = pump->in_count > 0;
  pthread_mutex_unlock(&pump->lock);
  if (waiting) uv_async_send(&pump->async);
}

/* The thread has gathered arrivals: hand them over; then send what JavaScript handed over already due (late). */
static void on_async(uv_async_t *handle) {
  Pump *pump = (Pump *)handle->data;
  if (pump->closed) return;
  pump->defer_arm = 1;
  hand_over(pump);
  pump->defer_arm = 0;
  if (!pump->closed) after_hand_over(pump);
}

static Scratch *new_scratch(void) {
  Scratch *s = calloc(1, sizeof(Scratch));
  if (s != NULL) s->buffers = malloc((size_t)VLEN * MAX_DATAGRAM);
  if (s != NULL && s->buffers == NULL) {
    free(s);
    s = NULL;
  }
  return s;
}

/* A source the event loop reads is readable: read it, send the departures due by now, hand the arrivals over, and
   send what JavaScript handed over already due; all in this one wake. */
static void on_readable(uv_poll_t *handle, int status, int events) {
  LoopReader *reader = (LoopReader *)handle;
  Pump *pump = reader->pump;
  if (pump->closed) return;
  Source *source = &pump->sources[reader->id];
  if (source->fd < 0 || source->closing) return;
  if (pump->loop_scratch == NULL) pump->loop_scratch = new_scratch();
  if (pump->loop_scratch == NULL || (status < 0 && ++reader->errors_in_row > 16)) {
    hand_to_thread(pump, reader->id, source);
    return;
  }
  /* (A pending socket error, such as the peer's "port unreachable" at a connected socket, comes as an error status,
     and libuv stops the handle: the read reports and clears the error, and the handle is started again.) */
  pthread_mutex_lock(&pump->lock);
  uint64_t before = pump->appended;
  pthread_mutex_unlock(&pump->lock);
  int n = receive_udp_locked(pump, reader->id, source, (Scratch *)pump->loop_scratch);
  if (n > 0) atomic_fetch_add(&pump->received_on_loop, (uint64_t)n);
  pthread_mutex_lock(&pump->lock);
  if (pump->appended != before) reader->errors_in_row = 0; /* (a datagram, or the error reported: not stuck) */
  pthread_mutex_unlock(&pump->lock);
  if (status < 0) uv_poll_start(handle, UV_READABLE, on_readable);
  send_due(pump, 0, 0);
  pump->defer_arm = 1;
  hand_over(pump);
  pump->defer_arm = 0;
  if (!pump->closed) after_hand_over(pump);
}

static void free_reader(uv_handle_t *handle) {
  free(handle);
}

/* Hands a source the event loop cannot read (errors reported over and over, no memory) to the thread, which reads it as any other. */
static void hand_to_thread(Pump *pump, uint32_t id, Source *source) {
  stop_loop_reader(pump, source);
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = (uint64_t)id};
  epoll_ctl(pump->epfd, EPOLL_CTL_ADD, source->fd, &event);
}

/* Stops the event loop's reading of a source (before its fd is closed); lock not held. */
static void stop_loop_reader(Pump *pump, Source *source) {
  if (source->poll == NULL) return;
  epoll_ctl(pump->watch_epfd, EPOLL_CTL_DEL, source->fd, NULL);
  uv_close((uv_handle_t *)source->poll, free_reader);
  source->poll = NULL;
  atomic_fetch_sub(&pump->loop_sources, 1);
}

static void release(Pump *pump) {
  for (size_t i = 0; i < pump->timed_count; i++) free(pump->timed[i].data);
  free(pump->timed);
  free(pump->lateness);
  free(pump->in_buf);
  free(pump->spare_buf);
  free(pump->out);
  free(pump->out_data);
  Scratch *s = (Scratch *)pump->loop_scratch;
  if (s != NULL) free(s->buffers);
  free(s);
  pthread_mutex_destroy(&pump->lock);
  pthread_mutex_destroy(&pump->read_lock);
  pthread_mutex_destroy(&pump->send_lock);
  pthread_cond_destroy(&pump->drained);
  free(pump);
}

/* The memory goes once libuv is done with the handle and JavaScript with the object, whichever is last. */
static void on_async_closed(uv_handle_t *handle) {
  Pump *pump = (Pump *)handle->data;
  pump->handle_closed = 1;
  if (pump->finalized) release(pump);
}

static void stop_pump(Pump *pump) {
  if (pump->closed) return;
  pump->closed = 1;
  pthread_mutex_lock(&pump->lock);
  pump->stopping = 1;
  pthread_cond_signal(&pump->drained);
  pthread_mutex_unlock(&pump->lock);
  uint64_t one = 1;
  if (write(pump->wakefd, &one, sizeof(one)) < 0) { /* the thread sees `stopping` at its next wake anyway */ }
  if (pump->thread_started) pthread_join(pump->thread, NULL);
  for (int i = 0; i < MAX_SOURCES; i++) {
    stop_loop_reader(pump, &pump->sources[i]);
    if (pump->sources[i].fd >= 0) close(pump->sources[i].fd);
  }
  close(pump->epfd);
  close(pump->watch_epfd);
  close(pump->wakefd);
  close(pump->timerfd);
  napi_delete_reference(pump->env, pump->callback);
  napi_delete_reference(pump->env, pump->resource);
  napi_async_destroy(pump->env, pump->context);
  uv_close((uv_handle_t *)&pump->async, on_async_closed);
}

static void pump_finalize(napi_env env, void *data, void *hint) {
  /* Collected without closePump: stop the thread (the memory is freed once libuv has closed the handle). */
  Pump *pump = (Pump *)data;
  pump->finalized = 1;
  stop_pump(pump);
  if (pump->handle_closed) release(pump);
}

static Pump *get_pump(napi_env env, napi_value value) {
  void *data = NULL;
  if (arg_external(env, value, "pump", &PUMP_TAG, &data)) return NULL;
  Pump *pump = (Pump *)data;
  if (pump->closed) {
    throw_error(env, "pump is closed");
    return NULL;
  }
  return pump;
}

static napi_value pump_create(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  napi_valuetype type;
  int64_t max_pending;
  double send_slack;
  int reads_on_loop;
  if (get_args(env, info, "createPump", 4, argv)) return NULL;
  if (napi_typeof(env, argv[0], &type) != napi_ok || type != napi_function) return throw_type_error(env, "callback must be a function");
  if (arg_int(env, argv[1], "maxPendingBytes", 1 << 16, (int64_t)1 << 40, &max_pending)) return NULL;
  if (napi_get_value_double(env, argv[2], &send_slack) != napi_ok || !(send_slack >= 0) || send_slack > 1e7)
    return throw_range_error(env, "sendSlackMs must be a number in 0..10000000");
  if (arg_bool(env, argv[3], "readsOnEventLoop", &reads_on_loop)) return NULL;
  uv_loop_t *loop;
  if (napi_get_uv_event_loop(env, &loop) != napi_ok) return throw_error(env, "no event loop");
  Pump *pump = calloc(1, sizeof(Pump));
  if (pump == NULL) return throw_error(env, "createPump: out of memory");
  for (int i = 0; i < MAX_SOURCES; i++) pump->sources[i].fd = -1;
  pump->env = env;
  pump->max_pending = (size_t)max_pending;
  pump->send_slack = send_slack;
  pump->reads_on_loop = reads_on_loop;
  pump->loop = loop;
  pthread_mutex_init(&pump->lock, NULL);
  pthread_mutex_init(&pump->read_lock, NULL);
  pthread_mutex_init(&pump->send_lock, NULL);
  pthread_cond_init(&pump->drained, NULL);
  pump->epfd = epoll_create1(EPOLL_CLOEXEC);
  pump->wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  pump->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
  pump->watch_epfd = epoll_create1(EPOLL_CLOEXEC);
  if (pump->epfd < 0 || pump->wakefd < 0 || pump->timerfd < 0 || pump->watch_epfd < 0) {
    int error = errno;
    if (pump->watch_epfd >= 0) close(pump->watch_epfd);
    if (pump->epfd >= 0) close(pump->epfd);
    if (pump->wakefd >= 0) close(pump->wakefd);
    if (pump->timerfd >= 0) close(pump->timerfd);
    release(pump);
    return throw_error(env, "createPump: %s", strerror(error));
  }
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = UINT64_MAX};
  epoll_ctl(pump->epfd, EPOLL_CTL_ADD, pump->wakefd, &event);
  struct epoll_event timer_event = {.events = EPOLLIN, .data.u64 = UINT64_MAX - 1};
  epoll_ctl(pump->epfd, EPOLL_CTL_ADD, pump->timerfd, &timer_event);
  uv_async_init(loop, &pump->async, on_async);
  pump->async.data = pump;
  /* The pump alone does not keep the process alive (its sources' owners do). */
  uv_unref((uv_handle_t *)&pump->async);
  napi_value name, handle;
  napi_create_string_utf8(env, "LinkshellPump", NAPI_AUTO_LENGTH, &name);
  napi_async_init(env, NULL, name, &pump->context);
  napi_create_reference(env, argv[0], 1, &pump->callback);
  napi_value resource;
  napi_create_object(env, &resource);
  napi_create_reference(env, resource, 1, &pump->resource);
  if (pthread_create(&pump->thread, NULL, pump_thread, pump) != 0) {
    int error = errno;
    pump->finalized = 1; /* no JavaScript object will hold it */
    stop_pump(pump);
    return throw_error(env, "createPump: cannot start the receive thread: %s", strerror(error));
  }
  pump->thread_started = 1;
  napi_create_external(env, pump, pump_finalize, NULL, &handle);
  napi_type_tag_object(env, handle, &PUMP_TAG);
  return handle;
}

/* The event loop reads a UDP source (libuv polls its fd); the thread looks at it through watch_epfd. 0: done. */
static int add_loop_reader(Pump *pump, uint32_t id, Source *source) {
  LoopReader *reader = calloc(1, sizeof(LoopReader));
  if (reader == NULL) return -1;
  reader->pump = pump;
  reader->id = id;
  if (uv_poll_init(pump->loop, &reader->poll, source->fd) != 0) {
    free(reader);
    return -1;
  }
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = (uint64_t)id};
  if (epoll_ctl(pump->watch_epfd, EPOLL_CTL_ADD, source->fd, &event) < 0) {
    uv_close((uv_handle_t *)&reader->poll, free_reader);
    return -1;
  }
  uv_unref((uv_handle_t *)&reader->poll); /* (the pump alone does not keep the process alive) */
  source->poll = &reader->poll;
  atomic_fetch_add(&pump->loop_sources, 1);
  uv_poll_start(&reader->poll, UV_READABLE, on_readable);
  /* (Wake the thread, which may be waiting with no timeout, to look at the loop's sources from now on.) */
  uint64_t one = 1;
  if (write(pump->wakefd, &one, sizeof(one)) < 0) { /* already signalled */ }
  return 0;
}

static napi_value pump_add_source(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  int64_t id, fd, kind;
  int want_address;
  if (get_args(env, info, "addSource", 5, argv)) return NULL;
  Pump *pump = get_pump(env, argv[0]);
  if (pump == NULL || arg_int(env, argv[1], "id", 0, MAX_SOURCES - 1, &id) || arg_int(env, argv[2], "fd", 0, 1 << 30, &fd) ||
      arg_int(env, argv[3], "kind", 0, 1, &kind) || arg_bool(env, argv[4], "wantAddress", &want_address))
    return NULL;
  Source *source = &pump->sources[id];
  pthread_mutex_lock(&pump->lock);
  int busy = source->fd >= 0;
  pthread_mutex_unlock(&pump->lock);
  if (busy) return throw_range_error(env, "source id %lld is in use", (long long)id);
  int copy = fcntl((int)fd, F_DUPFD_CLOEXEC, 3);
  if (copy < 0) return throw_coded_error(env, "EBADF", "addSource: fd %lld: %s", (long long)fd, strerror(errno));
  int flags = fcntl(copy, F_GETFL);
  fcntl(copy, F_SETFL, flags | O_NONBLOCK);
  if (kind == KIND_UDP) {
    int on = 1;
    setsockopt(copy, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on));
    setsockopt(copy, SOL_SOCKET, SO_RXQ_OVFL, &on, sizeof(on));
  }
  pthread_mutex_lock(&pump->lock);
  source->fd = copy;
  source->kind = (int)kind;
  source->want_address = want_address;
  source->closing = 0;
  atomic_store(&source->kernel_drops, 0);
  atomic_store(&source->drops_known, 0);
  pthread_mutex_unlock(&pump->lock);
  struct epoll_event event = {.events = EPOLLIN, .data.u64 = (uint64_t)id};
  if (kind == KIND_UDP && pump->reads_on_loop) {
    if (add_loop_reader(pump, (uint32_t)id, source) == 0) return NULL;
    /* (Else the thread reads it.) */
  }
  if (epoll_ctl(pump->epfd, EPOLL_CTL_ADD, copy, &event) < 0) {
    int error = errno;
    pthread_mutex_lock(&pump->lock);
    source->fd = -1;
    pthread_mutex_unlock(&pump->lock);
    close(copy);
    return throw_error(env, "addSource: epoll_ctl: %s", strerror(error));
  }
  return NULL;
}

static napi_value pump_remove_source(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  int64_t id;
  if (get_args(env, info, "removeSource", 2, argv)) return NULL;
  Pump *pump = get_pump(env, argv[0]);
  if (pump == NULL || arg_int(env, argv[1], "id", 0, MAX_SOURCES - 1, &id)) return NULL;
  Source *source = &pump->sources[id];
  if (source->fd >= 0 && !source->closing) stop_loop_reader(pump, source);
  pthread_mutex_lock(&pump->lock);
  if (source->fd >= 0 && !source->closing) {
    epoll_ctl(pump->epfd, EPOLL_CTL_DEL, source->fd, NULL);
    source->closing = 1;
  }
  pthread_mutex_unlock(&pump->lock);
  /* The thread closes the fd (it may be reading it right now). */
  uint64_t one = 1;
  if (write(pump->wakefd, &one, sizeof(one)) < 0) { /* already signalled */ }
  return NULL;
}

static int parse_address(napi_env env, napi_value text_value, napi_value port_value, struct sockaddr_storage *out) {
  char text[64];
  size_t length;
  int64_t port;
  if (napi_get_value_string_utf8(env, text_value, text, sizeof(text), &length) != napi_ok) {
    throw_type_error(env, "address must be a string");
    return -1;
  }
  if (arg_int(env, port_value, "port", 1, 65535, &port)) return -1;
  memset(out, 0, sizeof(*out));
  struct sockaddr_in *v4 = (struct sockaddr_in *)out;
  struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)out;
  if (inet_pton(AF_INET, text, &v4->sin_addr) == 1) {
    v4->sin_family = AF_INET;
    v4->sin_port = htons((uint16_t)port);
  } else if (inet_pton(AF_INET6, text, &v6->sin6_addr) == 1) {
    v6->sin6_family = AF_INET6;
    v6->sin6_port = htons((uint16_t)port);
  } else {
    throw_range_error(env, "address %s is not an IPv4 or IPv6 address", text);
    return -1;
  }
  return 0;
}

static napi_value pump_send(napi_env env, napi_callback_info info) {
  napi_value argv[5];
  size_t argc = 5;
  int64_t id;
  uint8_t *data;
  size_t length;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 3) return throw_type_error(env, "send expects 3 or 5 arguments, got %zu", argc);
  Pump *pump = get_pump(env, argv[0]);
  if (pump == NULL || arg_int(env, argv[1], "id", 0, MAX_SOURCES - 1, &id) || arg_bytes(env, argv[2], "bytes", -1, &data, &length)) return NULL;
  if (length > MAX_DATAGRAM) return throw_range_error(env, "bytes must be at most %d, got %zu", MAX_DATAGRAM, length);
  if (pump->out_count == pump->out_cap) {
    size_t cap = pump->out_cap ? pump->out_cap * 2 : 64;
    Outgoing *grown = realloc(pump->out, cap * sizeof(Outgoing));
    if (grown == NULL) return throw_error(env, "send: out of memory");
    pump->out = grown;
    pump->out_cap = cap;
  }
  if (pump->out_len + length > pump->out_data_cap) {
    size_t cap = pump->out_data_cap ? pump->out_data_cap : 1 << 16;
    while (cap < pump->out_len + length) cap *= 2;
    uint8_t *grown = realloc(pump->out_data, cap);
    if (grown == NULL) return throw_error(env, "send: out of memory");
    pump->out_data = grown;
    pump->out_data_cap = cap;
  }
  Outgoing *o = &pump->out[pump->out_count];
  o->id = (uint32_t)id;
  o->length = (uint32_t)length;
  o->has_address = 0;
  if (argc >= 5 && !is_null_or_undefined(env, argv[3])) {
    if (parse_address(env, argv[3], argv[4], &o->address)) return NULL;
    o->has_address = 1;
  }
  o->offset = pump->out_len;
  memcpy(pump->out_data + pump->out_len, data, length);
  pump->out_len += length;
  pump->out_count++;
  return NULL;
}

/* Sends a run of datagrams for one UDP socket with sendmmsg; returns how many failed. */
static int send_udp_run(Pump *pump, int fd, Outgoing *run, size_t count) {
  struct mmsghdr msgs[SEND_BATCH];
  struct iovec iovs[SEND_BATCH];
  int failed = 0;
  size_t done = 0;
  while (done < count) {
    size_t n = count - done < SEND_BATCH ? count - done : SEND_BATCH;
    for (size_t i = 0; i < n; i++) {
      Outgoing *o = &run[done + i];
      iovs[i].iov_base = pump->out_data + o->offset;
      iovs[i].iov_len = o->length;
      memset(&msgs[i].msg_hdr, 0, sizeof(struct msghdr));
      msgs[i].msg_hdr.msg_iov = &iovs[i];
      msgs[i].msg_hdr.msg_iovlen = 1;
      if (o->has_address) {
        msgs[i].msg_hdr.msg_name = &o->address;
        msgs[i].msg_hdr.msg_namelen = o->address.ss_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
      }
    }
    int sent = sendmmsg(fd, msgs, (unsigned)n, MSG_DONTWAIT);
    pump->send_calls++;
    if (sent < 0) {
      if (errno == EINTR) continue;
      /* The first datagram failed: count it and go on with the next. */
      if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) pump->send_drops++;
      else if (errno == ECONNREFUSED) pump->send_refused++;
      else pump->send_errors++;
      failed++;
      done++;
      continue;
    }
    pump->sent += (uint64_t)sent;
    done += (size_t)sent;
  }
  return failed;
}

static napi_value pump_flush(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (get_args(env, info, "flush", 1, argv)) return NULL;
  Pump *pump = get_pump(env, argv[0]);
  if (pump == NULL) return NULL;
  int failed = 0;
  size_t i = 0;
  while (i < pump->out_count) {
    Outgoing *o = &pump->out[i];
    Source *source = &pump->sources[o->id];
    size_t j = i + 1;
    while (j < pump->out_count && pump->out[j].id == o->id) j++;
    if (source->fd < 0 || source->closing) {
      failed += (int)(j - i);
      pump->send_errors += j - i;
    } else if (source->kind == KIND_UDP) {
      failed += send_udp_run(pump, source->fd, o, j - i);
    } else {
      for (size_t k = i; k < j; k++) {
        Outgoing *p = &pump->out[k];
        ssize_t n;
        do n = write(source->fd, pump->out_data + p->offset, p->length);
        while (n < 0 && errno == EINTR);
        pump->send_calls++;
        if (n >= 0) pump->sent++;
        else {
          failed++;
          if (errno == EAGAIN || errno == EWOULDBLOCK) pump->send_drops++;
          else pump->send_errors++;
        }
      }
    }
    i = j;
  }
  pump->out_count = 0;
  pump->out_len = 0;
  return make_int(env, failed);
}

/* sendAt(pump, id, bytes, dueMs, tag, address?, port?): the thread sends it at dueMs (CLOCK_MONOTONIC ms), at once if past. */
static napi_value pump_send_at(napi_env env, napi_callback_info info) {
  napi_value argv[7];
  size_t argc = 7;
  int64_t id, tag;
  uint8_t *data;
  size_t length;
  double due;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 5) return throw_type_error(env, "sendAt expects 5 or 7 arguments, got %zu", argc);
  Pump *pump = get_pump(env, argv[0]);
  if (pump == NULL || arg_int(env, argv[1], "id", 0, MAX_SOURCES - 1, &id) || arg_bytes(env, argv[2], "bytes", -1, &data, &length)) return NULL;
  if (napi_get_value_double(env, argv[3], &due) != napi_ok || !(due >= 0) || due > 1e15) return throw_range_error(env, "dueMs must be a finite number >= 0");
  if (arg_int(env, argv[4], "tag", 0, 1 << 20, &tag)) return NULL;
  if (length > MAX_DATAGRAM) return throw_range_error(env, "bytes must be at most %d, got %zu", MAX_DATAGRAM, length);
  Timed t;
  memset(&t, 0, sizeof(t));
  if (argc >= 7 && !is_null_or_undefined(env, argv[5])) {
    if (parse_address(env, argv[5], argv[6], &t.address)) return NULL;
    t.has_address = 1;
  }
  t.due = due;
  t.id = (uint32_t)id;
  t.tag = (uint32_t)tag;
  t.length = (uint32_t)length;
  t.data = malloc(length ? length : 1);
  if (t.data == NULL) return throw_error(env, "sendAt: out of memory");
  memcpy(t.data, data, length);
  pthread_mutex_lock(&pump->lock);
  t.seq = pump->timed_seq++;
  int failed = timed_push(pump, &t);
  if (!failed && !pump->defer_arm) arm_timer(pump);
  pthread_mutex_unlock(&pump->lock);
  if (failed) {
    free(t.data);
    return throw_error(env, "sendAt: out of memory");
  }
  return NULL;
}

/* drainLateness(pump) -> Float64Array of [tag, lateness ms] pairs of the timed sends since the last call. */
static napi_value pump_drain_lateness(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (get_args(env, info, "drainLateness", 1, argv)) return NULL;
  Pump *pump = get_pump(env, argv[0]);
  if (pump == NULL) return NULL;
  pthread_mutex_lock(&pump->lock);
  size_t count = pump->lateness_count;
  napi_value buffer, array;
  void *out;
  if (napi_create_arraybuffer(env, count * sizeof(double), &out, &buffer) != napi_ok) {
    pthread_mutex_unlock(&pump->lock);
    return throw_error(env, "drainLateness: out of memory");
  }
  if (count) memcpy(out, pump->lateness, count * sizeof(double));
  pump->lateness_count = 0;
  pthread_mutex_unlock(&pump->lock);
  napi_create_typedarray(env, napi_float64_array, count, buffer, 0, &array);
  return array;
}

static napi_value pump_stats(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (get_args(env, info, "stats", 1, argv)) return NULL;
  Pump *pump = get_pump(env, argv[0]);
  if (pump == NULL) return NULL;
  napi_value result, drops;
  napi_create_object(env, &result);
  set_named(env, result, "received", make_double(env, (double)atomic_load(&pump->received)));
  set_named(env, result, "receiveCalls", make_double(env, (double)atomic_load(&pump->receive_calls)));
  set_named(env, result, "wakes", make_double(env, (double)atomic_load(&pump->wakes)));
  set_named(env, result, "timerWakes", make_double(env, (double)atomic_load(&pump->timer_wakes)));
  set_named(env, result, "receivedOnLoop", make_double(env, (double)atomic_load(&pump->received_on_loop)));
  set_named(env, result, "watchReads", make_double(env, (double)atomic_load(&pump->watch_reads)));
  set_named(env, result, "segmentedSends", make_double(env, (double)atomic_load(&pump->segmented_sends)));
  set_named(env, result, "sendLockSkips", make_double(env, (double)atomic_load(&pump->send_lock_skips)));
  set_named(env, result, "handovers", make_double(env, (double)atomic_load(&pump->handovers)));
  set_named(env, result, "maxBatch", make_double(env, (double)atomic_load(&pump->max_batch)));
  set_named(env, result, "stalls", make_double(env, (double)atomic_load(&pump->stalls)));
  set_named(env, result, "sent", make_double(env, (double)pump->sent));
  set_named(env, result, "sendCalls", make_double(env, (double)pump->send_calls));
  set_named(env, result, "sendDrops", make_double(env, (double)pump->send_drops));
  set_named(env, result, "sendRefused", make_double(env, (double)pump->send_refused));
  set_named(env, result, "sendErrors", make_double(env, (double)pump->send_errors));
  pthread_mutex_lock(&pump->lock);
  set_named(env, result, "timedSent", make_double(env, (double)pump->timed_sent));
  set_named(env, result, "timedDropped", make_double(env, (double)pump->timed_dropped));
  set_named(env, result, "timedSendCalls", make_double(env, (double)atomic_load(&pump->timed_send_calls)));
  set_named(env, result, "timedPending", make_double(env, (double)pump->timed_count));
  pthread_mutex_unlock(&pump->lock);
  /* The kernel's drop count (SO_RXQ_OVFL) of each UDP source that has reported one: [id, drops, ...]. */
  napi_create_array(env, &drops);
  uint32_t k = 0;
  for (int i = 0; i < MAX_SOURCES; i++) {
    Source *source = &pump->sources[i];
    if (source->fd < 0 || !atomic_load(&source->drops_known)) continue;
    napi_set_element(env, drops, k++, make_int(env, i));
    napi_set_element(env, drops, k++, make_double(env, (double)atomic_load(&source->kernel_drops)));
  }
  set_named(env, result, "kernelDrops", drops);
  return result;
}

static napi_value pump_close(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  void *data = NULL;
  if (get_args(env, info, "closePump", 1, argv) || arg_external(env, argv[0], "pump", &PUMP_TAG, &data)) return NULL;
  stop_pump((Pump *)data);
  return NULL;
}

static napi_value monotonic_now(napi_env env, napi_callback_info info) {
  return make_double(env, now_ms(CLOCK_MONOTONIC));
}

void pump_define(napi_env env, napi_value exports) {
  napi_property_descriptor properties[] = {
      {"createPump", NULL, pump_create, NULL, NULL, NULL, napi_enumerable, NULL},
      {"addSource", NULL, pump_add_source, NULL, NULL, NULL, napi_enumerable, NULL},
      {"removeSource", NULL, pump_remove_source, NULL, NULL, NULL, napi_enumerable, NULL},
      {"send", NULL, pump_send, NULL, NULL, NULL, napi_enumerable, NULL},
      {"flush", NULL, pump_flush, NULL, NULL, NULL, napi_enumerable, NULL},
      {"sendAt", NULL, pump_send_at, NULL, NULL, NULL, napi_enumerable, NULL},
      {"drainLateness", NULL, pump_drain_lateness, NULL, NULL, NULL, napi_enumerable, NULL},
      {"stats", NULL, pump_stats, NULL, NULL, NULL, napi_enumerable, NULL},
      {"closePump", NULL, pump_close, NULL, NULL, NULL, napi_enumerable, NULL},
      {"monotonicNow", NULL, monotonic_now, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  napi_define_properties(env, exports, sizeof(properties) / sizeof(properties[0]), properties);
}
