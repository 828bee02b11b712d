{
  "targets": [
    {
      "target_name": "vp8",
      "sources": [
        "src/addon.c",
        "src/vp8_common.c",
        "src/buffer_pool.c",
        "src/content_hash.c",
        "src/frame_header.c",
        "src/ssim.c",
        "src/encoder.c",
        "src/decoder.c",
        "src/stream_decoder.c",
        "../native-common/napi_util.c"
      ],
      "cflags": [
        "-O3",
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter"
      ],
      "cflags!": [
        "-O2"
      ],
      "include_dirs": [
        "<!@(pkg-config --cflags-only-I vpx | sed -e 's/-I//g')",
        "../native-common"
      ],
      "libraries": [
        "<!@(pkg-config --libs --static vpx)"
      ]
    }
  ]
}
