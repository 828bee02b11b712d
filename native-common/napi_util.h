/* Argument checking and error helpers for the entry points of every native
 * addon of the repository (native-vp8, native-tun): one copy, so that each
 * addon validates its arguments the same way with the same messages. Every
 * helper throws a JavaScript error naming the argument and returns nonzero
 * when the value is unusable, so callers just `return NULL`. */
#ifndef NATIVE_COMMON_NAPI_UTIL_H
#define NATIVE_COMMON_NAPI_UTIL_H
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>

napi_value throw_error(napi_env env, const char *format, ...);
napi_value throw_range_error(napi_env env, const char *format, ...);
napi_value throw_type_error(napi_env env, const char *format, ...);
/* An Error whose `code` property is `code` (a stable name such as "EACCES"; NULL for none). */
napi_value throw_coded_error(napi_env env, const char *code, const char *format, ...);

/* Reads the call's arguments into argv[0..expected-1]; fewer than `expected` throws a TypeError naming `function_name`. */
int get_args(napi_env env, napi_callback_info info, const char *function_name, size_t expected, napi_value *argv);

/* An integral number in [min, max]. */
int arg_int(napi_env env, napi_value value, const char *name, int64_t min, int64_t max, int64_t *out);
int arg_bool(napi_env env, napi_value value, const char *name, int *out);
/* A Uint8Array (or Buffer); exact_length < 0 accepts any length. */
int arg_bytes(napi_env env, napi_value value, const char *name, int64_t exact_length, uint8_t **data, size_t *length);
int arg_bigint_u64(napi_env env, napi_value value, const char *name, uint64_t *out);
/* An external created by this addon with the given type tag. */
int arg_external(napi_env env, napi_value value, const char *name, const napi_type_tag *tag, void **out);
int is_null_or_undefined(napi_env env, napi_value value);

napi_value make_int(napi_env env, int64_t v);
napi_value make_double(napi_env env, double v);
napi_value make_bool(napi_env env, int v);
napi_value make_bigint(napi_env env, uint64_t v);
napi_value make_string(napi_env env, const char *s);
void set_named(napi_env env, napi_value object, const char *name, napi_value value);

double monotonic_ms(void);

#endif /* NATIVE_COMMON_NAPI_UTIL_H */
