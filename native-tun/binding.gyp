{
  "targets": [
    {
      "target_name": "tun",
      "sources": ["src/tun.c"],
      "cflags": ["-O2", "-std=gnu11", "-Wall", "-Wextra", "-Wno-unused-parameter"]
    }
  ]
}
