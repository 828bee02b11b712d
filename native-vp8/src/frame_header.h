/* Parses the uncompressed chunk and the first fields of the compressed
 * header of a VP8 frame (RFC 6386, sections 9.1-9.11 and 19.2): enough to
 * know the frame type, size, quantizer, which references it updates and
 * whether it changes decoder state other than the reference pictures. */
#ifndef NATIVE_VP8_FRAME_HEADER_H
#define NATIVE_VP8_FRAME_HEADER_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
  int key_frame;
  int version;
  int show_frame;
  uint32_t first_partition_size;
  int width, height; /* key frames only (0 otherwise) */
  int horizontal_scale, vertical_scale;
  int segmentation_enabled;
  int filter_type, loop_filter_level, sharpness;
  int lf_delta_enabled;
  int lf_delta_update;
  int ref_lf_delta_set[4], ref_lf_delta[4];   /* set[i]: this frame sends delta i */
  int mode_lf_delta_set[4], mode_lf_delta[4];
  int log2_partitions;
  int y_ac_qi;
  int refresh_golden, refresh_alt, copy_to_golden, copy_to_alt;
  int sign_bias_golden, sign_bias_alt;
  int refresh_entropy_probs;
  int refresh_last;
  /* Bit mask of references this frame writes: 1 last, 2 golden, 4 alt-ref. */
  int updated_refs;
} Vp8FrameHeader;

/* Returns 0 on success, else writes a message naming the bad field to err. */
int vp8_parse_frame_header(const uint8_t *data, size_t length, Vp8FrameHeader *out, char *err, size_t err_size);
/* The same for the received prefix of a frame: the first partition may be cut short, as long as the frame
 * header fields it starts with are all there. */
int vp8_parse_partial_frame_header(const uint8_t *data, size_t length, Vp8FrameHeader *out, char *err,
                                   size_t err_size);

#endif
