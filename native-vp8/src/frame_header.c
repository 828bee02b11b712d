#include "frame_header.h"

#include <stdio.h>
#include <string.h>

/* The boolean entropy decoder of RFC 6386 section 7, reading zeros past the
 * end of its input and remembering that it did. */
typedef struct {
  const uint8_t *data, *end;
  uint32_t value;
  uint32_t range;
  int bit_count;
  int overrun;
} BoolReader;

static uint8_t next_byte(BoolReader *br) {
  if (br->data < br->end) return *br->data++;
  br->overrun = 1;
  return 0;
}

static void bool_init(BoolReader *br, const uint8_t *data, size_t length) {
  br->data = data;
  br->end = data + length;
  br->overrun = 0;
  br->value = ((uint32_t)next_byte(br) << 8);
  br->value |= next_byte(br);
  br->range = 255;
  br->bit_count = 0;
}

static int read_bool(BoolReader *br, int probability) {
  uint32_t split = 1 + (((br->range - 1) * (uint32_t)probability) >> 8);
  uint32_t big_split = split << 8;
  int bit;
  if (br->value >= big_split) {
    bit = 1;
    br->range -= split;
    br->value -= big_split;
  } else {
    bit = 0;
    br->range = split;
  }
  while (br->range < 128) {
    br->value <<= 1;
    br->range <<= 1;
    if (++br->bit_count == 8) {
      br->bit_count = 0;
      br->value |= next_byte(br);
    }
  }
  return bit;
}

static int read_literal(BoolReader *br, int bits) {
  int v = 0;
  while (bits-- > 0) v = (v << 1) | read_bool(br, 128);
  return v;
}

/* A flag, then if set a magnitude of `bits` bits and a sign bit. */
static int read_optional_signed(BoolReader *br, int bits, int *present) {
  *present = read_literal(br, 1);
  if (!*present) return 0;
  int magnitude = read_literal(br, bits);
  return read_literal(br, 1) ? -magnitude : magnitude;
}

static int parse_header(const uint8_t *data, size_t length, int partial, Vp8FrameHeader *h, char *err,
                        size_t err_size) {
  memset(h, 0, sizeof(*h));
  if (data == NULL || length < 3) {
    snprintf(err, err_size, "VP8 frame too short: %zu bytes, the frame tag alone needs 3", length);
    return -1;
  }
  uint32_t tag = (uint32_t)data[0] | ((uint32_t)data[1] << 8) | ((uint32_t)data[2] << 16);
  h->key_frame = !(tag & 1);
  h->version = (tag >> 1) & 7;
  h->show_frame = (tag >> 4) & 1;
  h->first_partition_size = tag >> 5;
  if (h->version > 3) {
    snprintf(err, err_size, "VP8 frame tag: version %d is not 0..3", h->version);
    return -1;
  }
  size_t offset = 3;
  if (h->key_frame) {
    if (length < 10) {
      snprintf(err, err_size, "VP8 key frame too short: %zu bytes, its header needs 10", length);
      return -1;
    }
    if (data[3] != 0x9d || data[4] != 0x01 || data[5] != 0x2a) {
      snprintf(err, err_size, "VP8 key frame: bad start code %02x %02x %02x (expected 9d 01 2a)", data[3], data[4],
               data[5]);
      return -1;
    }
    uint32_t w = (uint32_t)data[6] | ((uint32_t)data[7] << 8);
    uint32_t hh = (uint32_t)data[8] | ((uint32_t)data[9] << 8);
    h->width = (int)(w & 0x3fff);
    h->horizontal_scale = (int)(w >> 14);
    h->height = (int)(hh & 0x3fff);
    h->vertical_scale = (int)(hh >> 14);
    if (h->width == 0 || h->height == 0) {
      snprintf(err, err_size, "VP8 key frame: size %dx%d has a zero dimension", h->width, h->height);
      return -1;
    }
    offset = 10;
  }
  size_t readable = h->first_partition_size;
  if (readable > length - offset) {
    if (!partial) {
      snprintf(err, err_size, "VP8 frame truncated: first partition size %u exceeds the %zu bytes left",
               h->first_partition_size, length - offset);
      return -1;
    }
    readable = length - offset; /* the header fields come first; the macroblock modes after them are missing */
  }

  BoolReader br;
  bool_init(&br, data + offset, readable);
  if (h->key_frame) {
    read_literal(&br, 1); /* color space */
    read_literal(&br, 1); /* clamping type */
  }
  h->segmentation_enabled = read_literal(&br, 1);
  if (h->segmentation_enabled) {
    int update_map = read_literal(&br, 1);
    int update_data = read_literal(&br, 1);
    int present;
    if (update_data) {
      read_literal(&br, 1); /* segment feature mode */
      for (int i = 0; i < 4; i++) read_optional_signed(&br, 7, &present);
      for (int i = 0; i < 4; i++) read_optional_signed(&br, 6, &present);
    }
    if (update_map) {
      for (int i = 0; i < 3; i++) {
        if (read_literal(&br, 1)) read_literal(&br, 8);
      }
    }
  }
  h->filter_type = read_literal(&br, 1);
  h->loop_filter_level = read_literal(&br, 6);
  h->sharpness = read_literal(&br, 3);
  h->lf_delta_enabled = read_literal(&br, 1);
  if (h->lf_delta_enabled) {
    h->lf_delta_update = read_literal(&br, 1);
    if (h->lf_delta_update) {
      for (int i = 0; i < 4; i++) h->ref_lf_delta[i] = read_optional_signed(&br, 6, &h->ref_lf_delta_set[i]);
      for (int i = 0; i < 4; i++) h->mode_lf_delta[i] = read_optional_signed(&br, 6, &h->mode_lf_delta_set[i]);
    }
  }
  h->log2_partitions = read_literal(&br, 2);
  h->y_ac_qi = read_literal(&br, 7);
  for (int i = 0; i < 5; i++) {
    int present;
    read_optional_signed(&br, 4, &present);
  }
  if (h->key_frame) {
    h->refresh_entropy_probs = read_literal(&br, 1);
    h->refresh_golden = h->refresh_alt = h->refresh_last = 1;
    h->updated_refs = 7;
  } else {
    h->refresh_golden = read_literal(&br, 1);
    h->refresh_alt = read_literal(&br, 1);
    if (!h->refresh_golden) h->copy_to_golden = read_literal(&br, 2);
    if (!h->refresh_alt) h->copy_to_alt = read_literal(&br, 2);
    h->sign_bias_golden = read_literal(&br, 1);
    h->sign_bias_alt = read_literal(&br, 1);
    h->refresh_entropy_probs = read_literal(&br, 1);
    h->refresh_last = read_literal(&br, 1);
    h->updated_refs = (h->refresh_last ? 1 : 0) | ((h->refresh_golden || h->copy_to_golden) ? 2 : 0) |
                      ((h->refresh_alt || h->copy_to_alt) ? 4 : 0);
  }
  if (h->copy_to_golden == 3 || h->copy_to_alt == 3) {
    snprintf(err, err_size, "VP8 frame header: copy_buffer_to_%s = 3 is reserved",
             h->copy_to_golden == 3 ? "golden" : "alternate");
    return -1;
  }
  if (br.overrun) {
    snprintf(err, err_size, "VP8 frame header: first partition (%zu bytes%s) ends inside the frame header", readable,
             readable < h->first_partition_size ? " received" : "");
    return -1;
  }
  return 0;
}

int vp8_parse_frame_header(const uint8_t *data, size_t length, Vp8FrameHeader *h, char *err, size_t err_size) {
  return parse_header(data, length, 0, h, err, err_size);
}

int vp8_parse_partial_frame_header(const uint8_t *data, size_t length, Vp8FrameHeader *h, char *err,
                                   size_t err_size) {
  return parse_header(data, length, 1, h, err, err_size);
}
