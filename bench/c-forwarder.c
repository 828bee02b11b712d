/* The reference of bench/linkshell-cpu.ts when mm-link is not installed: a
 * plain C UDP forwarder, the least a relay does (one datagram in, the same
 * bytes out, one recv and one send each, blocking; no link, no timer, no
 * log), so it is a floor below mm-link (which also polls its timer every
 * millisecond and runs a queue). The benchmark builds it with cc -O2.
 *
 *   c-forwarder LISTEN_PORT PEER_PORT     (both on 127.0.0.1; runs until killed) */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: c-forwarder LISTEN_PORT PEER_PORT\n");
    return 2;
  }
  struct sockaddr_in listen_at = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[1])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  struct sockaddr_in peer = {.sin_family = AF_INET, .sin_port = htons(atoi(argv[2])), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
  int in = socket(AF_INET, SOCK_DGRAM, 0), out = socket(AF_INET, SOCK_DGRAM, 0);
  int size = 8 << 20;
  setsockopt(in, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
  if (bind(in, (struct sockaddr *)&listen_at, sizeof(listen_at)) < 0 || connect(out, (struct sockaddr *)&peer, sizeof(peer)) < 0) {
    perror("c-forwarder");
    return 1;
  }
  puts("ready");
  fflush(stdout);
  static char buffer[65536];
  for (;;) {
    ssize_t n = recv(in, buffer, sizeof(buffer), 0);
    if (n >= 0) send(out, buffer, (size_t)n, 0);
  }
}
