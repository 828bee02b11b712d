{
  "targets": [
    {
      "target_name": "tun",
      "sources": [
        "src/tun.c",
        "../native-common/napi_util.c"
      ],
      "cflags": [
        "-O2",
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter"
      ],
      "include_dirs": [
        "../native-common"
      ]
    }
  ]
}
