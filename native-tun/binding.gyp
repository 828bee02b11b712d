{
  "targets": [
    {
      "target_name": "tun",
      "sources": [
        "src/tun.c",
        "src/pump.c",
        "src/netns.c",
        "../native-common/napi_util.c"
      ],
      "cflags": [
        "-O2",
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
        "-pthread"
      ],
      "include_dirs": [
        "../native-common"
      ]
    }
  ]
}
